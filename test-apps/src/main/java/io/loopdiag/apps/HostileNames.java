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
 * {@code hostile-names [--serve]}: names and messages that try to take over a terminal or a
 * report. A loop and a task named {@link #HOSTILE} block on the loop (a {@code Thread.sleep}), and
 * a task of that name fails with an exception whose message is {@link #HOSTILE}, which nobody
 * retrieves. {@link #HOSTILE} holds an ANSI colour escape, a carriage return, a bell, a newline, a
 * C1 control, quotes, a backslash and a character outside the BMP. With {@code --serve}, tasks
 * named {@link #TASK_NAMES} then wait for good, {@code hostile-names ready} is printed, and it runs
 * until killed, for the CLI's views of them.
 */
final class HostileNames {
    static final String NAME = "hostile-names";
    static final String DESCRIPTION = "a loop, tasks and an exception message with terminal control characters in them"
            + " (--serve: then waits, kill it)";
    static final String HOSTILE = "red\u001b[31mRED\rback\u0007bell\nnext line\u009b2J \"quoted\" back\\slash \uD83D\uDE00 end";
    /** With --serve, the names of the tasks that wait for good. */
    static final String[] TASK_NAMES = {"red\u001b[31mtask", "cr\roverwrite", "bell\u0007task", "two\nlines"};

    private HostileNames() {
    }

    static int main(String[] args) throws Exception {
        boolean serve = args.length == 1 && args[0].equals("--serve");
        if (!serve) {
            Main.requireNoArguments(args);
        }
        EventLoop loop = new EventLoop(HOSTILE, LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask(HOSTILE, () -> {
                blockOnTheLoop();
                createTask(HOSTILE, HostileNames::fail);
                sleep(Duration.ofMillis(20)); // the failing task runs, and its exception is dropped
                if (serve) {
                    serve();
                }
                return null;
            }));
        } finally {
            loop.close();
        }
        return Main.done(NAME);
    }

    private static void serve() throws Exception {
        Future<Void> never = loop().createFuture();
        for (String name : TASK_NAMES) {
            createTask(name, () -> await(never));
        }
        sleep(Duration.ZERO); // each has run up to its await
        System.out.println(NAME + " ready");
        System.out.flush();
        await(never);
    }

    private static void blockOnTheLoop() throws InterruptedException {
        Thread.sleep(1);
    }

    private static Void fail() {
        throw new IllegalStateException(HOSTILE);
    }
}
