package io.loopdiag.loop.sync;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.LoopClock;
import io.loopdiag.loop.Task;
import io.loopdiag.loop.TestLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SemaphoreTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final LoopClock.Virtual clock = test.clock;

    @Test
    void atMostPermitsTasksHoldItAtOnce() throws Exception {
        Semaphore semaphore = new Semaphore(2);
        int[] holding = {0};
        int[] mostHolding = {0};
        test.run(() -> {
            List<Task<Void>> workers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                workers.add(createTask("worker" + i, () -> semaphore.withPermit(() -> {
                    holding[0]++;
                    mostHolding[0] = Math.max(mostHolding[0], holding[0]);
                    sleep(Duration.ofMillis(10));
                    holding[0]--;
                    return null;
                })));
            }
            for (Task<Void> worker : workers) {
                await(worker);
            }
            return null;
        });
        assertEquals(2, mostHolding[0]);
        assertEquals(Duration.ofMillis(30).toNanos(), clock.nanoTime()); // 5 workers, 2 at a time
        assertEquals(2, semaphore.available());
    }

    @Test
    void acquireCountsPermitsDownAndReleaseCountsThemUp() throws Exception {
        Semaphore semaphore = new Semaphore(2);
        test.run(() -> {
            semaphore.acquire();
            assertEquals(1, semaphore.available());
            assertFalse(semaphore.isLocked());
            semaphore.acquire();
            assertTrue(semaphore.isLocked());
            Task<Void> waiter = createTask("waiter", () -> {
                semaphore.acquire();
                return null;
            });
            TestLoop.settle();
            assertFalse(waiter.isDone());
            assertEquals("semaphore acquire", waiter.awaiting().awaitLabel());
            semaphore.release(); // handed to the waiter: the count stays at 0
            assertEquals(0, semaphore.available());
            await(waiter);
            semaphore.release();
            semaphore.release();
            return null;
        });
        assertEquals(2, semaphore.available());
    }

    @Test
    void anUnboundedSemaphoreMayBeReleasedBeyondItsInitialValue() {
        Semaphore semaphore = new Semaphore(1);
        semaphore.release();
        assertEquals(2, semaphore.available());
    }

    @Test
    void aBoundedSemaphoreThrowsWhenReleasedMoreThanAcquired() throws Exception {
        Semaphore semaphore = Semaphore.bounded(1);
        assertTrue(semaphore.isBounded());
        assertThrows(IllegalStateException.class, semaphore::release);
        test.run(() -> {
            semaphore.acquire();
            semaphore.release();
            return null;
        });
        assertThrows(IllegalStateException.class, semaphore::release);
        assertEquals(1, semaphore.available());
    }

    @Test
    void aWaiterCancelledAfterThePermitWasHandedToItPassesThePermitOn() throws Exception {
        Semaphore semaphore = Semaphore.bounded(1);
        test.run(() -> {
            semaphore.acquire();
            Task<Void> first = createTask("first", () -> semaphore.withPermit(() -> null));
            Task<String> second = createTask("second", () -> semaphore.withPermit(() -> "second ran"));
            TestLoop.settle();
            semaphore.release(); // hands the permit to first, which has not run yet...
            first.cancel(); // ...and is cancelled before it can use it
            assertEquals("second ran", await(second));
            assertTrue(first.isCancelled());
            return null;
        });
        assertEquals(1, semaphore.available());
        assertEquals(0, semaphore.waiting());
    }

    @Test
    void negativePermitsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Semaphore(-1));
    }

    @Test
    void aReleasedPermitGoesToTheWaiterNotToANewcomer() throws Exception {
        Semaphore semaphore = new Semaphore(1);
        List<String> order = new ArrayList<>();
        test.run(() -> {
            semaphore.acquire();
            Task<Void> waiter = createTask("waiter", () -> semaphore.withPermit(() -> {
                order.add("waiter");
                return null;
            }));
            TestLoop.settle();
            semaphore.release(); // the permit is the waiter's now, though it has not run yet
            semaphore.withPermit(() -> order.add("newcomer")); // so this waits behind it
            await(waiter);
            return null;
        });
        assertEquals(List.of("waiter", "newcomer"), order);
        assertEquals(1, semaphore.available());
    }
}
