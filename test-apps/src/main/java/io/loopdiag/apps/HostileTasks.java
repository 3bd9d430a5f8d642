package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.loop;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.LoopClock;
import java.time.Duration;

/**
 * Names that would rewrite a terminal: a loop and tasks named with an ANSI colour escape, a
 * carriage return, a bell and a newline, all suspended for good. Prints {@code hostile-tasks
 * ready} once they wait; runs until killed. For the CLI's tests that such names are shown escaped.
 */
final class HostileTasks {
    static final String NAME = "hostile-tasks";
    static final String DESCRIPTION = "a loop and tasks named with terminal escapes, \\r, \\u0007, newlines (kill it)";
    /** The loop's name. */
    static final String LOOP_NAME = "hostile\u001b[31m-loop\r";
    /** The tasks' names. */
    static final String[] TASK_NAMES = {"red\u001b[31mtask", "cr\roverwrite", "bell\u0007task", "two\nlines"};

    private HostileTasks() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(LOOP_NAME, LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask("main", () -> {
                Future<Void> never = loop().createFuture();
                for (String name : TASK_NAMES) {
                    createTask(name, () -> await(never));
                }
                sleep(Duration.ZERO); // each has run up to its await
                System.out.println(NAME + " ready");
                System.out.flush();
                return await(never);
            }));
        } finally {
            loop.close();
        }
        return Main.EXIT_FAILED; // not reached
    }
}
