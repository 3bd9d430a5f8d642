package io.loopdiag.apps;

import static io.loopdiag.apps.OtherThread.TIMEOUT_MILLIS;

/**
 * {@code Object.wait} on a monitor that another thread notifies, and {@code Thread.join} on a
 * platform thread that ends after a few milliseconds, each with and without a time-out.
 */
final class BlockingWait {
    static final String NAME = "blocking-wait";
    static final String DESCRIPTION = "Object.wait and Thread.join, with and without a time-out, in a task";

    private BlockingWait() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingWait::operations);
        return Main.done(NAME);
    }

    private static void operations() throws Exception {
        waitWithTimeout();
        waitUntilNotified();
        joinThread();
        joinThreadWithTimeout();
    }

    private static void waitWithTimeout() throws InterruptedException {
        Monitor monitor = Monitor.notifiedLater();
        synchronized (monitor) {
            while (!monitor.notified) {
                monitor.wait(TIMEOUT_MILLIS);
            }
        }
    }

    private static void waitUntilNotified() throws InterruptedException {
        Monitor monitor = Monitor.notifiedLater();
        synchronized (monitor) {
            while (!monitor.notified) {
                monitor.wait();
            }
        }
    }

    private static void joinThread() throws InterruptedException {
        OtherThread.after(() -> { }).join();
    }

    private static void joinThreadWithTimeout() throws InterruptedException {
        Thread ending = OtherThread.after(() -> { });
        ending.join(TIMEOUT_MILLIS);
        if (ending.isAlive()) {
            throw new IllegalStateException("the other thread did not end");
        }
    }

    /** A monitor that another thread notifies; the flag tells a notification from a spurious wake-up. */
    private static final class Monitor {
        private boolean notified; // guarded by this

        static Monitor notifiedLater() {
            Monitor monitor = new Monitor();
            OtherThread.after(() -> {
                synchronized (monitor) {
                    monitor.notified = true;
                    monitor.notifyAll();
                }
            });
            return monitor;
        }
    }
}
