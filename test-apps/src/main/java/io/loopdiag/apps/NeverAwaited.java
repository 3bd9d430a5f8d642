package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import java.time.Duration;

/**
 * A coroutine created and dropped without being awaited ({@link #forgetToAwait}), next to one that
 * is awaited ({@link #awaitProperly}) and one made a task and awaited ({@link #makeTaskOfIt}):
 * only the first is the bug.
 */
final class NeverAwaited {
    static final String NAME = "never-awaited";
    static final String DESCRIPTION = "a coroutine created and never awaited, next to two that are";

    private NeverAwaited() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask("main", () -> {
                forgetToAwait();
                awaitProperly();
                makeTaskOfIt();
                return null;
            }));
        } finally {
            loop.close();
        }
        return Main.done(NAME);
    }

    private static void forgetToAwait() {
        fetch("lost"); // the bug: nothing runs, and nobody is told
    }

    private static void awaitProperly() throws Exception {
        await(fetch("kept"));
    }

    private static void makeTaskOfIt() throws Exception {
        await(createTask(fetch("tasked")));
    }

    private static Coroutine<String> fetch(String key) {
        return Coroutine.of("fetch", () -> {
            sleep(Duration.ofMillis(5));
            return key;
        });
    }
}
