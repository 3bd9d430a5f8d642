package io.loopdiag.apps;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import java.time.Duration;

/**
 * A loop busy half the time, in known stretches, for its health numbers: a callback computes for
 * {@value #STRETCH_MILLIS} ms, then the loop idles for as long (a timer schedules the next), over
 * and over. Its utilization is about 50%, and a unit that becomes ready as a stretch begins starts
 * about {@value #STRETCH_MILLIS} ms late. Prints {@code half-busy ready} as it starts, then runs
 * until killed.
 */
final class HalfBusy {
    static final String NAME = "half-busy";
    static final String DESCRIPTION = "a loop busy 200 ms, idle 200 ms, over and over: 50% utilization, 200 ms lag (kill it)";
    static final long STRETCH_MILLIS = 200;

    private HalfBusy() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.callSoon(() -> {
                System.out.println(NAME + " ready");
                System.out.flush();
            });
            loop.callSoon(() -> stretch(loop));
            loop.runForever();
        } finally {
            loop.close();
        }
        return Main.EXIT_FAILED; // not reached
    }

    /** One busy stretch, then the next one after an idle stretch as long. */
    private static void stretch(EventLoop loop) {
        SlowCallback.busyWait(STRETCH_MILLIS);
        loop.callLater(Duration.ofMillis(STRETCH_MILLIS), () -> stretch(loop));
    }
}
