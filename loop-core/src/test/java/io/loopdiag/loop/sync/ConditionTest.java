package io.loopdiag.loop.sync;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
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
class ConditionTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();

    /** Starts a task that waits on {@code condition} once and logs its name when woken. */
    private static Task<Void> waiter(Condition condition, String name, List<String> woken) {
        return createTask(name, () -> condition.withLock(() -> {
            condition.waitSignal();
            assertTrue(condition.isLocked());
            woken.add(name);
            return null;
        }));
    }

    @Test
    void notifyOneWakesOnlyTheLongestWaitingTask() throws Exception {
        Condition condition = new Condition();
        List<String> woken = new ArrayList<>();
        test.run(() -> {
            Task<Void> a = waiter(condition, "a", woken);
            Task<Void> b = waiter(condition, "b", woken);
            TestLoop.settle();
            assertEquals(2, condition.waiting());
            assertFalse(condition.isLocked()); // both released it to wait
            assertEquals("condition wait", a.awaiting().awaitLabel());
            condition.withLock(() -> condition.notify(1));
            await(a);
            TestLoop.settle();
            assertEquals(List.of("a"), woken);
            assertFalse(b.isDone());
            condition.withLock(() -> condition.notify(1));
            await(b);
            return null;
        });
        assertEquals(List.of("a", "b"), woken);
    }

    @Test
    void notifyAllWaitersWakesEveryWaitingTask() throws Exception {
        Condition condition = new Condition();
        List<String> woken = new ArrayList<>();
        test.run(() -> {
            List<Task<Void>> waiters = List.of(waiter(condition, "a", woken), waiter(condition, "b", woken),
                    waiter(condition, "c", woken));
            TestLoop.settle();
            int count = condition.withLock(condition::notifyAllWaiters);
            assertEquals(3, count);
            for (Task<Void> waiter : waiters) {
                await(waiter);
            }
            return null;
        });
        assertEquals(List.of("a", "b", "c"), woken);
        assertFalse(condition.isLocked());
    }

    @Test
    void waitForReturnsOnceThePredicateHolds() throws Exception {
        Condition condition = new Condition();
        int[] counter = {0};
        List<Integer> seenAt = new ArrayList<>();
        test.run(() -> {
            Task<Void> watcher = createTask("watcher", () -> condition.withLock(() -> {
                condition.waitFor(() -> {
                    seenAt.add(counter[0]);
                    return counter[0] >= 3;
                });
                return null;
            }));
            for (int i = 0; i < 3; i++) {
                sleep(Duration.ofMillis(1));
                condition.withLock(() -> {
                    counter[0]++;
                    return condition.notifyAllWaiters();
                });
            }
            await(watcher);
            return null;
        });
        assertEquals(List.of(0, 1, 2, 3), seenAt);
    }

    @Test
    void waitAndNotifyWithoutTheLockThrow() throws Exception {
        Condition condition = new Condition();
        assertThrows(IllegalStateException.class, () -> condition.notify(1));
        test.run(() -> {
            assertThrows(IllegalStateException.class, condition::waitSignal);
            return null;
        });
    }

    @Test
    void aCancelledWaitReacquiresTheLockBeforeThrowing() throws Exception {
        Lock lock = new Lock();
        Condition condition = new Condition(lock);
        assertSame(lock, condition.lock());
        boolean[] heldWhenCancelled = {false};
        test.run(() -> {
            Task<Void> waiting = createTask("waiting", () -> condition.withLock(() -> {
                try {
                    condition.waitSignal();
                } catch (CancelledException e) {
                    heldWhenCancelled[0] = lock.isLocked();
                    throw e;
                }
                return null;
            }));
            TestLoop.settle();
            lock.acquire(); // the waiter must wait for the lock to come back to it
            waiting.cancel();
            TestLoop.settle();
            assertFalse(waiting.isDone());
            lock.release();
            assertThrows(CancelledException.class, () -> await(waiting));
            return null;
        });
        assertTrue(heldWhenCancelled[0]);
        assertFalse(lock.isLocked()); // withLock released it on the way out
        assertEquals(0, condition.waiting());
    }

    @Test
    void aNotifiedWaiterThatIsCancelledPassesTheNotificationOn() throws Exception {
        Condition condition = new Condition();
        List<String> woken = new ArrayList<>();
        test.run(() -> {
            Task<Void> a = waiter(condition, "a", woken);
            Task<Void> b = waiter(condition, "b", woken);
            TestLoop.settle();
            condition.withLock(() -> condition.notify(1)); // notifies a, which has not run yet...
            a.cancel(); // ...and is cancelled before it can act on it
            await(b);
            assertThrows(CancelledException.class, () -> await(a));
            return null;
        });
        assertEquals(List.of("b"), woken);
        assertFalse(condition.isLocked());
    }

    @Test
    void aWaitCancelledAgainWhileReacquiringStillEndsWithTheLockHeld() throws Exception {
        Condition condition = new Condition();
        boolean[] heldWhenCancelled = {false};
        test.run(() -> {
            Task<Void> waiting = createTask("waiting", () -> condition.withLock(() -> {
                try {
                    condition.waitSignal();
                } catch (CancelledException e) {
                    heldWhenCancelled[0] = condition.isLocked();
                    throw e;
                }
                return null;
            }));
            TestLoop.settle();
            condition.acquire();
            waiting.cancel(); // cancels the wait for a notification...
            TestLoop.settle();
            waiting.cancel(); // ...and then the wait for the lock
            TestLoop.settle();
            assertFalse(waiting.isDone());
            assertEquals(1, condition.lock().waiting());
            condition.release();
            assertThrows(CancelledException.class, () -> await(waiting));
            return null;
        });
        assertTrue(heldWhenCancelled[0]);
        assertFalse(condition.isLocked());
    }
}
