package io.loopdiag.loop.sync;

import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.loop.Async;
import io.loopdiag.loop.CancelledException;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.Future;
import java.util.function.BooleanSupplier;

/**
 * A condition variable for tasks of one loop (asyncio's {@code Condition}), bound to a
 * {@link Lock}: a task holding the lock calls {@link #waitSignal()} to release it and wait until
 * another task holding it calls {@link #notify(int)} or {@link #notifyAllWaiters()}. Loop
 * thread and its tasks only.
 *
 * <p>As with any condition variable, a woken task should re-check what it waited for
 * ({@link #waitFor} does): a task notified and then cancelled passes its notification on to the
 * next waiter, which may find nothing to do.
 */
public final class Condition {
    private final Lock lock;
    private final Waiters waiters = new Waiters(new LoopBinding("condition"), AwaitKinds.CONDITION, "condition wait", this);

    /** A condition with a lock of its own. */
    public Condition() {
        this(new Lock());
    }

    /** A condition bound to {@code lock}, which other conditions and code may share. */
    public Condition(Lock lock) {
        if (lock == null) {
            throw new NullPointerException("lock");
        }
        this.lock = lock;
    }

    /** The lock this condition is bound to. */
    public Lock lock() {
        return lock;
    }

    /** Acquires the condition's lock; see {@link Lock#acquire()}. */
    public void acquire() throws Exception {
        lock.acquire();
    }

    /** Releases the condition's lock; see {@link Lock#release()}. */
    public void release() {
        lock.release();
    }

    /** True if the condition's lock is locked. */
    public boolean isLocked() {
        return lock.isLocked();
    }

    /** Runs {@code body} holding the condition's lock; see {@link Lock#withLock}. */
    public <T> T withLock(Coroutine.Body<T> body) throws Exception {
        return lock.withLock(body);
    }

    /**
     * Releases the lock, suspends the calling task until it is notified, then re-acquires the lock
     * and returns. The lock is held again however this ends, even if the task is cancelled while
     * waiting or re-acquiring (the cancellation is re-thrown once the lock is held). Throws
     * IllegalStateException if the lock is not locked.
     */
    public void waitSignal() throws Exception {
        if (!lock.isLocked()) {
            throw new IllegalStateException("waitSignal() needs the condition's lock held");
        }
        Future<Void> notified = waiters.add(); // before releasing: it throws outside a task
        lock.release();
        Throwable failure = null;
        try {
            Async.await(notified);
        } catch (Throwable t) {
            failure = t;
        } finally {
            waiters.remove(notified);
        }
        while (true) {
            try {
                lock.acquire();
                break;
            } catch (CancelledException e) {
                // The caller must get the lock back however it leaves: keep the failure for later.
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            if (Waiters.isWoken(notified)) {
                waiters.wakeFirst(); // we were notified but will not act on it: let another waiter
            }
            throw rethrowable(failure);
        }
    }

    /** Waits with {@link #waitSignal()} until {@code predicate} is true; the lock must be held and is held after. */
    public void waitFor(BooleanSupplier predicate) throws Exception {
        while (!predicate.getAsBoolean()) {
            waitSignal();
        }
    }

    /**
     * Wakes up to {@code count} waiting tasks, oldest first; returns how many were woken. Throws
     * IllegalStateException if the lock is not locked.
     */
    public int notify(int count) {
        waiters.checkThread();
        if (!lock.isLocked()) {
            throw new IllegalStateException("notify() needs the condition's lock held");
        }
        return waiters.wake(count);
    }

    /**
     * Wakes every waiting task; returns how many were woken. The lock must be held. (asyncio's
     * {@code notify_all}; the name differs because {@link Object#notifyAll()} is final.)
     */
    public int notifyAllWaiters() {
        return notify(Integer.MAX_VALUE);
    }

    /** How many tasks are waiting to be notified. */
    public int waiting() {
        return waiters.pendingCount();
    }

    private static Exception rethrowable(Throwable failure) {
        if (failure instanceof Error error) {
            throw error;
        }
        return (Exception) failure; // Async.await throws only Exceptions and Errors
    }

    @Override
    public String toString() {
        return "Condition[" + lock + ", waiters " + waiters.pendingCount() + "]";
    }
}
