package io.loopdiag.apps;

import static io.loopdiag.apps.OtherThread.DELAY_MILLIS;

import io.loopdiag.loop.Async;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Every form of {@code Thread.sleep} in a task, then on a worker; plus one sleep in a plain loop
 * callback ({@link #sleepInCallback}: callbacks count too) and a {@code Thread.sleep(0)}
 * ({@link #sleepZero}: it does not block, and must not be reported).
 */
final class BlockingSleep {
    static final String NAME = "blocking-sleep";
    static final String DESCRIPTION = "Thread.sleep in its four forms in a task and once in a callback";

    private BlockingSleep() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingSleep::inTask, BlockingSleep::operations);
        return Main.done(NAME);
    }

    private static void inTask() throws Exception {
        Async.loop().callSoon(BlockingSleep::sleepInCallback); // runs once the task suspends
        operations();
    }

    private static void operations() throws Exception {
        sleepLong();
        sleepLongNanos();
        sleepDuration();
        timeUnitSleep();
        sleepZero();
    }

    private static void sleepLong() throws InterruptedException {
        Thread.sleep(DELAY_MILLIS);
    }

    private static void sleepLongNanos() throws InterruptedException {
        Thread.sleep(DELAY_MILLIS, 500_000);
    }

    private static void sleepDuration() throws InterruptedException {
        Thread.sleep(Duration.ofMillis(DELAY_MILLIS));
    }

    private static void timeUnitSleep() throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(DELAY_MILLIS);
    }

    /** Not blocking: a zero sleep returns at once. */
    private static void sleepZero() throws InterruptedException {
        Thread.sleep(0);
    }

    private static void sleepInCallback() {
        try {
            Thread.sleep(DELAY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
