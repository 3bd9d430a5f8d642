package io.loopdiag.apps;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;

/**
 * A callback that never returns: it prints {@code loop-stall spinning} and spins on the CPU
 * forever, so the loop stalls for good. It never finishes; whoever starts it kills it.
 */
final class LoopStall {
    static final String NAME = "loop-stall";
    static final String DESCRIPTION = "a callback that spins forever (prints 'loop-stall spinning'; kill it)";

    private LoopStall() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.callSoon(LoopStall::spinForever);
            loop.runForever();
        } finally {
            loop.close();
        }
        return Main.EXIT_FAILED; // not reached: spinForever never returns
    }

    private static void spinForever() {
        System.out.println(NAME + " spinning");
        System.out.flush();
        while (true) {
            Thread.onSpinWait();
        }
    }
}
