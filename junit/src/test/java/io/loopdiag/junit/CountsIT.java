package io.loopdiag.junit;

import static io.loopdiag.junit.Loops.assertMatches;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.EventLoop;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a test's findings are counted: the same one again is one block with its count, distinct ones are each listed. */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CountsIT {

    @Sample
    @LoopdiagCheck
    static class Twice {
        @Test
        void blocksTwiceAtOneLine() throws Exception {
            EventLoop.run(() -> {
                for (int i = 0; i < 2; i++) {
                    Thread.sleep(50); // @line twice
                }
                return null;
            });
        }

        @Test
        void blocksAtTwoLines() throws Exception {
            EventLoop.run(() -> {
                Thread.sleep(50); // @line first
                Thread.sleep(50); // @line second
                return null;
            });
        }
    }

    @Test
    void theSameFindingTwiceIsOneBlockWithItsCount() throws Exception {
        SampleRun.Outcomes outcomes = SampleRun.of(Twice.class);
        assertEquals(List.of(), outcomes.passed());
        String message = outcomes.failureOf("blocksTwiceAtOneLine").getMessage();
        assertEquals("loopdiag saw 2 findings of blocking-call during this test:", message.lines().findFirst().orElseThrow(), message);
        List<String> headers = Loops.headers(message);
        assertEquals(1, headers.size(), message);
        assertMatches(sleepHeader(Twice.class, "blocksTwiceAtOneLine", "twice") + Pattern.quote(" (2 times)"), headers.get(0), message);
    }

    @Test
    void distinctFindingsAreEachListedOnce() throws Exception {
        String message = SampleRun.of(Twice.class).failureOf("blocksAtTwoLines").getMessage();
        assertEquals("loopdiag saw 2 findings of blocking-call during this test:", message.lines().findFirst().orElseThrow(), message);
        List<String> headers = Loops.headers(message);
        assertEquals(2, headers.size(), message);
        assertMatches(sleepHeader(Twice.class, "blocksAtTwoLines", "first"), headers.get(0), message);
        assertMatches(sleepHeader(Twice.class, "blocksAtTwoLines", "second"), headers.get(1), message);
    }

    /** More occurrences than the agent keeps for the extension (1,024). */
    static final int STORM = 1100;

    @Sample
    @LoopdiagCheck
    static class Storm {
        @Test
        void blocksMoreThanTheAgentKeeps() throws Exception {
            EventLoop.run(() -> {
                for (int i = 0; i < STORM; i++) {
                    Thread.sleep(Duration.ofNanos(1)); // @line storm
                }
                return null;
            });
        }
    }

    /**
     * The test still fails on what was kept, and says how many occurrences were not. The watchdog
     * may add a slow-callback or a loop-stall of its own to the ring (not a failing kind, but it
     * takes a place), so the counts are checked as sums, not as 1,024 and 76.
     */
    @Test
    void beyondWhatTheAgentKeepsTheFailureSaysHowManyWereLost() throws Exception {
        String message = SampleRun.of(Storm.class).failureOf("blocksMoreThanTheAgentKeeps").getMessage();
        List<String> headers = Loops.headers(message);
        assertEquals(1, headers.size(), message.substring(0, Math.min(2000, message.length())));
        Matcher header = Pattern.compile(sleepHeader(Storm.class, "blocksMoreThanTheAgentKeeps", "storm") + " \\((\\d+) times\\)").matcher(headers.get(0));
        assertTrue(header.matches(), headers.get(0));
        int kept = Integer.parseInt(header.group(1));
        Matcher lost = Pattern.compile("\\n\\n\\((\\d+) earlier occurrences were not kept\\)$").matcher(message);
        assertTrue(lost.find(), message);
        int notKept = Integer.parseInt(lost.group(1));
        assertEquals("loopdiag saw " + kept + " findings of blocking-call during this test:", message.lines().findFirst().orElseThrow());
        assertTrue(kept <= 1024 && kept + notKept >= STORM && notKept >= STORM - 1024,
                "kept " + kept + ", not kept " + notKept + " of " + STORM);
    }

    /** The header of a sleep's block in the lambda of {@code sample}'s {@code test}, at the line marked {@code name}. */
    static String sleepHeader(Class<?> sample, String test, String name) throws Exception {
        return "loopdiag: blocking-call on loop 'loop-\\d+': java\\.lang\\.Thread\\.sleep in task 'main' \\(#\\d+\\), called at "
                + Pattern.quote(sample.getName() + ".lambda$" + test + "$") + "\\d+" + Pattern.quote("(CountsIT.java:" + SampleRun.line(CountsIT.class, name) + ")");
    }
}
