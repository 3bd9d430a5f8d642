package io.loopdiag.apps;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import java.time.Duration;
import java.util.List;

/**
 * Three callbacks that block the loop: 90 ms (under the default 100 ms limit), 120 ms (a slow
 * callback) and 250 ms (a loop stall while it runs). Prints {@code slow-callback done} and exits 0.
 * With {@code --apart MS}, the loop idles MS milliseconds before each: the agent's watchdog
 * sleeps through the idle spells and must wake at each callback's start to time it.
 */
final class SlowCallback {
    static final String NAME = "slow-callback";
    static final String DESCRIPTION = "callbacks of 90, 120 and 250 ms on the loop, then exit (--apart MS: idle MS before each)";

    private SlowCallback() {
    }

    static int main(String[] args) throws Exception {
        Duration apart = Duration.ZERO;
        if (args.length > 0 && args[0].equals("--apart") && args.length <= 2) {
            apart = Duration.ofMillis(Main.parseNumber(args, 0, 0, 60_000));
        } else if (args.length != 0) {
            throw new IllegalArgumentException("usage: " + NAME + " [--apart MS]");
        }
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            List<Runnable> callbacks = List.of(SlowCallback::blockFor90Millis, SlowCallback::blockFor120Millis,
                    SlowCallback::blockFor250Millis, loop::stop);
            if (apart.isZero()) {
                callbacks.forEach(loop::callSoon);
            } else {
                runApart(loop, callbacks, 0, apart);
            }
            loop.runForever();
        } finally {
            loop.close();
        }
        return Main.done(NAME);
    }

    /** Runs {@code callbacks} from {@code next} on, each {@code apart} after the one before ends. */
    private static void runApart(EventLoop loop, List<Runnable> callbacks, int next, Duration apart) {
        loop.callLater(apart, () -> {
            callbacks.get(next).run();
            if (next + 1 < callbacks.size()) {
                runApart(loop, callbacks, next + 1, apart);
            }
        });
    }

    private static void blockFor90Millis() {
        busyWait(90);
    }

    private static void blockFor120Millis() {
        busyWait(120);
    }

    private static void blockFor250Millis() {
        busyWait(250);
    }

    /**
     * Spins on the CPU rather than sleeping, so the scenario shows a slow callback, not a blocking
     * call. Shared with {@link Healthy}.
     */
    static void busyWait(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
