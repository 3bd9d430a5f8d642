package io.loopdiag.apps;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@code synchronized} block whose monitor another thread holds: the task {@code blocker}
 * waits to enter it in {@code readPrices} while {@code price-refresher}, a platform thread, holds
 * the price table's monitor, releasing it {@value #HOLD_MILLIS} ms after it sees the task wait. No
 * method is called to wait, so only the watchdog's sampling can see it. On a worker thread too,
 * where it must not be reported.
 */
final class BlockingMonitor {
    static final String NAME = "blocking-monitor";
    static final String DESCRIPTION = "a task waits to enter a synchronized block another thread holds";
    /** Longer than a few of the watchdog's sampling periods (5 ms at slow=100ms). */
    static final long HOLD_MILLIS = 200;

    /** The shared object whose monitor is contended; its class names it in the finding, where the JDK tells. */
    static final class PriceTable {
        int version;
    }

    private BlockingMonitor() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingMonitor::readPrices);
        return Main.done(NAME);
    }

    /** Waits for the table's monitor, which the refresher holds. */
    private static void readPrices() {
        PriceTable table = new PriceTable();
        Thread reader = Thread.currentThread();
        AtomicBoolean holding = new AtomicBoolean();
        Thread refresher = Thread.ofPlatform().name("price-refresher").daemon(true).start(() -> {
            synchronized (table) {
                holding.set(true);
                try {
                    OtherThread.awaitWaiting(reader, thread -> thread.getState() == Thread.State.BLOCKED);
                    TimeUnit.MILLISECONDS.sleep(HOLD_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                table.version++;
            }
        });
        while (!holding.get()) {
            Thread.onSpinWait(); // not a blocking call: only the monitor below is
        }
        synchronized (table) {
            if (table.version != 1) {
                throw new IllegalStateException("entered the monitor before " + refresher.getName() + " left it");
            }
        }
    }
}
