package io.loopdiag.junit;

import static io.loopdiag.junit.Loops.assertMatches;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.AssertionFailedError;

/** {@code failOn}: a test fails on the kinds it names, and only on them. */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class KindsIT {

    @Sample
    @LoopdiagCheck(failOn = {"never-awaited"})
    static class OnNeverAwaited {
        @Test
        void blocks() throws Exception {
            Loops.block();
        }

        @Test
        void dropsACoroutine() throws Exception {
            Loops.dropACoroutine();
        }

        @Test
        void awaitsACoroutine() throws Exception {
            assertEquals(1, Loops.awaitACoroutine());
        }
    }

    @Test
    void neverAwaitedFailsOnADroppedCoroutineNotOnABlockingCall() throws Exception {
        SampleRun.Outcomes outcomes = SampleRun.of(OnNeverAwaited.class);
        assertEquals(Set.of("blocks", "awaitsACoroutine"), Set.copyOf(outcomes.passed()));
        assertEquals(List.of("dropsACoroutine"), List.copyOf(outcomes.failed().keySet()));
        Throwable failure = outcomes.failureOf("dropsACoroutine");
        assertInstanceOf(AssertionFailedError.class, failure);
        String message = failure.getMessage();
        List<String> lines = message.lines().toList();
        assertEquals("loopdiag saw 1 finding of never-awaited during this test:", lines.get(0), message);
        assertMatches(Loops.dropHeader(), lines.get(1), message);
        assertEquals(1, Loops.headers(message).size(), message);
    }

    @Sample
    @LoopdiagCheck(failOn = {"blocking-call", "never-awaited"})
    static class OnBoth {
        @Test
        void blocksAndDropsACoroutine() throws Exception {
            Loops.block();
            Loops.dropACoroutine();
        }
    }

    @Test
    void severalKindsAreNamedAndEachFindingListed() throws Exception {
        SampleRun.Outcomes outcomes = SampleRun.of(OnBoth.class);
        assertEquals(List.of(), outcomes.passed());
        String message = outcomes.failureOf("blocksAndDropsACoroutine").getMessage();
        assertEquals("loopdiag saw 2 findings of blocking-call, never-awaited during this test:", message.lines().findFirst().orElseThrow());
        List<String> headers = Loops.headers(message);
        assertEquals(2, headers.size(), message);
        assertMatches(Loops.blockHeader(), headers.get(0), message);
        assertMatches(Loops.dropHeader(), headers.get(1), message);
    }
}
