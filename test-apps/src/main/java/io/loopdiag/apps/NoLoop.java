package io.loopdiag.apps;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;

/**
 * A JVM that uses loop-core but has no loop open: it runs one loop to its end, closes it, prints
 * {@code no-loop ready} and idles until killed. What {@code loopdiag ps} says of such a JVM.
 */
final class NoLoop {
    static final String NAME = "no-loop";
    static final String DESCRIPTION = "uses loop-core, but its only loop is closed (kill it)";

    private NoLoop() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        try (EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM)) {
            loop.runUntilComplete(loop.createTask("only", () -> null));
        }
        System.out.println(NAME + " ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
        return Main.EXIT_FAILED; // not reached
    }
}
