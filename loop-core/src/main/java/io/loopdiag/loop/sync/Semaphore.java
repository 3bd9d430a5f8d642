package io.loopdiag.loop.sync;

import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import java.util.ArrayList;
import java.util.List;

/**
 * A counter of permits for tasks of one loop (asyncio's {@code Semaphore}): {@link #acquire()}
 * takes one, suspending while none is left, and {@link #release()} gives one back. A
 * {@linkplain #bounded bounded} semaphore refuses to be released more often than acquired
 * (asyncio's {@code BoundedSemaphore}). Loop thread and its tasks only.
 *
 * <p>Like {@link Lock}, a release with tasks waiting hands the permit straight to the one that
 * waited longest; a task cancelled after a permit was handed to it releases it again.
 */
public final class Semaphore {
    private static final int UNBOUNDED = -1;

    private final Waiters waiters = new Waiters(new LoopBinding("semaphore"), AwaitKinds.SEMAPHORE, "semaphore acquire", this);
    /**
     * The tasks holding permits, in the order they took them. A permit has no owner (any task may
     * release one), so a release by a task that holds none takes the oldest holder off.
     */
    private final ArrayList<Task<?>> holders = new ArrayList<>();
    private final int bound; // the most permits there may be, or UNBOUNDED
    // Invariant: tasks wait only while available == 0, since release hands permits to waiters first.
    private int available;

    private Semaphore(int permits, int bound) {
        if (permits < 0) {
            throw new IllegalArgumentException("permits must be 0 or more: " + permits);
        }
        this.available = permits;
        this.bound = bound;
    }

    /** A semaphore with {@code permits} permits (0 or more) that may be released any number of times. */
    public Semaphore(int permits) {
        this(permits, UNBOUNDED);
    }

    /** A semaphore with {@code permits} permits whose {@link #release()} throws if all of them are back already. */
    public static Semaphore bounded(int permits) {
        return new Semaphore(permits, permits);
    }

    /** How many permits can be acquired now without waiting. */
    public int available() {
        return available;
    }

    /** True if {@link #acquire()} would suspend: no permit is left. */
    public boolean isLocked() {
        return available == 0;
    }

    /** True if this semaphore was made with {@link #bounded}. */
    public boolean isBounded() {
        return bound != UNBOUNDED;
    }

    /**
     * Takes a permit, first suspending the calling task behind the tasks already waiting while none
     * is left. On {@link io.loopdiag.loop.CancelledException} no permit is held.
     */
    public void acquire() throws Exception {
        if (available > 0) {
            available--;
            held();
            return;
        }
        waiters.awaitHandOff(this::giveBack); // a permit handed over to a task cancelled since goes on
        held();
    }

    private void held() {
        Task<?> task = Task.current();
        if (task != null) {
            holders.add(task);
        }
    }

    /**
     * Gives a permit back, handing it to the longest-waiting task if there is one. A bounded
     * semaphore throws IllegalStateException if every permit is back already.
     */
    public void release() {
        waiters.checkThread();
        if (bound != UNBOUNDED && available >= bound) {
            throw new IllegalStateException("bounded semaphore released more times than acquired (" + bound + " permits)");
        }
        if (!holders.remove(Task.current()) && !holders.isEmpty()) {
            holders.remove(0);
        }
        giveBack();
    }

    /** A permit comes back: to the longest-waiting task if there is one, else to the count. */
    private void giveBack() {
        if (!waiters.wakeFirst()) {
            available++;
        }
    }

    /** Runs {@code body} holding a permit and releases it however the body ends; returns the body's result. */
    public <T> T withPermit(Coroutine.Body<T> body) throws Exception {
        acquire();
        try {
            return body.call();
        } finally {
            release();
        }
    }

    /**
     * The tasks that hold a permit, oldest first, as far as the semaphore can tell (see above).
     * Any thread: a copy, which may miss a permit taken or given back meanwhile.
     */
    public List<Task<?>> holders() {
        try {
            return List.copyOf(holders);
        } catch (RuntimeException moving) { // changed under the copy: the next dump sees it
            return List.of();
        }
    }

    /** How many tasks are waiting for a permit. */
    public int waiting() {
        return waiters.pendingCount();
    }

    @Override
    public String toString() {
        return "Semaphore[available " + available + (bound != UNBOUNDED ? "/" + bound : "")
                + ", waiters " + waiters.pendingCount() + "]";
    }
}
