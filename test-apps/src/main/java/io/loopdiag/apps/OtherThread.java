package io.loopdiag.apps;

import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs an action on a new platform thread once the thread that asked for it is blocked, after a
 * short delay: what wakes up a blocking call that a scenario makes on the loop (completes the
 * future, releases the lock, fills the queue). Waiting for the caller to block, rather than only
 * sleeping, makes every call really wait even on a busy machine, so the scenarios are the same in
 * every run.
 */
final class OtherThread {
    /** How long a blocking call in the blocking-* scenarios waits for the other thread: briefly, but for real. */
    static final long DELAY_MILLIS = 10;
    /** The limit given to the timed variants (wait, join, get...); far above DELAY_MILLIS, so they never time out. */
    static final long TIMEOUT_MILLIS = 5_000;

    /** An action that may throw; a failure is printed on stderr by the thread's default handler. */
    @FunctionalInterface
    interface Action {
        void run() throws Exception;
    }

    private OtherThread() {
    }

    /** Starts a daemon platform thread that runs {@code action} once the calling thread blocks; returns it. */
    static Thread after(Action action) {
        return when(Thread.currentThread(), OtherThread::isBlocked, action);
    }

    /**
     * Starts a daemon platform thread that runs {@code action} once {@code waiter} is seen
     * {@code waiting} (see {@link #awaitWaiting}).
     */
    static Thread when(Thread waiter, Predicate<Thread> waiting, Action action) {
        return Thread.ofPlatform().name("other-thread").daemon(true).start(() -> {
            try {
                awaitWaiting(waiter, waiting);
                action.run();
            } catch (Exception e) {
                throw new IllegalStateException("the other thread's action failed", e);
            }
        });
    }

    /**
     * Returns {@link #DELAY_MILLIS} after {@code waiter} is seen {@code waiting}, or after
     * {@link #TIMEOUT_MILLIS} if it never is.
     */
    static void awaitWaiting(Thread waiter, Predicate<Thread> waiting) throws InterruptedException {
        long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        while (!waiting.test(waiter) && System.nanoTime() < giveUp) {
            Thread.sleep(1);
        }
        Thread.sleep(DELAY_MILLIS);
    }

    static boolean isBlocked(Thread thread) {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
    }
}
