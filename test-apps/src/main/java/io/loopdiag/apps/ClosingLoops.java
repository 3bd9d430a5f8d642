package io.loopdiag.apps;

import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.EventLoop;
import java.time.Duration;

/**
 * Loops that close all the time, so that a dump meets one while it closes: each round runs a new
 * loop whose main task starts 200 tasks sleeping for a minute and returns after 5 ms; the loop then
 * cancels those tasks and closes. Prints {@code closing-loops ready} after the first round, then
 * runs rounds until killed.
 */
final class ClosingLoops {
    static final String NAME = "closing-loops";
    static final String DESCRIPTION = "a new loop every few ms, each closed with 200 tasks to cancel (kill it)";
    private static final int TASKS = 200;

    private ClosingLoops() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        for (long round = 1; ; round++) {
            EventLoop.run(() -> {
                for (int i = 0; i < TASKS; i++) {
                    createTask("sleeper-" + i, () -> {
                        sleep(Duration.ofMinutes(1));
                        return null;
                    });
                }
                sleep(Duration.ofMillis(5));
                return null;
            });
            if (round == 1) {
                System.out.println(NAME + " ready");
                System.out.flush();
            }
        }
    }
}
