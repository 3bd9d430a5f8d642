package io.loopdiag.loop.sync;

import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;

/**
 * A mutual-exclusion lock for tasks of one loop (asyncio's {@code Lock}). It is not reentrant and
 * has no owner: any task may release it. Loop thread and its tasks only.
 *
 * <p>Fairness is by hand-off: {@link #release()} with tasks waiting passes the lock straight to
 * the one that waited longest, and the lock stays locked meanwhile, so no task can take it in
 * between. (asyncio marks its lock free and lets the woken task take it; the order is the same,
 * but here {@link #isLocked()} stays true across the hand-off.) A task cancelled after the lock
 * was handed to it releases it, passing it on.
 */
public final class Lock {
    private final Waiters waiters = new Waiters(new LoopBinding("lock"), AwaitKinds.LOCK, "lock acquire", this);
    private boolean locked;
    /** The task that acquired the lock last, while it is locked; null while it is handed to a waiter (and outside a task). */
    private volatile Task<?> holder;

    /** True if some task holds the lock or it is being handed to a waiting task. */
    public boolean isLocked() {
        return locked;
    }

    /**
     * Takes the lock, first suspending the calling task behind the tasks already waiting. On
     * {@link io.loopdiag.loop.CancelledException} the lock is not held.
     */
    public void acquire() throws Exception {
        if (!locked) {
            // Waiters exist only while the lock is locked (release hands it to them), so nobody is overtaken.
            locked = true;
            holder = Task.current();
            return;
        }
        waiters.awaitHandOff(this::release);
        holder = Task.current();
    }

    /**
     * Releases the lock, handing it to the longest-waiting task if there is one. Throws
     * IllegalStateException if the lock is not locked.
     */
    public void release() {
        waiters.checkThread();
        if (!locked) {
            throw new IllegalStateException("release() of a lock that is not locked");
        }
        holder = null;
        if (!waiters.wakeFirst()) {
            locked = false;
        }
    }

    /**
     * The task that holds the lock, or null if it is free, being handed to the next waiter, or
     * taken outside a task. The lock has no owner (any task may release it): this is the task that
     * took it last, which is what a dump shows a waiting task waits for. Any thread.
     */
    public Task<?> holder() {
        return holder;
    }

    /** Runs {@code body} holding the lock and releases it however the body ends; returns the body's result. */
    public <T> T withLock(Coroutine.Body<T> body) throws Exception {
        acquire();
        try {
            return body.call();
        } finally {
            release();
        }
    }

    /** How many tasks are waiting to acquire the lock. */
    public int waiting() {
        return waiters.pendingCount();
    }

    @Override
    public String toString() {
        return "Lock[" + (locked ? "locked" : "unlocked") + ", waiters " + waiters.pendingCount() + "]";
    }
}
