package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The JDK's thread snapshot gives the dump the frames {@link Thread#getStackTrace} gives. */
class ThreadStacksTest {
    private static volatile boolean release;

    @BeforeAll
    static void lookUp() {
        assumeTrue(Runtime.version().feature() >= 25, "the JDK's thread snapshot came with JDK 25");
        ThreadStacks.lookUp(); // the build opens jdk.internal.vm to this module, as the agent does at install
        assertTrue(ThreadStacks.snapshots(), "the JDK's thread snapshot was not found");
    }

    @Test
    void aParkedVirtualThreadHasItsFrames() throws Exception {
        CountDownLatch parking = new CountDownLatch(1);
        Thread parked = Thread.ofVirtual().start(() -> outer(parking));
        try {
            parking.await();
            while (parked.getState() != Thread.State.WAITING) {
                Thread.onSpinWait();
            }
            StackTraceElement[] taken = ThreadStacks.of(parked);
            assertArrayEquals(parked.getStackTrace(), taken);
            assertTrue(taken.length > 3 && taken[0].getMethodName().equals("park"), () -> java.util.Arrays.toString(taken));
        } finally {
            release = true;
            LockSupport.unpark(parked);
            parked.join();
        }
    }

    @Test
    void anEndedThreadHasNone() throws Exception {
        Thread ended = Thread.ofVirtual().start(() -> { });
        ended.join();
        assertEquals(0, ThreadStacks.of(ended).length);
    }

    private static void outer(CountDownLatch parking) {
        middle(parking);
    }

    private static void middle(CountDownLatch parking) {
        parking.countDown();
        while (!release) {
            LockSupport.park();
        }
    }
}
