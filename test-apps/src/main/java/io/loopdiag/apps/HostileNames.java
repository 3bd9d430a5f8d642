package io.loopdiag.apps;

import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import java.time.Duration;

/**
 * Names and messages that try to take over a terminal or a report: a loop and a task named
 * {@link #HOSTILE} block on the loop (a {@code Thread.sleep}), and a task of that name fails with
 * an exception whose message is {@link #HOSTILE} and nobody retrieves it. {@link #HOSTILE} holds
 * an ANSI colour escape, a carriage return, a bell, a newline, a C1 control, quotes, a backslash
 * and a character outside the BMP.
 */
final class HostileNames {
    static final String NAME = "hostile-names";
    static final String DESCRIPTION = "a loop, task and exception message with terminal control characters in them";
    static final String HOSTILE = "red\u001b[31mRED\rback\u0007bell\nnext line\u009b2J \"quoted\" back\\slash \uD83D\uDE00 end";

    private HostileNames() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(HOSTILE, LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask(HOSTILE, () -> {
                blockOnTheLoop();
                createTask(HOSTILE, HostileNames::fail);
                sleep(Duration.ofMillis(20)); // the failing task runs, and its exception is dropped
                return null;
            }));
        } finally {
            loop.close();
        }
        return Main.done(NAME);
    }

    private static void blockOnTheLoop() throws InterruptedException {
        Thread.sleep(1);
    }

    private static Void fail() {
        throw new IllegalStateException(HOSTILE);
    }
}
