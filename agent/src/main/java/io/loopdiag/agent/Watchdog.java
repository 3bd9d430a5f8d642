package io.loopdiag.agent;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.protocol.Kind;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Samples every loop of the JVM on a daemon platform thread of its own ("loopdiag-watchdog"),
 * started at install. Each sample reads a loop's current unit of work and its count
 * ({@link WatchedLoop}), which loop-core publishes at no cost to the loop; the same unit seen
 * across samples is one callback still running. So callbacks are timed without a clock read per
 * callback (two {@code nanoTime} calls would cost more than a callback: docs/decisions.md), to
 * within one sampling period. {@link #sample} takes the time as an argument, so a test drives it
 * on a clock of its own.
 *
 * <p>Time a callback's thread spends loading or initializing classes (the JVM warming up: a
 * sample that finds a class loader or a static initializer on its stack) is not counted against
 * the limit, and the report says how much there was.
 *
 * <p>While no loop runs anything, the watchdog sleeps: when two samples in a row find every loop
 * idle, its unit count unchanged, and starting its next unit through a hook that wakes the
 * watchdog ({@link WatchedLoop#wakesWatchdog}), it sleeps until a unit begins or its once-a-second
 * housekeeping is due. It says so a sample before it sleeps, so that a unit begun before the
 * hook could see it shows in that sample. An idle JVM then pays about one wake-up a second, not
 * one a sampling period, and the unit that wakes it is timed from its start.
 *
 * <p>A callback still running past {@code slow} is a <b>loop-stall</b>, reported while it runs with
 * the stack at that moment, again at 2, 4, 8... times the limit; when it returns, a callback that
 * ran past {@code slow} is a <b>slow-callback</b>, reported with its duration and the stack sampled
 * while it ran.
 */
final class Watchdog implements Runnable {
    /** Samples per slow limit: a callback's duration is known to within slow/SAMPLES_PER_LIMIT. */
    private static final int SAMPLES_PER_LIMIT = 20;
    private static final long MIN_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final long HOUSEKEEPING_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final long slowNanos;
    private final long periodNanos;
    private final Findings findings;
    private final Supplier<List<WatchedLoop>> loops;
    private final Runnable housekeeping; // once a second on this thread
    private final MonitorWaits monitors; // null when blocking calls are not looked for
    private final LoopHealth health; // null: no statistics (a test's watchdog)
    private long lastHousekeepingNanos;
    private final Map<Object, Span> spans = new WeakHashMap<>(); // by WatchedLoop.key(); guarded by this
    private long lastSampleNanos;

    /** What the watchdog knows of the callback a loop is running. */
    private static final class Span {
        String loopName;
        Object work;
        long dispatch = -1;
        long seenCount = -1; // the loop's unit count at the last sample
        long previousSampleNanos; // the last sample before it was seen: it started after this
        long firstSeenNanos;
        long lastSeenNanos;
        long loadingNanos; // of its time seen, the periods its thread was loading classes
        long nextStallReportNanos;
        int stallReports;
        boolean stallPrinted; // its first stall report was a new finding, so its updates print too
        List<StackTraceElement> stallStack; // as last printed
        WatchedLoop.Running sampled; // taken once it has run half the limit, then the one most stall reports saw
        int votes; // for sampled: the majority vote over the samples of a stalled unit
        boolean monitorReported; // its thread was seen waiting to enter a monitor, and that was reported
        Object jfr; // its JFR event, begun at first sight, committed if it turns out slow; null when no recording wants one
    }

    /**
     * A watchdog of {@code loops} (each sample asks for the open ones) that reports to {@code
     * findings}, and asks {@code monitors} (or nobody, if null) whether a unit's thread waits to
     * enter a monitor.
     */
    Watchdog(long slowNanos, Findings findings, Supplier<List<WatchedLoop>> loops, Runnable housekeeping, MonitorWaits monitors,
             LoopHealth health) {
        this.slowNanos = slowNanos;
        this.periodNanos = Math.max(MIN_PERIOD_NANOS, slowNanos / SAMPLES_PER_LIMIT);
        this.findings = findings;
        this.loops = loops;
        this.housekeeping = housekeeping;
        this.monitors = monitors;
        this.health = health;
    }

    /** The sampling period: a callback's duration is known to within this. */
    long periodNanos() {
        return periodNanos;
    }

    /** Starts sampling {@code loops} on a daemon thread; {@code housekeeping} runs there once a second. */
    static Watchdog start(long slowNanos, Findings findings, Supplier<List<WatchedLoop>> loops, Runnable housekeeping,
                          MonitorWaits monitors, LoopHealth health) {
        Watchdog watchdog = new Watchdog(slowNanos, findings, loops, housekeeping, monitors, health);
        Thread thread = new Thread(watchdog, "loopdiag-watchdog");
        thread.setDaemon(true);
        thread.start();
        return watchdog;
    }

    @Override
    public void run() {
        Thread me = Thread.currentThread();
        try {
            warmUp();
            while (true) {
                long nowNanos = System.nanoTime();
                boolean quiet = sample(nowNanos);
                if (nowNanos - lastHousekeepingNanos >= HOUSEKEEPING_EVERY_NANOS) {
                    lastHousekeepingNanos = nowNanos;
                    housekeeping.run();
                    if (health != null) {
                        health.roll(loops.get(), findings, nowNanos);
                    }
                }
                if (quiet && BlockingCheck.isQuiet(me)) { // quiet since the sample before, and no unit has begun
                    LockSupport.parkNanos(lastHousekeepingNanos + HOUSEKEEPING_EVERY_NANOS - System.nanoTime());
                    if (health != null) {
                        health.idle((System.nanoTime() - nowNanos) / periodNanos - 1); // the samples slept through
                    }
                } else {
                    BlockingCheck.quiet(quiet ? me : null);
                    LockSupport.parkNanos(periodNanos);
                }
            }
        } catch (Throwable failure) {
            // The application must never notice the watchdog, not even its end.
            System.err.println("loopdiag: the watchdog stopped (" + failure + "); no more slow-callback, loop-stall or garbage-collection reports");
        }
    }

    /**
     * Walks and formats a stack once before watching: the first report otherwise loads and
     * compiles that code while a callback runs, delaying the samples that time it.
     */
    private void warmUp() {
        StringBuilder text = new StringBuilder();
        for (StackTraceElement frame : Thread.currentThread().getStackTrace()) {
            text.append("    at ").append(frame).append('\n');
        }
        if (text.isEmpty()) {
            throw new IllegalStateException("no stack to walk");
        }
        loops.get();
    }

    /**
     * One sample of every loop, at {@code nowNanos} on the watchdog's clock. Returns whether the
     * sample was quiet: no loop runs a unit or has begun one since the last sample, and each
     * begins its next through a hook that wakes the watchdog.
     */
    synchronized boolean sample(long nowNanos) {
        Set<Object> open = Collections.newSetFromMap(new IdentityHashMap<>());
        boolean quiet = true;
        for (WatchedLoop loop : loops.get()) {
            open.add(loop.key());
            Span span = spans.computeIfAbsent(loop.key(), l -> new Span());
            span.loopName = loop.name();
            Object work = loop.currentWork();
            long dispatch = loop.workCount();
            quiet &= work == null && dispatch == span.seenCount && loop.wakesWatchdog();
            span.seenCount = dispatch;
            if (health != null) {
                health.sample(loop, work != null, nowNanos);
            }
            if (work == null || work != span.work || dispatch != span.dispatch) {
                close(loop.key(), span, nowNanos, false);
                if (work != null) {
                    open(span, work, dispatch, nowNanos);
                    checkMonitor(loop, span);
                }
                continue;
            }
            checkMonitor(loop, span);
            // The stack costs a handshake with the loop's thread, so it is taken only once the unit has
            // run a tenth of the limit: a busy server's units, all shorter, cost nothing, and class
            // loading before then (at most a tenth of the limit) counts as the unit's own time.
            if (nowNanos - span.firstSeenNanos >= slowNanos / 10 && Stacks.isLoadingClasses(loop.stack())) {
                span.loadingNanos += nowNanos - span.lastSeenNanos;
            }
            span.lastSeenNanos = nowNanos;
            long runningNanos = nowNanos - span.firstSeenNanos - span.loadingNanos;
            if (span.sampled == null && runningNanos >= slowNanos / 2) {
                vote(span, loop.running());
            }
            if (runningNanos >= span.nextStallReportNanos) {
                WatchedLoop.Running now = loop.running();
                if (now != null) {
                    vote(span, now);
                    String what = now.description() + " has been running for " + millis(runningNanos)
                            + " (limit " + millis(slowNanos) + loading(span) + "), still running";
                    List<StackTraceElement> stack = Stacks.fromApplicationCall(now.stack());
                    Occurrence stall = new Occurrence(Kind.LOOP_STALL, loop.key(), loop.name(), now.task(), what,
                            stack, null, TimeUnit.NANOSECONDS.toMillis(runningNanos));
                    if (span.stallReports == 0) {
                        span.stallPrinted = findings.report(stall);
                        span.stallStack = stack;
                    } else if (span.stallPrinted) {
                        // An update of the stall printed above, not a new finding; its stack only if it moved.
                        boolean moved = !stack.equals(span.stallStack);
                        span.stallStack = stack;
                        findings.print(moved ? stall : stall.withoutStack(), moved ? null : " (same stack)");
                    }
                }
                span.stallReports++;
                span.nextStallReportNanos = slowNanos << Math.min(span.stallReports, 30);
            }
        }
        // A loop closed since the last sample: its last callback ended before it closed.
        spans.forEach((key, span) -> {
            if (!open.contains(key)) {
                close(key, span, nowNanos, false);
            }
        });
        lastSampleNanos = nowNanos;
        return quiet;
    }

    /**
     * Keeps, of the samples of a unit that runs long, the one whose stack most of them saw (a
     * majority vote, kept without a list): the slow-callback that ends a stall names where it was
     * stuck, not the code it ran after (seen in CI: a handler stuck 1.5 s in a backend call, the
     * last stall report already past it, in the code that wrote the answer).
     */
    private static void vote(Span span, WatchedLoop.Running sample) {
        if (sample == null) {
            return;
        }
        if (span.votes == 0) {
            span.sampled = sample;
            span.votes = 1;
        } else if (span.sampled.stack().equals(sample.stack())) {
            span.votes++;
        } else {
            span.votes--;
        }
    }

    /** Once per unit: is its thread waiting to enter a contended monitor? One state read per sample. */
    private void checkMonitor(WatchedLoop loop, Span span) {
        if (monitors != null && !span.monitorReported && monitors.check(loop)) {
            span.monitorReported = true;
        }
    }

    /**
     * How long the unit of work the loop of {@code key} runs now has run, as far as the samples
     * tell (at least this long, less than a sampling period more), or -1 if none was seen running.
     */
    synchronized long runningNanos(Object key, long nowNanos) {
        Span span = spans.get(key);
        return span == null || span.work == null ? -1 : Math.max(0, nowNanos - span.firstSeenNanos);
    }

    /** Closes every callback still open: at JVM exit they have all ended (the exit hook calls it). */
    synchronized void closeAll(long nowNanos) {
        spans.forEach((key, span) -> close(key, span, nowNanos, true));
    }

    private void open(Span span, Object work, long dispatch, long nowNanos) {
        span.work = work;
        span.dispatch = dispatch;
        span.previousSampleNanos = lastSampleNanos > 0 ? lastSampleNanos : nowNanos;
        span.firstSeenNanos = nowNanos;
        span.lastSeenNanos = nowNanos;
        span.loadingNanos = 0;
        span.nextStallReportNanos = slowNanos;
        span.stallReports = 0;
        span.stallPrinted = false;
        span.sampled = null;
        span.votes = 0;
        span.monitorReported = false;
        span.jfr = JfrEvents.begin();
    }

    /** The callback {@code span} saw on the loop of {@code key} has ended, or ({@code atExit}) is cut short by the JVM's exit. */
    private void close(Object key, Span span, long nowNanos, boolean atExit) {
        if (span.work == null) {
            return;
        }
        // It ran at least from the first sample that saw it to the last, and at most from the
        // sample before to this one. On time, samples are a period apart, so it ran about a period
        // more than seen; a held-up watchdog only widens the upper bound, so the estimate leans on
        // the lower one and never calls a quick callback slow.
        long leastNanos = span.lastSeenNanos - span.firstSeenNanos - span.loadingNanos;
        long mostNanos = nowNanos - span.previousSampleNanos - span.loadingNanos;
        long ranNanos = Math.min(mostNanos, leastNanos + periodNanos);
        if (ranNanos >= slowNanos && span.sampled != null) {
            String ended = atExit ? "; still running when the JVM exited"
                    : span.stallPrinted ? "; the loop-stall reported above has ended" : "";
            String what = span.sampled.description() + " took about " + millis(ranNanos)
                    + " (" + millis(leastNanos) + " to " + millis(mostNanos) + "; limit " + millis(slowNanos) + loading(span) + ")";
            Occurrence slow = new Occurrence(Kind.SLOW_CALLBACK, key, span.loopName, span.sampled.task(), what,
                    Stacks.fromApplicationCall(span.sampled.stack()), null, TimeUnit.NANOSECONDS.toMillis(ranNanos));
            findings.report(slow, ended, false);
            JfrEvents.commit(span.jfr, slow); // from the first sight of it to now, as the samples saw it
        }
        span.jfr = null;
        span.work = null;
        span.dispatch = -1;
        span.sampled = null;
    }

    /** {@code ", not counting 80 ms of loading classes"} when the span's thread spent time loading classes, else empty. */
    private static String loading(Span span) {
        return span.loadingNanos == 0 ? "" : ", not counting " + millis(span.loadingNanos) + " of loading classes";
    }

    private static String millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
    }
}
