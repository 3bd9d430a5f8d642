package io.loopdiag.apps;

import static io.loopdiag.apps.OtherThread.DELAY_MILLIS;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;

/**
 * Two loops of one name, {@value #LOOP}, open together: the one made first runs idle on a thread
 * of its own; the second, on the main thread, makes one blocking call (a {@code Thread.sleep} in a
 * callback). Prints {@code twin-loops ready} once the call has returned, then runs until killed.
 */
final class TwinLoops {
    static final String NAME = "twin-loops";
    static final String DESCRIPTION = "two loops named 'twin', the second makes one blocking call (kill it)";
    static final String LOOP = "twin";

    private TwinLoops() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop idle = new EventLoop(LOOP, LoopClock.SYSTEM);
        EventLoop blocking = new EventLoop(LOOP, LoopClock.SYSTEM);
        Thread.ofPlatform().name("twin-idle").daemon(true).start(idle::runForever);
        try {
            blocking.callSoon(() -> {
                sleep();
                System.out.println(NAME + " ready");
                System.out.flush();
            });
            blocking.runForever();
        } finally {
            blocking.close();
        }
        return Main.EXIT_FAILED; // not reached
    }

    private static void sleep() {
        try {
            Thread.sleep(DELAY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
