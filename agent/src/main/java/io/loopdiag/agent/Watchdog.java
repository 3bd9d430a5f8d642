package io.loopdiag.agent;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Handle;
import io.loopdiag.loop.LoopSnapshot;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Samples every loop of the JVM on a daemon platform thread of its own ("loopdiag-watchdog"),
 * started by {@link LoopdiagAgent#install}. Each sample reads a loop's current handle and dispatch
 * count, which loop-core publishes at no cost to the loop; the same dispatch seen across samples
 * is one callback still running. So callbacks are timed without a clock read per callback (two
 * {@code nanoTime} calls would cost twice a 25 ns callback), to within one sampling period.
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
    private final Detections detections;
    private final Runnable housekeeping; // once a second on this thread
    private long lastHousekeepingNanos;
    private final Map<EventLoop, Span> spans = new WeakHashMap<>(); // guarded by this
    private long lastSampleNanos;

    /** What the watchdog knows of the callback a loop is running. */
    private static final class Span {
        Handle handle;
        long dispatch = -1;
        long previousSampleNanos; // the last sample before it was seen: it started after this
        long firstSeenNanos;
        long lastSeenNanos;
        long nextStallReportNanos;
        int stallReports;
        boolean stallPrinted; // its first stall report was a new finding, so its updates print too
        List<StackTraceElement> stallStack; // as last printed
        LoopSnapshot.RunningCallback sampled; // taken once it has run half the limit
    }

    Watchdog(long slowNanos, Detections detections, Runnable housekeeping) {
        this.slowNanos = slowNanos;
        this.periodNanos = Math.max(MIN_PERIOD_NANOS, slowNanos / SAMPLES_PER_LIMIT);
        this.detections = detections;
        this.housekeeping = housekeeping;
    }

    /** Starts sampling on a daemon thread; {@code housekeeping} runs there once a second. */
    static Watchdog start(long slowNanos, Detections detections, Runnable housekeeping) {
        Watchdog watchdog = new Watchdog(slowNanos, detections, housekeeping);
        Thread thread = new Thread(watchdog, "loopdiag-watchdog");
        thread.setDaemon(true);
        thread.start();
        return watchdog;
    }

    @Override
    public void run() {
        try {
            warmUp();
            while (true) {
                long nowNanos = System.nanoTime();
                sample(nowNanos);
                if (nowNanos - lastHousekeepingNanos >= HOUSEKEEPING_EVERY_NANOS) {
                    lastHousekeepingNanos = nowNanos;
                    housekeeping.run();
                }
                LockSupport.parkNanos(periodNanos);
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
    private static void warmUp() {
        StringBuilder text = new StringBuilder();
        for (StackTraceElement frame : Thread.currentThread().getStackTrace()) {
            text.append("    at ").append(frame).append('\n');
        }
        if (text.isEmpty()) {
            throw new IllegalStateException("no stack to walk");
        }
        EventLoop.allLoops();
    }

    synchronized void sample(long nowNanos) {
        java.util.Set<EventLoop> open = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (EventLoop loop : EventLoop.allLoops()) {
            open.add(loop);
            Span span = spans.computeIfAbsent(loop, l -> new Span());
            Handle handle = loop.currentHandle();
            long dispatch = loop.dispatchCount();
            if (handle == null || handle != span.handle || dispatch != span.dispatch) {
                close(loop, span, nowNanos, false);
                if (handle != null) {
                    open(span, handle, dispatch, nowNanos);
                }
                continue;
            }
            span.lastSeenNanos = nowNanos;
            long runningNanos = nowNanos - span.firstSeenNanos;
            if (span.sampled == null && runningNanos >= slowNanos / 2) {
                span.sampled = loop.runningCallback(true);
            }
            if (runningNanos >= span.nextStallReportNanos) {
                LoopSnapshot.RunningCallback now = loop.runningCallback(true);
                if (now != null) {
                    span.sampled = now;
                    String what = now.description() + " has been running for " + millis(runningNanos)
                            + " (limit " + millis(slowNanos) + "), still running";
                    List<StackTraceElement> stack = Stacks.fromApplicationCall(now.stack());
                    Detections.Finding stall = new Detections.Finding("loop-stall", loop.name(), taskOf(now), what,
                            stack, null, TimeUnit.NANOSECONDS.toMillis(runningNanos));
                    if (span.stallReports == 0) {
                        span.stallPrinted = detections.report(stall);
                        span.stallStack = stack;
                    } else if (span.stallPrinted) {
                        // An update of the stall printed above, not a new finding; its stack only if it moved.
                        boolean moved = !stack.equals(span.stallStack);
                        span.stallStack = stack;
                        detections.print(moved ? stall : new Detections.Finding("loop-stall", loop.name(), taskOf(now), what,
                                List.of(), null, stall.millis()), moved ? null : " (same stack)");
                    }
                }
                span.stallReports++;
                span.nextStallReportNanos = slowNanos << Math.min(span.stallReports, 30);
            }
        }
        // A loop closed since the last sample: its last callback ended before it closed.
        spans.forEach((loop, span) -> {
            if (!open.contains(loop)) {
                close(loop, span, nowNanos, false);
            }
        });
        lastSampleNanos = nowNanos;
    }

    /** Closes every callback still open: at JVM exit they have all ended (the exit hook calls it). */
    synchronized void closeAll() {
        long nowNanos = System.nanoTime();
        spans.forEach((loop, span) -> close(loop, span, nowNanos, true));
    }

    private void open(Span span, Handle handle, long dispatch, long nowNanos) {
        span.handle = handle;
        span.dispatch = dispatch;
        span.previousSampleNanos = lastSampleNanos > 0 ? lastSampleNanos : nowNanos;
        span.firstSeenNanos = nowNanos;
        span.lastSeenNanos = nowNanos;
        span.nextStallReportNanos = slowNanos;
        span.stallReports = 0;
        span.stallPrinted = false;
        span.sampled = null;
    }

    /** The callback {@code span} saw has ended, or ({@code atExit}) is cut short by the JVM's exit. */
    private void close(EventLoop loop, Span span, long nowNanos, boolean atExit) {
        if (span.handle == null) {
            return;
        }
        // It ran at least from the first sample that saw it to the last, and at most from the
        // sample before to this one. On time, samples are a period apart, so it ran about a period
        // more than seen; a held-up watchdog only widens the upper bound, so the estimate leans on
        // the lower one and never calls a quick callback slow.
        long leastNanos = span.lastSeenNanos - span.firstSeenNanos;
        long mostNanos = nowNanos - span.previousSampleNanos;
        long ranNanos = Math.min(mostNanos, leastNanos + periodNanos);
        if (ranNanos >= slowNanos && span.sampled != null) {
            String ended = atExit ? "; still running when the JVM exited"
                    : span.stallPrinted ? "; the loop-stall reported above has ended" : "";
            String what = span.sampled.description() + " took about " + millis(ranNanos)
                    + " (" + millis(leastNanos) + " to " + millis(mostNanos) + "; limit " + millis(slowNanos) + ")";
            Detections.Finding slow = new Detections.Finding("slow-callback", loop.name(), taskOf(span.sampled), what,
                    Stacks.fromApplicationCall(span.sampled.stack()), null, TimeUnit.NANOSECONDS.toMillis(ranNanos));
            detections.report(slow, ended);
        }
        span.handle = null;
        span.dispatch = -1;
        span.sampled = null;
    }

    /** The task a running callback steps, as findings name it, or null for a plain callback. */
    private static String taskOf(LoopSnapshot.RunningCallback callback) {
        return callback.taskId() < 0 ? null : "#" + callback.taskId();
    }

    private static String millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
    }
}
