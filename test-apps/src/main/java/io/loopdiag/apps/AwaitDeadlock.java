package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import io.loopdiag.loop.Task;
import java.time.Duration;

/**
 * Two tasks that await each other ({@code ledger} awaits {@code audit}, which awaits
 * {@code ledger}), with {@code main} awaiting the first, and a {@code heartbeat} task that sleeps
 * in a loop, unrelated. The loop is idle and healthy; the two tasks never finish. Prints
 * {@code await-deadlock ready} once the cycle is closed, then runs until killed.
 */
final class AwaitDeadlock {
    static final String NAME = "await-deadlock";
    static final String DESCRIPTION = "two tasks that await each other forever (kill it)";

    private AwaitDeadlock() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask("main", () -> {
                Task<?>[] pair = new Task<?>[2];
                pair[0] = createTask("ledger", () -> settleLedger(pair));
                pair[1] = createTask("audit", () -> auditLedger(pair));
                createTask("heartbeat", AwaitDeadlock::heartbeat);
                sleep(Duration.ofMillis(20)); // both have started and await each other
                System.out.println(NAME + " ready");
                System.out.flush();
                return await(pair[0]);
            }));
        } finally {
            loop.close();
        }
        return Main.EXIT_FAILED; // not reached
    }

    private static Object settleLedger(Task<?>[] pair) throws Exception {
        sleep(Duration.ZERO);
        return await(pair[1]);
    }

    private static Object auditLedger(Task<?>[] pair) throws Exception {
        sleep(Duration.ZERO);
        return await(pair[0]);
    }

    private static Void heartbeat() throws Exception {
        while (true) {
            sleep(Duration.ofMillis(100));
        }
    }
}
