package io.loopdiag.loop.sync;

import io.loopdiag.loop.Future;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The FIFO of futures that tasks wait on, one per waiting task. Waking a waiter removes it and
 * completes its future; a waiter whose future was cancelled (its task was cancelled) stays until
 * its task removes it, and is skipped when waking.
 */
final class Waiters {
    private final LoopBinding binding;
    private final String kind;
    private final String label;
    private final Object subject;
    private final ArrayDeque<Future<Void>> futures = new ArrayDeque<>();

    /**
     * Waiters whose futures dumps show as waiting on a {@code kind} thing, doing {@code label}, on
     * {@code subject} (the primitive, which a dump asks who holds it), or null.
     */
    Waiters(LoopBinding binding, String kind, String label, Object subject) {
        this.binding = binding;
        this.kind = kind;
        this.label = label;
        this.subject = subject;
    }

    /** Throws unless the caller may use the primitive's loop now (see {@link LoopBinding#checkThread}). */
    void checkThread() {
        binding.checkThread();
    }

    /** A new pending future at the back of the FIFO, on the calling task's loop. */
    Future<Void> add() {
        Future<Void> waiter = new Future<>(binding.loopOfCurrentTask(label), kind, label, subject);
        futures.add(waiter);
        return waiter;
    }

    /** Takes {@code waiter} out of the FIFO if it is still there (a cancelled wait). */
    void remove(Future<Void> waiter) {
        futures.remove(waiter);
    }

    /** Wakes the first waiter whose future is still pending; false if there is none. */
    boolean wakeFirst() {
        Future<Void> waiter;
        while ((waiter = futures.poll()) != null) {
            if (!waiter.isDone()) {
                waiter.setResult(null);
                return true;
            }
        }
        return false;
    }

    /** Wakes up to {@code count} pending waiters, oldest first; returns how many were woken. */
    int wake(int count) {
        int woken = 0;
        while (woken < count && wakeFirst()) {
            woken++;
        }
        return woken;
    }

    /** Wakes every pending waiter; returns how many were woken. */
    int wakeAll() {
        return wake(Integer.MAX_VALUE);
    }

    /** How many waiters are pending (not woken, not cancelled). */
    int pendingCount() {
        int pending = 0;
        for (Iterator<Future<Void>> it = futures.iterator(); it.hasNext(); ) {
            if (!it.next().isDone()) {
                pending++;
            }
        }
        return pending;
    }

    /** Waits at the back of the FIFO until woken, and leaves it however the wait ends. */
    void await() throws Exception {
        Future<Void> waiter = add();
        try {
            io.loopdiag.loop.Async.await(waiter);
        } finally {
            remove(waiter);
        }
    }

    /**
     * Waits at the back of the FIFO until {@link #wakeFirst} hands this task what it waits for (a
     * lock, a permit). If the task is cancelled after the hand-off, {@code passOn} gives it back so
     * it reaches the next waiter instead of being lost.
     */
    void awaitHandOff(Runnable passOn) throws Exception {
        Future<Void> handedOver = add();
        try {
            io.loopdiag.loop.Async.await(handedOver);
        } catch (Throwable failure) {
            remove(handedOver);
            if (isWoken(handedOver)) {
                passOn.run();
            }
            throw failure;
        }
    }

    /** True if {@code waiter} was woken, as opposed to cancelled: its task was given something. */
    static boolean isWoken(Future<Void> waiter) {
        return waiter.isDone() && !waiter.isCancelled();
    }
}
