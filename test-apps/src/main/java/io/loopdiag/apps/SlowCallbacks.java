package io.loopdiag.apps;

import io.loopdiag.loop.EventLoop;

/**
 * Three callbacks that block the loop: 90 ms (under the default 100 ms limit), 120 ms (a slow
 * callback) and 350 ms (a loop stall while it runs). Prints {@code slow-callbacks done} and exits 0.
 */
final class SlowCallbacks {
    static final String NAME = "slow-callbacks";
    static final String DESCRIPTION = "callbacks of 90, 120 and 350 ms on the loop, then exit";

    private SlowCallbacks() {
    }

    static int main(String[] args) throws Exception {
        if (args.length > 0) {
            throw new IllegalArgumentException("takes no arguments");
        }
        EventLoop loop = new EventLoop("slow-callbacks", io.loopdiag.loop.LoopClock.SYSTEM);
        try {
            loop.callSoon(SlowCallbacks::blockFor90Millis);
            loop.callSoon(SlowCallbacks::blockFor120Millis);
            loop.callSoon(SlowCallbacks::blockFor350Millis);
            loop.callSoon(loop::stop);
            loop.runForever();
        } finally {
            loop.close();
        }
        System.out.println(NAME + " done");
        return Main.EXIT_OK;
    }

    private static void blockFor90Millis() {
        block(90);
    }

    private static void blockFor120Millis() {
        block(120);
    }

    private static void blockFor350Millis() {
        block(350);
    }

    /** Busy-waits rather than sleeping, so the scenario shows a slow callback, not a blocking call. */
    private static void block(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
