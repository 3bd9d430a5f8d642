package io.loopdiag.apps;

import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A task that awaits inside a class initializer, where every JDK pins its virtual thread: the
 * park holds the platform thread under it, which with the fast setup is the loop's own carrier.
 * loop-core sees the carrier held, lets the loop go on and tells its exception handler, which
 * this scenario keeps to itself (it fails if no report came); the agent reports a blocking call at
 * the line that awaited.
 */
final class BlockingPinned {
    static final String NAME = "blocking-pinned";
    static final String DESCRIPTION = "a task awaits inside a class initializer, pinned to the loop's carrier";

    /** Loaded the first time a task converts: its initializer awaits the rates. */
    static final class ExchangeRates {
        static final Map<String, Double> RATES = load();

        private static Map<String, Double> load() {
            try {
                sleep(Duration.ofMillis(20)); // as a fetch of the rates would await
            } catch (Exception e) {
                throw new ExceptionInInitializerError(e);
            }
            return Map.of("EUR", 1.0, "USD", 1.16);
        }
    }

    private BlockingPinned() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        AtomicInteger reports = new AtomicInteger();
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.setExceptionHandler((ignored, context) -> reports.incrementAndGet());
            loop.runUntilComplete(loop.createTask("blocker", BlockingPinned::convert));
        } finally {
            loop.close();
        }
        if (reports.get() != 1) {
            throw new IllegalStateException("the loop reported " + reports.get() + " pinned parks, not 1");
        }
        return Main.done(NAME);
    }

    private static Double convert() throws Exception {
        double rate = ExchangeRates.RATES.get("USD");
        sleep(Duration.ZERO); // the loop has told its handler by now
        return 100 * rate;
    }
}
