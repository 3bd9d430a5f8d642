package io.loopdiag.apps;

import static io.loopdiag.loop.Async.toThread;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;

/**
 * The shape of every blocking-* scenario: on a loop named after the scenario, a task named
 * {@code blocker} performs each blocking operation of one family once, each from a method of its
 * own that the task calls directly (so the method is on the reported stack); then it performs
 * them again on a worker thread with {@code toThread}, under {@link #onWorkerThread}, where
 * blocking is what workers are for and nothing may be reported.
 */
final class Blocking {
    /** The blocking operations of one family, each called once. */
    @FunctionalInterface
    interface Operations {
        void run() throws Exception;
    }

    private Blocking() {
    }

    /** Runs {@code operations} in the task, then on a worker. Returns when the loop is closed. */
    static void run(String loopName, Operations operations) throws Exception {
        run(loopName, operations, operations);
    }

    /** Like {@link #run(String, Operations)}, for a family whose in-task form differs (it may await). */
    static void run(String loopName, Operations inTask, Operations onWorker) throws Exception {
        EventLoop loop = new EventLoop(loopName, LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask("blocker", () -> {
                inTask.run();
                return toThread(() -> onWorkerThread(onWorker));
            }));
            loop.shutdownDefaultExecutor();
        } finally {
            loop.close();
        }
    }

    /** On a worker thread, not the loop: the tests assert that no report mentions this method. */
    private static Void onWorkerThread(Operations operations) throws Exception {
        operations.run();
        return null;
    }
}
