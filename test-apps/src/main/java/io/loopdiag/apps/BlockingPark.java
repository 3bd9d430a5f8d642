package io.loopdiag.apps;

import static io.loopdiag.apps.OtherThread.DELAY_MILLIS;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code LockSupport.parkNanos}, with and without a blocker, and {@code LockSupport.park} until
 * another thread unparks the task. A park may return early (a stale permit, a spurious wake-up),
 * so each parks again until its condition holds.
 */
final class BlockingPark {
    static final String NAME = "blocking-park";
    static final String DESCRIPTION = "LockSupport.parkNanos (with and without a blocker) and park in a task";
    private static final long DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(DELAY_MILLIS);

    private BlockingPark() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingPark::operations);
        return Main.done(NAME);
    }

    private static void operations() {
        parkNanos();
        parkNanosWithBlocker();
        parkUntilUnparked();
    }

    private static void parkNanos() {
        long deadline = System.nanoTime() + DELAY_NANOS;
        for (long left = DELAY_NANOS; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private static void parkNanosWithBlocker() {
        long deadline = System.nanoTime() + DELAY_NANOS;
        for (long left = DELAY_NANOS; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(BlockingPark.class, left);
        }
    }

    private static void parkUntilUnparked() {
        Thread parked = Thread.currentThread();
        AtomicBoolean unparked = new AtomicBoolean();
        OtherThread.after(() -> {
            unparked.set(true);
            LockSupport.unpark(parked);
        });
        while (!unparked.get()) {
            LockSupport.park(BlockingPark.class);
        }
    }
}
