package io.loopdiag.apps;

import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A detection storm: a task makes {@link #CALLS} blocking calls from a tight loop, each a
 * {@code LockSupport.park()} that returns at once (the task gave itself the permit just before),
 * so the storm costs the agent's work and little else. Each call goes down one of
 * {@link #PATHS} call paths ({@link #descend}: {@link #left} or {@link #right} at each of
 * {@link #LEVELS} levels), so the agent sees 16,384 distinct stacks, more than it keeps, and every
 * path about 61 times. The task hands the loop back every {@link #CALLS_PER_STEP} calls.
 */
final class BlockingStorm {
    static final String NAME = "blocking-storm";
    static final String DESCRIPTION = "a million blocking calls from 16384 distinct call paths in one task";
    static final int CALLS = 1_000_000;
    static final int LEVELS = 14;
    static final int PATHS = 1 << LEVELS;
    /** A well-behaved storm: the loop runs its other work between steps. */
    private static final int CALLS_PER_STEP = 1_000;

    private BlockingStorm() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask("storm", () -> {
                for (int call = 0; call < CALLS; call++) {
                    descend(call % PATHS, LEVELS);
                    if (call % CALLS_PER_STEP == CALLS_PER_STEP - 1) {
                        sleep(Duration.ZERO);
                    }
                }
                return null;
            }));
        } finally {
            loop.close();
        }
        return Main.done(NAME);
    }

    /** Goes down {@code levels} more levels, left or right as the bits of {@code path} say, then blocks. */
    private static void descend(int path, int levels) {
        if (levels == 0) {
            block();
        } else if ((path & 1) == 0) {
            left(path >>> 1, levels - 1);
        } else {
            right(path >>> 1, levels - 1);
        }
    }

    private static void left(int path, int levels) {
        descend(path, levels);
    }

    private static void right(int path, int levels) {
        descend(path, levels);
    }

    /** A blocking call that does not wait: the permit is there. */
    private static void block() {
        LockSupport.unpark(Thread.currentThread());
        LockSupport.park();
    }
}
