package io.loopdiag.loop;

import static io.loopdiag.loop.Async.asCompleted;
import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Async.DoneAndPending;
import io.loopdiag.loop.Async.ReturnWhen;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Async.wait and Async.asCompleted, on virtual time, against asyncio's wait and as_completed. */
@Timeout(10)
class WaitTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final LoopClock.Virtual clock = test.clock;
    private final EventLoop loop = test.loop;

    private static Task<Integer> after(long millis, int value) {
        return createTask("after " + millis, () -> {
            sleep(Duration.ofMillis(millis));
            return value;
        });
    }

    private static Task<Integer> failingAfter(long millis) {
        return createTask("fails after " + millis, () -> {
            sleep(Duration.ofMillis(millis));
            throw new IllegalStateException("failed after " + millis);
        });
    }

    private long millis() {
        return Duration.ofNanos(clock.nanoTime()).toMillis();
    }

    @Test
    void allCompletedReturnsWhenTheLastIsDone() throws Exception {
        DoneAndPending<Task<Integer>> result = test.run(() -> Async.wait(List.of(after(30, 1), after(10, 2)), ReturnWhen.ALL_COMPLETED));
        assertEquals(2, result.done().size());
        assertEquals(Set.of(), result.pending());
        assertEquals(30, millis());
    }

    @Test
    void firstCompletedReturnsTheEarliestDoneAndTheRestPendingAndStillRunning() throws Exception {
        List<Task<Integer>> tasks = new ArrayList<>();
        DoneAndPending<Task<Integer>> result = test.run(() -> {
            tasks.add(after(30, 1));
            tasks.add(after(10, 2));
            tasks.add(after(20, 3));
            return Async.wait(tasks, ReturnWhen.FIRST_COMPLETED);
        });
        assertEquals(10, millis());
        assertEquals(Set.of(tasks.get(1)), result.done());
        assertEquals(List.of(tasks.get(0), tasks.get(2)), List.copyOf(result.pending()), "pending, in the order given");
        assertFalse(tasks.get(0).isCancelled(), "wait cancels nothing");
        loop.runUntilComplete(tasks.get(0));
        assertEquals(1, tasks.get(0).result());
    }

    @Test
    void firstExceptionReturnsAtTheFirstFailureAndLeavesItsExceptionToTheCaller() throws Exception {
        List<Task<Integer>> tasks = new ArrayList<>();
        DoneAndPending<Task<Integer>> result = test.run(() -> {
            tasks.add(after(10, 1));
            tasks.add(failingAfter(20));
            tasks.add(after(30, 3));
            return Async.wait(tasks, ReturnWhen.FIRST_EXCEPTION);
        });
        assertEquals(20, millis(), "a result at 10 ms does not end it; the failure at 20 ms does");
        assertEquals(List.of(tasks.get(0), tasks.get(1)), List.copyOf(result.done()));
        assertTrue(tasks.get(1).hasUnretrievedException(), "wait only looked at the failure");
        assertEquals("failed after 20", tasks.get(1).exception().getMessage());
    }

    @Test
    void firstExceptionWithoutAFailureIsAllCompleted() throws Exception {
        DoneAndPending<Task<Integer>> result = test.run(() -> {
            Task<Integer> cancelled = after(5, 0);
            loop.callLater(Duration.ofMillis(1), cancelled::cancel);
            return Async.wait(List.of(after(10, 1), cancelled, after(20, 2)), ReturnWhen.FIRST_EXCEPTION);
        });
        assertEquals(20, millis(), "a cancellation is not a failure");
        assertEquals(3, result.done().size());
    }

    @Test
    void aTimeoutReturnsWhatIsDoneSoFarWithoutRaisingOrCancelling() throws Exception {
        List<Task<Integer>> tasks = new ArrayList<>();
        DoneAndPending<Task<Integer>> result = test.run(() -> {
            tasks.add(after(10, 1));
            tasks.add(after(1_000, 2));
            return Async.wait(tasks, ReturnWhen.ALL_COMPLETED, Duration.ofMillis(100));
        });
        assertEquals(100, millis());
        assertEquals(Set.of(tasks.get(0)), result.done());
        assertEquals(Set.of(tasks.get(1)), result.pending());
        assertFalse(tasks.get(1).isDone());
    }

    @Test
    void futuresDoneAlreadyEndTheWaitInTheNextIteration() throws Exception {
        Future<String> done = loop.createFuture();
        done.setResult("ready");
        DoneAndPending<Future<String>> result = test.run(() -> Async.wait(List.of(done, loop.<String>createFuture()),
                ReturnWhen.FIRST_COMPLETED));
        assertEquals(Set.of(done), result.done());
        assertEquals(0, millis());
    }

    @Test
    void cancellingTheWaitingTaskLeavesTheFuturesRunning() throws Exception {
        List<Task<Integer>> tasks = new ArrayList<>();
        Task<Object> waiter = loop.createTask("waiter", () -> {
            tasks.add(after(1_000, 1));
            return Async.wait(tasks, ReturnWhen.ALL_COMPLETED);
        });
        loop.callLater(Duration.ofMillis(10), waiter::cancel);
        assertThrows(CancelledException.class, () -> loop.runUntilComplete(waiter));
        assertFalse(tasks.get(0).isDone());
        assertEquals(1, loop.runUntilComplete(tasks.get(0)));
    }

    @Test
    void waitRefusesNothingToWaitForAndAnotherLoopsFuture() throws Exception {
        try (EventLoop other = new EventLoop("other", LoopClock.virtual())) {
            Future<Object> foreign = other.createFuture();
            test.run(() -> {
                IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                        () -> Async.wait(List.<Future<?>>of(), ReturnWhen.ALL_COMPLETED));
                assertEquals("wait needs at least one future", empty.getMessage());
                IllegalArgumentException elsewhere = assertThrows(IllegalArgumentException.class,
                        () -> Async.wait(List.of(foreign), ReturnWhen.ALL_COMPLETED));
                assertTrue(elsewhere.getMessage().contains("belongs to event loop 'other'"), elsewhere.getMessage());
                return null;
            });
        }
        assertThrows(IllegalStateException.class, () -> Async.wait(List.of(loop.createFuture()), ReturnWhen.ALL_COMPLETED));
    }

    @Test
    void asCompletedGivesTheOutcomesInCompletionOrder() throws Exception {
        List<Object> seen = test.run(() -> {
            List<Object> outcomes = new ArrayList<>();
            for (Future<Integer> next : asCompleted(List.of(after(30, 1), failingAfter(10), after(20, 3), after(20, 3)), null)) {
                try {
                    outcomes.add(await(next) + " at " + millis());
                } catch (IllegalStateException e) {
                    outcomes.add(e.getMessage() + " at " + millis());
                }
            }
            return outcomes;
        });
        assertEquals(List.of("failed after 10 at 10", "3 at 20", "3 at 20", "1 at 30"), seen);
    }

    @Test
    void asCompletedTimesOutTheRestButLeavesTheFuturesRunning() throws Exception {
        List<Task<Integer>> tasks = new ArrayList<>();
        List<Object> seen = test.run(() -> {
            tasks.add(after(10, 1));
            tasks.add(after(1_000, 2));
            tasks.add(after(2_000, 3));
            List<Object> outcomes = new ArrayList<>();
            for (Future<Integer> next : asCompleted(tasks, Duration.ofMillis(100))) {
                try {
                    outcomes.add(await(next));
                } catch (TimeoutException e) {
                    outcomes.add("timeout at " + millis());
                }
            }
            return outcomes;
        });
        assertEquals(List.of(1, "timeout at 100", "timeout at 100"), seen);
        assertFalse(tasks.get(1).isDone() || tasks.get(2).isDone());
        assertEquals(2, loop.runUntilComplete(tasks.get(1)));
    }

    @Test
    void asCompletedPassesACancellationOnAndOfNothingGivesNothing() throws Exception {
        Future<String> future = loop.createFuture();
        List<Future<String>> slots = asCompleted(List.of(future), null);
        assertEquals(List.of(), asCompleted(List.<Future<String>>of(), null));
        future.cancel("gone");
        loop.runUntilComplete(loop.createTask("settle", () -> {
            sleep(Duration.ZERO);
            return null;
        }));
        assertTrue(slots.get(0).isCancelled());
        assertInstanceOf(CancelledException.class, assertThrows(CancelledException.class, () -> slots.get(0).result()));
    }
}
