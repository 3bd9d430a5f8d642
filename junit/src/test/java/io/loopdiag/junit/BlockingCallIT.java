package io.loopdiag.junit;

import static io.loopdiag.junit.Loops.assertMatches;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.AssertionFailedError;

/**
 * The extension with the real agent (Failsafe's JVM runs with {@code -javaagent:} the packaged
 * agent jar), on {@code blocking-call}, its default kind: a blocking call on a loop fails the test
 * it happened in, naming the call and the test's line; a sleep elsewhere fails nothing.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BlockingCallIT {

    @Sample
    @LoopdiagCheck
    static class SleepsOnALoop {
        @Test
        void sleepsInATask() throws Exception {
            EventLoop.run(() -> {
                Thread.sleep(50); // @line sleepsInATask
                return null;
            });
        }
    }

    @Test
    void aSleepOnALoopFailsTheTestNamingTheCallAndTheLine() throws Exception {
        int line = SampleRun.line(SleepsOnALoop.class, "sleepsInATask");
        SampleRun.Outcomes outcomes = SampleRun.of(SleepsOnALoop.class);
        assertEquals(List.of(), outcomes.passed());
        Throwable failure = outcomes.failureOf("sleepsInATask");
        assertInstanceOf(AssertionFailedError.class, failure);
        String message = failure.getMessage();
        List<String> lines = message.lines().toList();
        assertEquals("loopdiag saw 1 finding of blocking-call during this test:", lines.get(0), message);
        assertMatches("loopdiag: blocking-call on loop 'loop-\\d+': java\\.lang\\.Thread\\.sleep in task 'main' \\(#\\d+\\), called at "
                + Pattern.quote("io.loopdiag.junit.BlockingCallIT$SleepsOnALoop.lambda$sleepsInATask$")
                + "\\d+" + Pattern.quote("(BlockingCallIT.java:" + line + ")"), lines.get(1), message);
        assertMatches("    at java\\.base/java\\.lang\\.Thread\\.sleep\\(Thread\\.java:\\d+\\)", lines.get(2), message);
        assertMatches(Pattern.quote("    at io.loopdiag.junit.BlockingCallIT$SleepsOnALoop.lambda$sleepsInATask$")
                + "\\d+" + Pattern.quote("(BlockingCallIT.java:" + line + ")"), lines.get(3), message);
        assertEquals(1, Loops.headers(message).size(), "one block: " + message);
        assertTrue(lines.stream().skip(2).allMatch(l -> l.startsWith("    at ")), "the rest is the stack: " + message);
    }

    @Sample
    @LoopdiagCheck
    static class SleepsOffTheLoop {
        @Test
        void sleepsOnItsOwnThread() throws Exception {
            Thread.sleep(50);
        }

        @Test
        void sleepsOnAThreadItStarts() throws Exception {
            Thread thread = new Thread(() -> {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            thread.start();
            thread.join();
        }

        /** The cure the agent suggests: the loop hands the sleep to a thread and awaits it. */
        @Test
        void sleepsOnAThreadTheLoopAwaits() throws Exception {
            assertEquals("slept", EventLoop.run(() -> Async.toThread(() -> {
                Thread.sleep(50);
                return "slept";
            })));
        }
    }

    @Test
    void aSleepOffTheLoopPasses() {
        SampleRun.Outcomes outcomes = SampleRun.of(SleepsOffTheLoop.class);
        assertEquals(Set.of(), outcomes.failed().keySet(), "failed: " + outcomes.failed());
        assertEquals(Set.of("sleepsOnItsOwnThread", "sleepsOnAThreadItStarts", "sleepsOnAThreadTheLoopAwaits"),
                Set.copyOf(outcomes.passed()));
    }

    @Sample
    @LoopdiagCheck
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class OneBlocksThenNot {
        @Test
        @Order(1)
        void blocks() throws Exception {
            EventLoop.run(BlockingCallIT::sleep);
        }

        @Test
        @Order(2)
        void runsALoopWithoutBlocking() throws Exception {
            assertEquals(42, EventLoop.run(() -> 42));
        }

        /** The agent keeps one finding per stack, but each occurrence fails its own test. */
        @Test
        @Order(3)
        void blocksTheSameWayAgain() throws Exception {
            EventLoop.run(BlockingCallIT::sleep);
        }

        @Test
        @Order(4)
        void runsALoopWithoutBlockingAgain() throws Exception {
            assertEquals(43, EventLoop.run(() -> 43));
        }
    }

    @Test
    void findingsAreMatchedToTheTestTheyHappenedIn() throws Exception {
        int line = SampleRun.line(BlockingCallIT.class, "sleep");
        SampleRun.Outcomes outcomes = SampleRun.of(OneBlocksThenNot.class);
        assertEquals(List.of("runsALoopWithoutBlocking", "runsALoopWithoutBlockingAgain"), outcomes.passed());
        assertEquals(List.of("blocks", "blocksTheSameWayAgain"), List.copyOf(outcomes.failed().keySet()));
        for (String test : outcomes.failed().keySet()) {
            String message = outcomes.failureOf(test).getMessage();
            assertTrue(message.startsWith("loopdiag saw 1 finding of blocking-call during this test:\n"), message);
            assertTrue(message.lines().skip(1).findFirst().orElseThrow()
                    .endsWith("called at io.loopdiag.junit.BlockingCallIT.sleep(BlockingCallIT.java:" + line + ")"), message);
        }
    }

    /** Blocks the loop it is called on. */
    static Void sleep() throws InterruptedException {
        Thread.sleep(50); // @line sleep
        return null;
    }
}
