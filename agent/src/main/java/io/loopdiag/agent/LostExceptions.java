package io.loopdiag.agent;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.LoopSnapshot;
import io.loopdiag.loop.Task;
import io.loopdiag.protocol.Kind;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Finds futures and tasks that failed and were dropped before anyone asked for their exception
 * ({@code lost-exception}, asyncio's "Task exception was never retrieved"): when the future is
 * garbage-collected, when its loop closes, or at JVM exit, whichever comes first. Retrieving the
 * exception at any time before that ({@code result()}, {@code exception()}, {@code await},
 * {@code cancel()}) means it was not lost. Only failed futures are tracked, so the cost is paid by
 * failures, not by every future.
 */
final class LostExceptions {

    /** A failed future not yet retrieved. */
    private static final class Failed extends WeakReference<Future<?>> {
        final EventLoop loop;
        final String what;
        final String task;
        final Throwable exception;
        final List<StackTraceElement> createdAt;

        Failed(Future<?> future, Throwable exception, ReferenceQueue<Future<?>> queue) {
            super(future, queue);
            this.loop = future.loop();
            this.exception = exception;
            if (future instanceof Task<?> task) {
                this.task = Names.task(task);
                this.what = "task " + this.task;
                this.createdAt = CreationSites.ofTask(task);
            } else {
                this.task = null;
                this.what = "a future";
                this.createdAt = null;
            }
        }
    }

    private static final String COLLECTED = "it was garbage-collected";

    /** How many failed futures are tracked: while none is, retrieving a result costs one read. */
    static volatile int trackedCount;

    private final Findings findings;
    private final Map<Future<?>, Failed> byFuture = new WeakHashMap<>(); // guarded by this
    private final Set<Failed> pending = new HashSet<>(); // keeps each Failed reachable until handled
    private final ReferenceQueue<Future<?>> collected = new ReferenceQueue<>();

    LostExceptions(Findings findings) {
        this.findings = findings;
    }

    /** {@code future} has just failed with {@code exception}. */
    synchronized void failed(Future<?> future, Throwable exception) {
        Failed entry = new Failed(future, exception, collected);
        byFuture.put(future, entry);
        pending.add(entry);
        trackedCount = pending.size();
    }

    /** Someone asked {@code future} for its outcome; called only while some failure is tracked. */
    synchronized void retrieved(Future<?> future) {
        Failed entry = byFuture.remove(future);
        if (entry != null) {
            pending.remove(entry);
            trackedCount = pending.size();
        }
    }

    /** Reports the failed futures collected unretrieved since the last call (the watchdog calls it). */
    void pollCollected() {
        List<Failed> lost = new ArrayList<>();
        synchronized (this) {
            java.lang.ref.Reference<? extends Future<?>> ref;
            while ((ref = collected.poll()) != null) {
                if (pending.remove(ref)) {
                    lost.add((Failed) ref);
                }
            }
            trackedCount = pending.size();
        }
        lost.forEach(entry -> report(entry, COLLECTED));
    }

    void loopClosed(EventLoop loop) {
        collectUnretrieved(loop, "its loop closed").forEach(this::report);
    }

    void exiting() {
        pollCollected();
        collectUnretrieved(null, "the JVM exited").forEach(this::report);
    }

    /** A failed future found unretrieved, and when. */
    private record Lost(Failed entry, String when) {
    }

    /**
     * Takes the failures of {@code loop} (null: all) out of tracking; returns those not retrieved,
     * {@code when} they were found, or at their collection for one collected and not yet polled.
     */
    private synchronized List<Lost> collectUnretrieved(EventLoop loop, String when) {
        List<Lost> lost = new ArrayList<>();
        for (Iterator<Failed> it = pending.iterator(); it.hasNext(); ) {
            Failed entry = it.next();
            if (loop == null || entry.loop == loop) {
                it.remove();
                Future<?> future = entry.get();
                if (future == null) {
                    lost.add(new Lost(entry, COLLECTED)); // retrieving it would have ended its tracking
                } else {
                    byFuture.remove(future);
                    if (future.hasUnretrievedException()) {
                        lost.add(new Lost(entry, when));
                    }
                }
            }
        }
        trackedCount = pending.size();
        return lost;
    }

    private void report(Lost lost) {
        report(lost.entry(), lost.when());
    }

    private void report(Failed entry, String when) {
        Throwable exception = entry.exception;
        String what = entry.what + " failed with " + exception + ", and nobody retrieved the exception before " + when
                + (entry.task != null && entry.createdAt == null ? " (" + CreationSites.NOT_RECORDED + ")" : "");
        List<StackTraceElement> stack = LoopSnapshot.runningStack(exception.getStackTrace());
        findings.report(new Occurrence(Kind.LOST_EXCEPTION, entry.loop, entry.loop.name(), entry.task, what, stack, entry.createdAt, 0));
    }
}
