package io.loopdiag.loop.sync;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.CancelledException;
import io.loopdiag.loop.Task;
import io.loopdiag.loop.TestLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class LockTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();

    @Test
    void waitersGetTheLockInTheOrderTheyAskedForIt() throws Exception {
        Lock lock = new Lock();
        List<String> order = new ArrayList<>();
        test.run(() -> {
            lock.acquire();
            List<Task<Void>> waiters = new ArrayList<>();
            for (String name : List.of("a", "b", "c")) {
                waiters.add(createTask(name, () -> lock.withLock(() -> {
                    order.add(name);
                    sleep(Duration.ofMillis(1));
                    return null;
                })));
            }
            TestLoop.settle();
            assertEquals(3, lock.waiting());
            assertEquals("lock acquire", waiters.get(0).awaiting().awaitLabel());
            lock.release();
            // Asking again at once, before any waiter has run, must not overtake them.
            lock.withLock(() -> order.add("late"));
            for (Task<Void> waiter : waiters) {
                await(waiter);
            }
            return null;
        });
        assertEquals(List.of("a", "b", "c", "late"), order);
        assertFalse(lock.isLocked());
    }

    @Test
    void withLockHoldsTheLockOnlyWhileTheBodyRunsEvenIfItThrows() throws Exception {
        Lock lock = new Lock();
        test.run(() -> {
            assertThrows(IllegalArgumentException.class, () -> lock.withLock(() -> {
                assertTrue(lock.isLocked());
                throw new IllegalArgumentException("boom");
            }));
            assertFalse(lock.isLocked());
            return null;
        });
    }

    @Test
    void releaseOfAnUnlockedLockThrows() {
        Lock lock = new Lock();
        assertThrows(IllegalStateException.class, lock::release);
        assertFalse(lock.isLocked());
    }

    @Test
    void aCancelledWaiterLeavesTheLockToTheNextOne() throws Exception {
        Lock lock = new Lock();
        test.run(() -> {
            lock.acquire();
            Task<Void> cancelled = createTask("cancelled", () -> lock.withLock(() -> null));
            Task<String> next = createTask("next", () -> lock.withLock(() -> "got it"));
            TestLoop.settle();
            cancelled.cancel();
            TestLoop.settle();
            assertEquals(1, lock.waiting());
            lock.release();
            assertEquals("got it", await(next));
            assertThrows(CancelledException.class, () -> await(cancelled));
            return null;
        });
        assertFalse(lock.isLocked());
    }

    @Test
    void aWaiterCancelledAfterTheHandOffPassesTheLockOn() throws Exception {
        Lock lock = new Lock();
        test.run(() -> {
            lock.acquire();
            Task<Void> first = createTask("first", () -> lock.withLock(() -> null));
            Task<String> second = createTask("second", () -> lock.withLock(() -> "second ran"));
            TestLoop.settle();
            lock.release(); // hands the lock to first, which has not run yet...
            assertTrue(lock.isLocked());
            first.cancel(); // ...and is cancelled before it can use it
            assertEquals("second ran", await(second));
            assertTrue(first.isCancelled());
            return null;
        });
        assertFalse(lock.isLocked());
        assertEquals(0, lock.waiting());
    }

    @Test
    void aLockCanBeAcquiredAgainAfterACancelledAcquire() throws Exception {
        Lock lock = new Lock();
        test.run(() -> {
            lock.acquire();
            Task<Void> cancelled = createTask("cancelled", () -> {
                lock.acquire();
                return null;
            });
            TestLoop.settle();
            cancelled.cancel();
            TestLoop.settle();
            lock.release();
            assertFalse(lock.isLocked());
            lock.acquire();
            assertTrue(lock.isLocked());
            lock.release();
            return null;
        });
    }

    @Test
    void aTaskAlreadyCancelledWhenItWaitsForTheLockNeverGetsIt() throws Exception {
        Lock lock = new Lock();
        test.run(() -> {
            lock.acquire();
            Task<Void> doomed = createTask("doomed", () -> {
                Task.current().cancel(); // pending cancellation: thrown at the first suspension
                lock.acquire();
                return null;
            });
            assertThrows(CancelledException.class, () -> await(doomed));
            assertEquals(0, lock.waiting());
            lock.release();
            return null;
        });
        assertFalse(lock.isLocked());
    }
}
