package io.loopdiag.apps;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;

/**
 * Three callbacks that block the loop: 90 ms (under the default 100 ms limit), 120 ms (a slow
 * callback) and 250 ms (a loop stall while it runs). Prints {@code slow-callback done} and exits 0.
 */
final class SlowCallback {
    static final String NAME = "slow-callback";
    static final String DESCRIPTION = "callbacks of 90, 120 and 250 ms on the loop, then exit";

    private SlowCallback() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.callSoon(SlowCallback::blockFor90Millis);
            loop.callSoon(SlowCallback::blockFor120Millis);
            loop.callSoon(SlowCallback::blockFor250Millis);
            loop.callSoon(loop::stop);
            loop.runForever();
        } finally {
            loop.close();
        }
        return Main.done(NAME);
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
