package io.loopdiag.junit;

import static io.loopdiag.junit.Loops.assertMatches;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.opentest4j.AssertionFailedError;

/**
 * Where the check can be declared: on a method (only that test is checked), through a
 * meta-annotation (its {@code failOn} counts), with {@code @ExtendWith} alone (blocking-call), and
 * on a method of a checked class (the method's {@code failOn} wins). The class itself is
 * {@link BlockingCallIT}'s samples.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PlacementIT {

    @Sample
    static class CheckedMethod {
        @Test
        @LoopdiagCheck
        void checkedAndBlocks() throws Exception {
            Loops.block();
        }

        @Test
        void uncheckedAndBlocks() throws Exception {
            Loops.block();
        }
    }

    @Test
    void onAMethodOnlyThatTestIsChecked() throws Exception {
        SampleRun.Outcomes outcomes = SampleRun.of(CheckedMethod.class);
        assertEquals(List.of("uncheckedAndBlocks"), outcomes.passed());
        assertEquals(Set.of("checkedAndBlocks"), outcomes.failed().keySet());
        assertBlockingFailure(outcomes.failureOf("checkedAndBlocks"));
    }

    /** A team's own annotation: it only watches coroutines. */
    @Target({ElementType.TYPE, ElementType.METHOD})
    @Retention(RetentionPolicy.RUNTIME)
    @LoopdiagCheck(failOn = "never-awaited")
    @interface CoroutinesChecked {
    }

    @Sample
    @CoroutinesChecked
    static class MetaAnnotated {
        @Test
        void blocks() throws Exception {
            Loops.block();
        }

        @Test
        void dropsACoroutine() throws Exception {
            Loops.dropACoroutine();
        }
    }

    @Test
    void throughAMetaAnnotationItsKindsCount() throws Exception {
        SampleRun.Outcomes outcomes = SampleRun.of(MetaAnnotated.class);
        assertEquals(List.of("blocks"), outcomes.passed());
        assertEquals(Set.of("dropsACoroutine"), outcomes.failed().keySet());
        String message = outcomes.failureOf("dropsACoroutine").getMessage();
        assertEquals("loopdiag saw 1 finding of never-awaited during this test:", message.lines().findFirst().orElseThrow(), message);
        assertMatches(Loops.dropHeader(), message.lines().skip(1).findFirst().orElseThrow(), message);
    }

    @Sample
    @ExtendWith(LoopdiagExtension.class)
    static class Extended {
        @Test
        void blocks() throws Exception {
            Loops.block();
        }

        @Test
        void dropsACoroutine() throws Exception {
            Loops.dropACoroutine();
        }
    }

    @Test
    void extendWithAloneFailsOnBlockingCallsOnly() throws Exception {
        SampleRun.Outcomes outcomes = SampleRun.of(Extended.class);
        assertEquals(List.of("dropsACoroutine"), outcomes.passed());
        assertEquals(Set.of("blocks"), outcomes.failed().keySet());
        assertBlockingFailure(outcomes.failureOf("blocks"));
    }

    @Sample
    @LoopdiagCheck
    static class MethodOverridesClass {
        @Test
        void blocks() throws Exception {
            Loops.block();
        }

        @Test
        @LoopdiagCheck(failOn = "never-awaited")
        void blocksUnderItsOwnKinds() throws Exception {
            Loops.block();
        }
    }

    @Test
    void aMethodsKindsWinOverItsClasses() throws Exception {
        SampleRun.Outcomes outcomes = SampleRun.of(MethodOverridesClass.class);
        assertEquals(List.of("blocksUnderItsOwnKinds"), outcomes.passed());
        assertEquals(Set.of("blocks"), outcomes.failed().keySet());
        assertBlockingFailure(outcomes.failureOf("blocks"));
    }

    /** The failure of a test that ran {@link Loops#block} once, under blocking-call. */
    static void assertBlockingFailure(Throwable failure) throws Exception {
        assertInstanceOf(AssertionFailedError.class, failure);
        String message = failure.getMessage();
        assertEquals("loopdiag saw 1 finding of blocking-call during this test:", message.lines().findFirst().orElseThrow(), message);
        assertEquals(1, Loops.headers(message).size(), message);
        assertMatches(Loops.blockHeader(), Loops.headers(message).get(0), message);
    }
}
