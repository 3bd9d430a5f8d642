package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.protocol.Kind;
import java.io.PrintStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LoopHealth} on a loop written here and a clock the test drives: utilization from the
 * watchdog's samples, units per second without the probes, the lag the probe measures, and the
 * findings by loop.
 */
@Timeout(10)
class LoopHealthTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    /** A loop that does what the test says, and keeps what it was asked to run. */
    private static final class Loop implements WatchedLoop {
        Object work;
        long units;
        final List<Runnable> posted = new ArrayList<>();

        @Override
        public Object key() {
            return this;
        }

        @Override
        public String name() {
            return "shop";
        }

        @Override
        public Object currentWork() {
            return work;
        }

        @Override
        public long workCount() {
            return units;
        }

        @Override
        public Running running() {
            return null;
        }

        @Override
        public Counts counts() {
            return new Counts(3, 2, 10, 9);
        }

        @Override
        public boolean post(Runnable probe) {
            posted.add(probe);
            return true;
        }
    }

    private final Findings findings = new Findings(new PrintStream(OutputStream.nullOutputStream()), () -> { });
    private final LoopHealth health = new LoopHealth();
    private final Loop loop = new Loop();

    @Test
    void aLoopBusyInHalfTheSamplesIsHalfUtilizedAndItsUnitsPerSecondLeaveOutTheProbes() {
        health.roll(List.of(loop), findings, SECOND); // the first interval begins
        long now = SECOND;
        for (int sample = 0; sample < 200; sample++) {
            loop.work = sample % 2 == 0 ? "callback" : null;
            now += SECOND / 200;
            health.sample(loop, loop.work != null, now);
        }
        loop.units += 500;
        for (Runnable probe : loop.posted) {
            probe.run(); // each probe is a unit of the loop too
            loop.units++;
        }
        health.roll(List.of(loop), findings, 2 * SECOND);
        LoopStatistics stats = health.latest().get(0);
        assertEquals(0.5, stats.utilization(), 1e-9);
        assertEquals(500, stats.unitsPerSecond(), 1e-9, "the probes are not the loop's own work");
        assertEquals(1_000, stats.intervalMillis());
        assertEquals(new WatchedLoop.Counts(3, 2, 10, 9), new WatchedLoop.Counts(stats.ready(), stats.timers(), stats.tasks(), stats.suspendedTasks()));
        assertSame(stats, health.of(loop));
    }

    @Test
    void theSamplesTheWatchdogSleptThroughCountAsIdle() {
        health.roll(List.of(loop), findings, SECOND);
        long now = SECOND;
        for (int sample = 0; sample < 100; sample++) { // busy for half a second, sampled every 5 ms
            loop.work = "callback";
            now += SECOND / 200;
            health.sample(loop, true, now);
        }
        loop.work = null;
        health.idle(100); // then quiet for the other half, asleep
        health.roll(List.of(loop), findings, 2 * SECOND);
        assertEquals(0.5, health.latest().get(0).utilization(), 1e-9);
    }

    @Test
    void aProbeRunLateIsThatLateAndOneNotYetRunCountsWithItsAge() {
        health.roll(List.of(loop), findings, SECOND);
        health.sample(loop, false, SECOND + 20_000_000);
        assertEquals(1, loop.posted.size());
        LoopHealth.Probe probe = (LoopHealth.Probe) loop.posted.get(0);
        health.sample(loop, false, SECOND + 40_000_000);
        assertEquals(1, loop.posted.size(), "one probe waits at most: the loop is sent no other");
        probe.postedNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(200); // posted 200 ms ago
        probe.run();
        health.roll(List.of(loop), findings, 2 * SECOND);
        LoopStatistics ran = health.latest().get(0);
        assertEquals(1, ran.lagCount());
        assertTrue(ran.lagMaxMillis() >= 200 && ran.lagMaxMillis() <= 200 * 1.07, "the 200 ms it waited: " + ran);

        health.sample(loop, true, 3 * SECOND);
        LoopHealth.Probe waiting = (LoopHealth.Probe) loop.posted.get(1);
        waiting.postedNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(1_500); // a stuck loop has not run it
        health.roll(List.of(loop), findings, 4 * SECOND);
        LoopStatistics stuck = health.latest().get(0);
        assertEquals(0, stuck.lagCount());
        assertTrue(stuck.lagMaxMillis() >= 1_500 && stuck.lagP99Millis() >= 1_500, "its age, at least: " + stuck);
        assertEquals(2, stuck.ready(), "of the 3 counted, the waiting probe is the agent's, not the loop's work");
        assertEquals(2, health.lessProbe(loop, 3));
        waiting.run();
        assertEquals(3, health.lessProbe(loop, 3), "once run, the probe is no longer among them");
    }

    @Test
    void anIdleLoopIsProbedAgainOnlyOnceItRunsAUnitOfItsOwnOrIsBusy() {
        health.sample(loop, false, SECOND);
        assertEquals(1, loop.posted.size(), "the first probe, to know the loop");
        loop.posted.get(0).run();
        loop.units++; // the probe is a unit of the loop
        for (int sample = 1; sample <= 100; sample++) {
            health.sample(loop, false, SECOND + sample * 5_000_000L);
        }
        assertEquals(1, loop.posted.size(), "half a second idle: no probe wakes it");
        loop.units += 3; // three callbacks ran between two samples
        health.sample(loop, false, 2 * SECOND);
        assertEquals(2, loop.posted.size(), "it ran units of its own: probed");
        loop.posted.get(1).run();
        loop.units++;
        health.sample(loop, false, 3 * SECOND);
        assertEquals(2, loop.posted.size());
        health.sample(loop, true, 4 * SECOND);
        assertEquals(3, loop.posted.size(), "running a unit now: probed, so that a stuck loop's lag grows");
    }

    @Test
    void eachLoopCountsItsOwnFindingsThoughAnotherHasItsNameAndAClosedLoopIsForgotten() {
        Loop twin = new Loop(); // named "shop" too
        List<StackTraceElement> sleep = List.of(new StackTraceElement("a.B", "c", "B.java", 1));
        findings.report(new Occurrence(Kind.BLOCKING_CALL, loop, "shop", null, "sleep", sleep, null, 0));
        findings.report(new Occurrence(Kind.BLOCKING_CALL, loop, "shop", null, "sleep", sleep, null, 0));
        findings.report(new Occurrence(Kind.BLOCKING_CALL, twin, "shop", null, "sleep", sleep, null, 0));
        findings.report(new Occurrence(Kind.SLOW_CALLBACK, twin, "shop", null, "slow", List.of(), null, 120));
        findings.report(new Occurrence(Kind.NEVER_AWAITED, null, null, null, "coroutine 'f' was never awaited", List.of(), null, 0));
        health.roll(List.of(loop, twin), findings, SECOND);
        assertEquals(java.util.Map.of("blocking-call", 2L), health.latest().get(0).findingsByKind());
        assertEquals(java.util.Map.of("blocking-call", 1L, "slow-callback", 1L), health.latest().get(1).findingsByKind());
        Findings.Finding sleeps = findings.all().stream().filter(finding -> finding.kind == Kind.BLOCKING_CALL).findFirst().orElseThrow();
        assertEquals(3, sleeps.count, "the report keeps one finding of the sleep, of both loops");
        health.roll(List.of(), findings, 2 * SECOND);
        assertEquals(List.of(), health.latest());
        assertNull(health.of(loop));
    }
}
