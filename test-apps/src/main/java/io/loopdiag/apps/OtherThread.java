package io.loopdiag.apps;

/**
 * Runs an action on a new platform thread after a short delay: what wakes up a blocking call that
 * a scenario makes on the loop (completes the future, releases the lock, fills the queue).
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

    /** Starts a daemon platform thread that sleeps {@link #DELAY_MILLIS}, then runs {@code action}; returns it. */
    static Thread after(Action action) {
        return Thread.ofPlatform().name("other-thread").daemon(true).start(() -> {
            try {
                Thread.sleep(DELAY_MILLIS);
                action.run();
            } catch (Exception e) {
                throw new IllegalStateException("the other thread's action failed", e);
            }
        });
    }
}
