package io.loopdiag.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * The extension in a JVM without the agent (Surefire's, whose class path leaves the agent out):
 * every checked test fails before its body runs, saying that the agent is missing and how to add
 * it; a test the extension does not check runs as usual.
 */
@Timeout(60)
class WithoutAgentTest {
    /** What the checked tests fail with: the agent's absence, and the line a build needs. */
    static final String NOT_LOADED = "loopdiag: the loopdiag agent is not loaded in this JVM, so @LoopdiagCheck cannot see"
            + " this test's loops: start the test JVM with -javaagent:/path/to/loopdiag-agent.jar (Maven: Surefire's"
            + " <argLine>-javaagent:${io.loopdiag:loopdiag-agent:jar}</argLine>, the path set by maven-dependency-plugin's"
            + " properties goal; Gradle: test { jvmArgs \"-javaagent:/path/to/loopdiag-agent.jar\" })";

    /** The sample tests whose bodies ran. */
    static final Set<String> RAN = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void forget() {
        RAN.clear();
    }

    @Test
    void thisJvmHasNoAgent() {
        assertThrows(ClassNotFoundException.class,
                () -> Class.forName("io.loopdiag.agent.Occurrences", false, ClassLoader.getSystemClassLoader()),
                "the premise of these tests: the agent's feed is not in the system class loader");
    }

    @Sample
    @LoopdiagCheck
    static class CheckedClass {
        @Test
        void passesOnItsOwn() {
            RAN.add("passesOnItsOwn");
        }
    }

    @Test
    void aCheckedTestFailsSayingHowToAddTheAgent() {
        SampleRun.Outcomes outcomes = SampleRun.of(CheckedClass.class);
        assertEquals(List.of(), outcomes.passed());
        Throwable failure = outcomes.failureOf("passesOnItsOwn");
        assertInstanceOf(ExtensionConfigurationException.class, failure);
        assertEquals(NOT_LOADED, failure.getMessage());
        assertEquals(Set.of(), RAN, "the test's body did not run");
    }

    /** Only the message a user needs: nothing from the extension's own after-each step on top. */
    @Test
    void theFailureCarriesNothingElse() {
        Throwable failure = SampleRun.of(CheckedClass.class).failureOf("passesOnItsOwn");
        assertEquals(List.of(), Arrays.stream(failure.getSuppressed()).map(Throwable::toString).toList(), "suppressed by the failure");
        assertNull(failure.getCause(), "the cause");
    }

    @Sample
    @ExtendWith(LoopdiagExtension.class)
    static class ExtendedClass {
        @Test
        void passesOnItsOwn() {
            RAN.add("passesOnItsOwn");
        }
    }

    @Test
    void extendWithAloneFailsTheSameWay() {
        SampleRun.Outcomes outcomes = SampleRun.of(ExtendedClass.class);
        assertEquals(List.of(), outcomes.passed());
        Throwable failure = outcomes.failureOf("passesOnItsOwn");
        assertInstanceOf(ExtensionConfigurationException.class, failure);
        assertEquals(NOT_LOADED, failure.getMessage());
        assertEquals(Set.of(), RAN);
    }

    @Sample
    static class CheckedMethod {
        @Test
        @LoopdiagCheck
        void checked() {
            RAN.add("checked");
        }

        @Test
        void unchecked() {
            RAN.add("unchecked");
        }
    }

    @Test
    void onAMethodOnlyThatTestNeedsTheAgent() {
        SampleRun.Outcomes outcomes = SampleRun.of(CheckedMethod.class);
        assertEquals(List.of("unchecked"), outcomes.passed());
        assertEquals(Set.of("checked"), outcomes.failed().keySet());
        assertEquals(NOT_LOADED, outcomes.failureOf("checked").getMessage());
        assertEquals(Set.of("unchecked"), RAN);
    }
}
