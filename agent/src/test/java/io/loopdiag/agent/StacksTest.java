package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StacksTest {
    private final Object monitor = new Object();

    /** The JDK's parking of a virtual thread is a switch; a monitor the application enters is not. */
    @Test
    void aVirtualThreadsParkIsASwitchAndItsWaitForAMonitorIsNot() throws Exception {
        Thread parked = Thread.ofVirtual().start(() -> LockSupport.park(monitor));
        try {
            awaitState(parked, Thread.State.WAITING);
            StackTraceElement[] frames = parked.getStackTrace();
            assertTrue(Stacks.isSwitchingThreads(frames[0]), Arrays.toString(frames));
        } finally {
            LockSupport.unpark(parked);
            parked.join();
        }

        Thread blocked;
        synchronized (monitor) {
            blocked = Thread.ofVirtual().start(this::enterTheMonitor);
            awaitState(blocked, Thread.State.BLOCKED);
            StackTraceElement[] frames = blocked.getStackTrace();
            assertFalse(Stacks.isSwitchingThreads(frames[0]), Arrays.toString(frames));
        }
        blocked.join();
    }

    private void enterTheMonitor() {
        synchronized (monitor) {
            monitor.notifyAll();
        }
    }

    private static void awaitState(Thread thread, Thread.State state) {
        while (thread.getState() != state) {
            Thread.onSpinWait();
        }
    }
}
