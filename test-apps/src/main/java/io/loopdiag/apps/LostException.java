package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.loop;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.LoopClock;
import io.loopdiag.loop.Task;
import java.io.IOException;
import java.time.Duration;

/**
 * Failures nobody looks at: a task that throws and is never awaited
 * ({@link #startFailingTask}), and a future given an exception and dropped
 * ({@link #failAFuture}); next to a task whose failure is awaited late, 50 ms after it happened
 * ({@link #retrieveLate}), which is not lost.
 */
final class LostException {
    static final String NAME = "lost-exception";
    static final String DESCRIPTION = "a failed task and a failed future whose exceptions nobody retrieves";
    private static final Duration LATER = Duration.ofMillis(50);

    private LostException() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask("main", () -> {
                startFailingTask();
                retrieveLate();
                failAFuture();
                return null;
            }));
        } finally {
            loop.close();
        }
        return Main.done(NAME);
    }

    /** The task fails at its first step; retrieveLate's sleep lets that step run. */
    private static void startFailingTask() {
        createTask("failing", LostException::failDeepInside);
    }

    private static void retrieveLate() throws Exception {
        Task<Void> failing = createTask("failing-but-awaited", LostException::failDeepInside);
        sleep(LATER);
        try {
            await(failing);
        } catch (IllegalStateException expected) {
            return; // retrieved, late: not lost
        }
        throw new IllegalStateException("the task 'failing-but-awaited' did not fail");
    }

    private static void failAFuture() {
        Future<Void> future = loop().createFuture();
        future.setException(new IOException("disk on fire"));
    }

    private static Void failDeepInside() {
        throw new IllegalStateException("boom");
    }
}
