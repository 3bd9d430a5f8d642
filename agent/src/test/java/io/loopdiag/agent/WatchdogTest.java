package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.agent.support.AgentRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The watchdog on a clock the test drives: {@link Watchdog#sample} is called at the times a
 * punctual watchdog thread would call it, over loops whose running callback the test sets. So the
 * durations are exact, and the limits are checked at their edges with no machine's load in the way.
 */
class WatchdogTest {
    private static final long SLOW = TimeUnit.MILLISECONDS.toNanos(100);

    /** A loop whose running callback and stack the test sets. */
    static class FakeLoop implements WatchedLoop {
        private final String name;
        private Object work;
        private long count;
        private String description;
        private String task;
        private List<StackTraceElement> stack = List.of();

        FakeLoop(String name) {
            this.name = name;
        }

        /** A new callback starts running, at {@code frames} (innermost first). */
        void start(String callback, String... frames) {
            work = new Object();
            count++;
            description = callback;
            at(frames);
        }

        /** The running callback has moved on to {@code frames}. */
        void at(String... frames) {
            List<StackTraceElement> trace = new ArrayList<>();
            for (String frame : frames) {
                int dot = frame.lastIndexOf('.');
                trace.add(new StackTraceElement(frame.substring(0, dot), frame.substring(dot + 1), "App.java", 10 + trace.size()));
            }
            stack = List.copyOf(trace);
        }

        void end() {
            work = null;
        }

        @Override
        public Object key() {
            return this;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Object currentWork() {
            return work;
        }

        @Override
        public long workCount() {
            return count;
        }

        @Override
        public Running running() {
            return work == null ? null : new Running(description, task, stack);
        }
    }

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final Findings findings = new Findings(new PrintStream(log, true, StandardCharsets.UTF_8), () -> { });
    private final List<WatchedLoop> loops = new ArrayList<>();
    private final Watchdog watchdog = new Watchdog(SLOW, findings, () -> loops, () -> { }, null, null);
    private final FakeLoop loop = new FakeLoop("orders");
    private long now;

    @BeforeEach
    void aLoop() {
        loops.add(loop);
        now = TimeUnit.SECONDS.toNanos(1000);
        watchdog.sample(now); // idle before the first callback
    }

    /** Samples every period from now until {@code millis} later. */
    private void runFor(long millis) {
        long until = now + TimeUnit.MILLISECONDS.toNanos(millis);
        while (now + watchdog.periodNanos() <= until) {
            now += watchdog.periodNanos();
            watchdog.sample(now);
        }
    }

    private List<String> printed(String kind) {
        return AgentRun.blocks(log.toString(StandardCharsets.UTF_8), "loopdiag: " + kind);
    }

    @Test
    void theWatchdogSamplesTwentyTimesPerLimit() {
        assertEquals(TimeUnit.MILLISECONDS.toNanos(5), watchdog.periodNanos());
    }

    @Test
    void aSampleIsQuietOnlyWhenNoLoopHasRunAnythingSinceTheOneBefore() {
        assertTrue(watchdog.sample(now += watchdog.periodNanos()), "idle, and idle the sample before");
        loop.start("quick", "com.acme.Cart.total");
        loop.end();
        assertFalse(watchdog.sample(now += watchdog.periodNanos()), "a unit began and ended between two samples");
        assertTrue(watchdog.sample(now += watchdog.periodNanos()));
        loop.start("long", "com.acme.Cart.total");
        assertFalse(watchdog.sample(now += watchdog.periodNanos()), "a unit runs");
        assertFalse(watchdog.sample(now += watchdog.periodNanos()), "a unit still runs");
        loop.end();
        assertTrue(watchdog.sample(now += watchdog.periodNanos()), "it ended, and nothing began since the sample before");
    }

    @Test
    void aLoopThatWouldNotWakeTheWatchdogKeepsItSampling() {
        FakeLoop unhooked = new FakeLoop("unhooked") {
            @Override
            public boolean wakesWatchdog() {
                return false;
            }
        };
        loops.add(unhooked);
        watchdog.sample(now += watchdog.periodNanos());
        assertFalse(watchdog.sample(now += watchdog.periodNanos()), "idle, but it would begin its next unit unseen");
        loops.remove(unhooked);
        assertTrue(watchdog.sample(now += watchdog.periodNanos()));
    }

    @Test
    void aCallbackJustUnderTheLimitIsNotReported() {
        loop.start("quick", "com.acme.Cart.total");
        runFor(90); // seen from its first sample to one 90 ms later: at most 95 ms
        loop.end();
        runFor(10);
        assertEquals("", log.toString(StandardCharsets.UTF_8));
        assertEquals(List.of(), findings.all());
    }

    @Test
    void timeSpentLoadingClassesDoesNotCountAgainstTheLimitAndIsSaid() {
        loop.start("first request", "java.lang.ClassLoader.loadClass", "com.acme.Cart.total");
        runFor(150); // the JVM loads the handler's classes
        loop.at("com.acme.Cart.total");
        runFor(50);
        loop.end();
        runFor(5);
        assertEquals(List.of(), printed("loop-stall"), "150 ms of loading and 50 of work: " + log);
        assertEquals(List.of(), printed("slow-callback"), log.toString(StandardCharsets.UTF_8));

        loop.start("second request", "com.acme.Report.<clinit>", "com.acme.Report.render");
        runFor(60);
        loop.at("com.acme.Report.render");
        runFor(120);
        loop.end();
        runFor(5);
        List<String> slow = printed("slow-callback");
        assertEquals(1, slow.size(), log.toString(StandardCharsets.UTF_8));
        // 120 ms of work, and the loading before the first stack (at most a tenth of the limit) counted
        assertTrue(slow.get(0).matches("(?s)loopdiag: slow-callback on loop 'orders': second request took about 1[23]\\d ms .*"
                + "limit 100 ms, not counting \\d+ ms of loading classes\\).*"), slow.get(0));
    }

    @Test
    void aCallbackPastTheLimitIsOneStallWhileItRunsThenASlowCallbackWithItsRange() {
        loop.start("LoadCart", "com.acme.Cart.load", "com.acme.Cart.total");
        runFor(120);
        loop.end();
        runFor(5);

        List<String> stalls = printed("loop-stall");
        assertEquals(1, stalls.size(), log.toString());
        assertTrue(stalls.get(0).startsWith("loopdiag: loop-stall on loop 'orders': LoadCart has been running for 100 ms (limit 100 ms),"
                + " still running\n    at com.acme.Cart.load(App.java:10)\n"), stalls.get(0));
        List<String> slow = printed("slow-callback");
        assertEquals(List.of("loopdiag: slow-callback on loop 'orders': LoadCart took about 120 ms (115 ms to 125 ms; limit 100 ms);"
                + " the loop-stall reported above has ended\n    at com.acme.Cart.load(App.java:10)\n    at com.acme.Cart.total(App.java:11)\n"),
                slow);
        Findings.Finding finding = findings.all().get(1);
        assertEquals(120, finding.longestMillis, "from just after the sample before it to just after its last");
    }

    @Test
    void aStallIsReportedAgainAtTwiceAndFourTimesTheLimitAndItsStackOnlyWhenItMoves() {
        loop.start("Refresh", "com.acme.Cache.refresh");
        runFor(250);
        loop.at("com.acme.Cache.fetch", "com.acme.Cache.refresh");
        runFor(200);
        loop.end();
        runFor(5);

        List<String> stalls = printed("loop-stall");
        assertEquals(3, stalls.size(), log.toString());
        assertTrue(stalls.get(0).contains("has been running for 100 ms (limit 100 ms), still running\n    at com.acme.Cache.refresh"), stalls.get(0));
        assertEquals("loopdiag: loop-stall on loop 'orders': Refresh has been running for 200 ms (limit 100 ms), still running (same stack)\n",
                stalls.get(1), "the update at twice the limit: its stack has not moved");
        assertTrue(stalls.get(2).contains("has been running for 400 ms (limit 100 ms), still running\n    at com.acme.Cache.fetch"),
                "at four times the limit the stack has moved: " + stalls.get(2));
        assertEquals(1, findings.all().stream().filter(f -> f.kind == io.loopdiag.protocol.Kind.LOOP_STALL).count(),
                "the updates print, but are one finding");
        assertEquals(1, printed("slow-callback").size(), log.toString());
    }

    @Test
    void theSameHandleRunAgainIsANewCallback() {
        loop.start("Tick", "com.acme.Clock.tick");
        Object first = loop.currentWork();
        runFor(60);
        loop.count++; // the same handle dispatched again: a new dispatch
        loop.work = first;
        runFor(60);
        loop.end();
        runFor(5);
        assertEquals("", log.toString(StandardCharsets.UTF_8), "two callbacks of 60 ms, not one of 120");
    }

    @Test
    void aLoopThatClosesMidCallbackClosesItsCallback() {
        loop.start("Shutdown", "com.acme.App.stop");
        runFor(150);
        loops.clear();
        runFor(5);
        assertEquals(1, printed("slow-callback").size(), log.toString());
        assertTrue(printed("slow-callback").get(0).contains("Shutdown took about 150 ms"), log.toString());
    }

    @Test
    void aCallbackStillRunningAtExitIsClosedAsSuch() {
        loop.start("Forever", "com.acme.App.spin");
        runFor(300);
        watchdog.closeAll(now);
        List<String> slow = printed("slow-callback");
        assertEquals(1, slow.size(), log.toString());
        assertTrue(slow.get(0).contains("still running when the JVM exited"), slow.get(0));
    }

    /** The slow-callback that ends a stall is where the callback was stuck, not where its last moments went. */
    @Test
    void aStallThatEndsIsASlowCallbackWhereMostOfItsSamplesWere() {
        loop.start("I/O of handler 'orders'", "java.net.Socket.connect", "com.acme.Orders.fetchPrice", "com.acme.Orders.channelRead");
        runFor(1_500); // stall reports at 100, 200, 400 and 800 ms see the backend call
        loop.at("com.acme.Orders.answer", "com.acme.Orders.channelRead");
        loop.description = "I/O";
        runFor(200); // and the one at 1600 ms the answer being written
        loop.end();
        runFor(5);
        List<String> slow = printed("slow-callback");
        assertEquals(1, slow.size(), log.toString(StandardCharsets.UTF_8));
        assertTrue(slow.get(0).contains(": I/O of handler 'orders' took about "), slow.get(0));
        assertTrue(slow.get(0).contains("at com.acme.Orders.fetchPrice(App.java:"), slow.get(0));
    }

    @Test
    void aTaskStepIsNamedByItsTaskAsEveryKindNamesIt() {
        loop.start("step of Task[fetch #7, running]", "com.acme.Quotes.fetch");
        loop.task = Names.task("fetch", 7);
        runFor(110);
        loop.end();
        runFor(5);
        assertEquals("'fetch' (#7)", findings.all().get(0).task);
    }
}
