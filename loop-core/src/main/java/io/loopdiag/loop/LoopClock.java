package io.loopdiag.loop;

import java.time.Duration;

/**
 * The loop's monotonic clock, in nanoseconds. {@link #SYSTEM} is {@link System#nanoTime()};
 * {@link #virtual()} makes a clock that jumps forward instead of waiting, so tests of timers and
 * timeouts run instantly and deterministically (asyncio's test loop does the same).
 */
public interface LoopClock {

    /** The current time in nanoseconds; only differences are meaningful. */
    long nanoTime();

    /**
     * Called by the loop just before it waits for I/O for up to {@code timeoutNanos} (never
     * called with 0; {@code -1} means no timer is pending). Returns the time the loop should
     * really wait. A real clock waits as asked; a virtual clock advances itself by the timeout
     * and returns 0, so the earliest timer is due at once.
     */
    default long beforeWait(long timeoutNanos) {
        return timeoutNanos;
    }

    LoopClock SYSTEM = System::nanoTime;

    /** A new virtual clock starting at 0. */
    static Virtual virtual() {
        return new Virtual();
    }

    /**
     * Virtual time: it moves only when the loop would otherwise wait for a timer, or when a test
     * calls {@link #advance}. A loop with no pending timer still waits for real I/O and for
     * {@code callSoonThreadsafe}.
     */
    final class Virtual implements LoopClock {
        private volatile long nowNanos;

        private Virtual() {
        }

        @Override
        public long nanoTime() {
            return nowNanos;
        }

        @Override
        public long beforeWait(long timeoutNanos) {
            if (timeoutNanos < 0) {
                return timeoutNanos;
            }
            nowNanos += timeoutNanos;
            return 0;
        }

        /** Moves the clock forward; call it from the loop's thread or while the loop is not running. */
        public void advance(Duration by) {
            if (by.isNegative()) {
                throw new IllegalArgumentException("a clock cannot go back: " + by);
            }
            nowNanos += by.toNanos();
        }
    }
}
