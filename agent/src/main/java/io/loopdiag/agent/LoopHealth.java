package io.loopdiag.agent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Every loop's health as numbers, always on: its lag (how late a unit of work starts after it
 * became ready: a probe posted to the loop every {@value #PROBE_EVERY_MILLIS} ms measures it, as
 * Node's {@code monitorEventLoopDelay} does with a timer, but only to a loop that runs a unit or
 * ran one since the last probe: nothing waits on an idle loop, and waking it for nothing costs an
 * idle service CPU; a probe the loop has not run yet counts with its age, so a stuck loop shows
 * its lag growing), its utilization (the share of the
 * watchdog's samples that found it running a unit), its units per second, its queues and tasks,
 * and its findings by kind; rolled into a {@link LoopStatistics} once a second, which JMX, JFR,
 * Micrometer and {@code loopdiag top} read. Fed by the {@link Watchdog}'s samples on its thread;
 * the loop pays one short probe per period and nothing else.
 */
final class LoopHealth {
    static final long PROBE_EVERY_MILLIS = 10;
    private static final long PROBE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(PROBE_EVERY_MILLIS);

    /** What one loop's numbers are made of; the watchdog's thread only, but for the probe. */
    private static final class Stats {
        final Probe probe = new Probe();
        long samples;
        long busy;
        long lastProbeNanos;
        /**
         * The loop's unit count, the probes left out, as the first sample after the last probe saw
         * it, so that a loop that ran nothing since is seen idle. -1 before the first probe.
         */
        long quietUnits = -1;
        long probeRunsSeen;
        // as the last roll left them
        long rolledSamples;
        long rolledBusy;
        long rolledUnits = -1;
        long rolledProbes;
        long[] rolledLag;
    }

    /**
     * Posted to a loop, it records how late it ran. One is outstanding at most: a loop too busy to
     * run it within the period is not sent another, and its lag is the one the probe finally shows.
     */
    static final class Probe implements Runnable {
        final LagHistogram lag = new LagHistogram();
        volatile long postedNanos; // 0 while none waits to run
        volatile long runs; // written by the loop's thread only

        @Override
        public void run() {
            long posted = postedNanos;
            if (posted != 0) {
                lag.record(System.nanoTime() - posted);
                postedNanos = 0;
                runs = runs + 1;
            }
        }

        @Override
        public String toString() {
            return "loopdiag's lag probe";
        }
    }

    private final Map<Object, Stats> stats = new WeakHashMap<>(); // by WatchedLoop.key(); guarded by this
    private volatile List<LoopStatistics> latest = List.of();
    private volatile Map<Object, LoopStatistics> byKey = Map.of();
    private long lastRollNanos;

    /** One sample of {@code loop}: whether it runs a unit now; posts a probe when one is due. The watchdog's thread. */
    synchronized void sample(WatchedLoop loop, boolean busy, long nowNanos) {
        Stats loopStats = stats.computeIfAbsent(loop.key(), key -> new Stats());
        loopStats.samples++;
        if (busy) {
            loopStats.busy++;
        }
        Probe probe = loopStats.probe;
        if (probe.postedNanos != 0) {
            return; // one waits to run: a loop is sent no other
        }
        long count = unitsRun(loop);
        long runs = probe.runs; // read after the count: a probe ends after it is counted
        long units = count - runs;
        if (runs != loopStats.probeRunsSeen) {
            loopStats.probeRunsSeen = runs;
            loopStats.quietUnits = units;
        }
        if (nowNanos - loopStats.lastProbeNanos >= PROBE_EVERY_NANOS && (busy || units != loopStats.quietUnits)) {
            loopStats.lastProbeNanos = nowNanos;
            probe.postedNanos = System.nanoTime();
            if (!loop.post(probe)) {
                probe.postedNanos = 0; // a loop that cannot run one (closed, or a thread without units)
            }
        }
    }

    /**
     * The watchdog slept through {@code samples} samples, while no loop ran anything: each loop's
     * utilization counts them as samples that found it idle, as they would have.
     */
    synchronized void idle(long samples) {
        if (samples > 0) {
            for (Stats loopStats : stats.values()) {
                loopStats.samples += samples;
            }
        }
    }

    /**
     * Rolls the interval that ends at {@code nowNanos} into each open loop's {@link LoopStatistics},
     * with its findings by kind from {@code findings}. Once a second, on the watchdog's thread.
     */
    synchronized void roll(List<WatchedLoop> loops, Findings findings, long nowNanos) {
        long intervalNanos = lastRollNanos == 0 ? 0 : nowNanos - lastRollNanos;
        lastRollNanos = nowNanos;
        List<LoopStatistics> rolled = new ArrayList<>(loops.size());
        java.util.Set<Object> open = Collections.newSetFromMap(new IdentityHashMap<>());
        for (WatchedLoop loop : loops) {
            open.add(loop.key());
            Stats loopStats = stats.computeIfAbsent(loop.key(), key -> new Stats());
            long units = unitsRun(loop);
            long probes = loopStats.probe.runs;
            long[] lag = loopStats.probe.lag.snapshot();
            LagHistogram.Summary lags = LagHistogram.between(loopStats.rolledLag, lag);
            // A probe still waiting is a unit the loop has not started yet: the least its lag is now.
            long posted = loopStats.probe.postedNanos;
            long waitingMicros = posted != 0 ? Math.max(0, System.nanoTime() - posted) / 1_000 : 0;
            long maxMicros = Math.max(lags.maxMicros(), waitingMicros);
            long samples = loopStats.samples - loopStats.rolledSamples;
            double utilization = samples == 0 ? 0 : (double) (loopStats.busy - loopStats.rolledBusy) / samples;
            double perSecond = loopStats.rolledUnits < 0 || intervalNanos == 0 ? 0
                    : Math.max(0, (units - loopStats.rolledUnits) - (probes - loopStats.rolledProbes)) * 1e9 / intervalNanos;
            WatchedLoop.Counts counts = loop.counts();
            long ready = lessProbe(loop.key(), counts.ready());
            rolled.add(new LoopStatistics(loop.key(), loop.name(), loop.kind(), TimeUnit.NANOSECONDS.toMillis(intervalNanos),
                    lags.count(), lags.p50Micros() / 1000.0, Math.max(lags.p99Micros(), waitingMicros) / 1000.0, maxMicros / 1000.0,
                    utilization, perSecond, Math.max(0, units - probes), ready, counts.timers(), counts.tasks(),
                    counts.suspended(), findings.byKind(loop.key())));
            loopStats.rolledSamples = loopStats.samples;
            loopStats.rolledBusy = loopStats.busy;
            loopStats.rolledUnits = units;
            loopStats.rolledProbes = probes;
            loopStats.rolledLag = lag;
        }
        stats.keySet().retainAll(open);
        Map<Object, LoopStatistics> keyed = new IdentityHashMap<>();
        rolled.forEach(loop -> keyed.put(loop.key(), loop));
        byKey = keyed;
        latest = List.copyOf(rolled);
    }

    /**
     * {@code queued}, a count of the units waiting on the loop known by {@code key} that was read
     * just now, less this class's probe if it waits among them: READY is the application's work.
     * Only the watchdog posts the probe, so one still waiting after the count was in it (one
     * posted in between is subtracted too, a count at most one short while the loop moves). Any thread.
     */
    synchronized long lessProbe(Object key, long queued) {
        Stats loopStats = stats.get(key);
        return Math.max(0, queued - (loopStats != null && loopStats.probe.postedNanos != 0 ? 1 : 0));
    }

    /**
     * The units {@code loop} has started that did something, its probes among them: a Netty 4.2
     * I/O batch at a wake-up that found no I/O (the probe's own wake-up, a timer's) is left out.
     */
    private static long unitsRun(WatchedLoop loop) {
        return loop.workCount() - loop.emptyCount();
    }

    /** The latest numbers of the loop the watchdog knows by {@code key}, or null before its first roll; any thread. */
    LoopStatistics of(Object key) {
        return byKey.get(key);
    }

    /** The open loops' numbers as the last roll left them, in the watchdog's order; any thread. */
    List<LoopStatistics> latest() {
        return latest;
    }
}
