package io.loopdiag.loop;

import java.util.Comparator;

/**
 * A callback scheduled for a deadline on the loop's clock. Timers with equal deadlines run in the
 * order they were scheduled ({@link #seq}). A cancelled timer stays in the heap until the loop
 * purges it lazily.
 */
public final class TimerHandle extends Handle {
    /** Earlier deadline first; equal deadlines in scheduling order. */
    static final Comparator<TimerHandle> ORDER = (a, b) -> {
        int byDeadline = Long.compare(a.deadlineNanos, b.deadlineNanos);
        return byDeadline != 0 ? byDeadline : Long.compare(a.seq, b.seq);
    };

    final long deadlineNanos;
    final long seq;
    boolean inHeap; // true while in the loop's timer heap; counts toward its cancelled total when cancelled

    TimerHandle(EventLoop loop, long deadlineNanos, long seq, Runnable callback) {
        super(loop, callback);
        this.deadlineNanos = deadlineNanos;
        this.seq = seq;
    }

    /** The deadline on the loop's clock ({@link EventLoop#timeNanos()}). */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    @Override
    public void cancel() {
        boolean wasCancelled = isCancelled();
        super.cancel();
        if (!wasCancelled && inHeap) {
            loop.timerCancelled();
        }
    }

    @Override
    public String toString() {
        return "TimerHandle[" + describeCallback() + ", deadlineNanos=" + deadlineNanos
                + (isCancelled() ? ", cancelled" : "") + "]";
    }
}
