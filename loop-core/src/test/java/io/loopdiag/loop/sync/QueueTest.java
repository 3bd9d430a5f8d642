package io.loopdiag.loop.sync;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.CancelledException;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import io.loopdiag.loop.Task;
import io.loopdiag.loop.TestLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class QueueTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final LoopClock.Virtual clock = test.clock;
    private final EventLoop loop = test.loop;

    /** Lets every ready task run until it suspends again. */
    @Test
    void itemsComeOutInTheOrderTheyWentIn() throws Exception {
        Queue<String> queue = new Queue<>();
        List<String> got = test.run(() -> {
            for (String item : List.of("a", "b", "c")) {
                queue.put(item);
            }
            return List.of(queue.get(), queue.get(), queue.get());
        });
        assertEquals(List.of("a", "b", "c"), got);
        assertTrue(queue.isEmpty());
        assertEquals(0, queue.maxSize());
        assertFalse(queue.isFull());
    }

    @Test
    void getSuspendsUntilAnItemIsPut() throws Exception {
        Queue<String> queue = new Queue<>();
        String got = test.run(() -> {
            Task<String> getter = createTask("getter", queue::get);
            sleep(Duration.ofMillis(100));
            assertFalse(getter.isDone());
            assertTrue(getter.isSuspended());
            queue.put("late");
            return await(getter);
        });
        assertEquals("late", got);
        assertEquals(Duration.ofMillis(100).toNanos(), clock.nanoTime());
    }

    @Test
    void waitingGettersAreServedInTheOrderTheyCame() throws Exception {
        Queue<Integer> queue = new Queue<>();
        List<String> served = new ArrayList<>();
        test.run(() -> {
            List<Task<Void>> getters = new ArrayList<>();
            for (String name : List.of("g1", "g2", "g3")) {
                getters.add(createTask(name, () -> {
                    served.add(name + "=" + queue.get());
                    return null;
                }));
            }
            TestLoop.settle();
            for (int i = 1; i <= 3; i++) {
                queue.putNowait(i);
            }
            for (Task<Void> getter : getters) {
                await(getter);
            }
            return null;
        });
        assertEquals(List.of("g1=1", "g2=2", "g3=3"), served);
    }

    @Test
    void boundedPutSuspendsWhileTheQueueIsFull() throws Exception {
        Queue<String> queue = new Queue<>(2);
        List<String> log = new ArrayList<>();
        test.run(() -> {
            Task<Void> producer = createTask("producer", () -> {
                for (String item : List.of("a", "b", "c")) {
                    queue.put(item);
                    log.add("put " + item);
                }
                return null;
            });
            TestLoop.settle();
            assertEquals(List.of("put a", "put b"), log);
            assertTrue(queue.isFull());
            assertFalse(producer.isDone());
            log.add("got " + queue.get());
            await(producer);
            return null;
        });
        assertEquals(List.of("put a", "put b", "got a", "put c"), log);
        assertEquals(2, queue.size());
        assertEquals(2, queue.maxSize());
    }

    @Test
    void nowaitMethodsThrowWhenFullOrEmpty() {
        Queue<String> queue = new Queue<>(1);
        assertThrows(QueueEmptyException.class, queue::getNowait);
        queue.putNowait("only");
        assertThrows(QueueFullException.class, () -> queue.putNowait("one too many"));
        assertEquals(1, queue.size());
        assertEquals("only", queue.getNowait());
        assertThrows(QueueEmptyException.class, queue::getNowait);
    }

    @Test
    void nullItemsAreRefused() {
        Queue<String> queue = new Queue<>();
        assertThrows(NullPointerException.class, () -> queue.putNowait(null));
        assertTrue(queue.isEmpty());
    }

    @Test
    void joinWaitsUntilEveryItemIsMarkedDone() throws Exception {
        Queue<Integer> queue = new Queue<>();
        List<String> log = new ArrayList<>();
        test.run(() -> {
            queue.put(1);
            queue.put(2);
            Task<Void> joiner = createTask("joiner", () -> {
                queue.join();
                log.add("joined");
                return null;
            });
            Task<Void> worker = createTask("worker", () -> {
                for (int i = 0; i < 2; i++) {
                    int item = queue.get();
                    sleep(Duration.ofMillis(10));
                    log.add("done " + item);
                    queue.taskDone();
                }
                return null;
            });
            await(joiner);
            await(worker);
            return null;
        });
        assertEquals(List.of("done 1", "done 2", "joined"), log);
        assertEquals(0, queue.unfinishedTasks());
    }

    @Test
    void joinReturnsAtOnceWhenNothingIsUnfinished() throws Exception {
        Queue<Integer> queue = new Queue<>();
        test.run(() -> {
            queue.join();
            return null;
        });
        assertEquals(0, clock.nanoTime());
    }

    @Test
    void taskDoneMoreOftenThanPutThrows() {
        Queue<Integer> queue = new Queue<>();
        queue.putNowait(1);
        queue.getNowait();
        queue.taskDone();
        assertThrows(IllegalStateException.class, queue::taskDone);
    }

    @Test
    void cancelledWaitingGetterLeavesTheItemToTheNextGetter() throws Exception {
        Queue<String> queue = new Queue<>();
        String got = test.run(() -> {
            Task<String> first = createTask("first", queue::get);
            Task<String> second = createTask("second", queue::get);
            TestLoop.settle();
            first.cancel();
            TestLoop.settle();
            assertTrue(first.isCancelled());
            queue.put("item");
            return await(second);
        });
        assertEquals("item", got);
        assertTrue(queue.isEmpty());
    }

    @Test
    void getterCancelledAfterBeingWokenPassesTheWakeUpOn() throws Exception {
        Queue<String> queue = new Queue<>();
        String got = test.run(() -> {
            Task<String> first = createTask("first", queue::get);
            Task<String> second = createTask("second", queue::get);
            TestLoop.settle();
            queue.putNowait("item"); // wakes first, which has not run yet...
            first.cancel(); // ...and is cancelled before it can take the item
            String result = await(second);
            assertThrows(CancelledException.class, () -> await(first));
            return result;
        });
        assertEquals("item", got);
        assertTrue(queue.isEmpty());
    }

    @Test
    void putterCancelledAfterBeingWokenPassesTheFreeSlotOn() throws Exception {
        Queue<String> queue = new Queue<>(1);
        test.run(() -> {
            queue.put("first");
            Task<Void> a = createTask("a", () -> {
                queue.put("a");
                return null;
            });
            Task<Void> b = createTask("b", () -> {
                queue.put("b");
                return null;
            });
            TestLoop.settle();
            assertEquals("first", queue.getNowait()); // wakes a, which has not run yet...
            a.cancel(); // ...and is cancelled before it can use the free slot
            await(b);
            assertTrue(a.isCancelled());
            return null;
        });
        assertEquals("b", queue.getNowait());
        assertTrue(queue.isEmpty());
    }

    @Test
    void aWaitingGetterShowsWhatItWaitsFor() throws Exception {
        Queue<String> queue = new Queue<>();
        test.run(() -> {
            Task<String> getter = createTask("getter", queue::get);
            TestLoop.settle();
            assertEquals("queue", getter.awaiting().awaitKind());
            assertEquals("queue get", getter.awaiting().awaitLabel());
            queue.put("x");
            assertEquals("x", await(getter));
            return null;
        });
    }

    @Test
    void getOutsideATaskIsRefused() {
        Queue<String> queue = new Queue<>();
        IllegalStateException outside = assertThrows(IllegalStateException.class, queue::get);
        assertTrue(outside.getMessage().startsWith("queue get "), outside.getMessage());
    }

    @Test
    void aQueueIsBoundToTheLoopOfTheFirstTaskThatWaits() throws Exception {
        Queue<String> queue = new Queue<>();
        @SuppressWarnings("unchecked") // a generic array to let the lambda below set it
        Task<String>[] getter = new Task[1];
        test.run(() -> {
            getter[0] = createTask("getter", queue::get);
            TestLoop.settle();
            return null;
        });
        try (EventLoop other = new EventLoop("other", LoopClock.virtual())) {
            IllegalStateException wrongLoop = assertThrows(IllegalStateException.class,
                    () -> other.runUntilComplete(other.createTask("stranger", queue::get)));
            assertTrue(wrongLoop.getMessage().contains("'test'"), wrongLoop.getMessage());
        }
        queue.putNowait("for the first loop");
        assertSame("for the first loop", loop.runUntilComplete(getter[0]));
    }

    @Test
    void getWithATimeoutGivesUpAndLeavesTheQueueUsable() throws Exception {
        Queue<String> queue = new Queue<>();
        String got = test.run(() -> {
            assertThrows(TimeoutException.class, () -> Async.timeout(Duration.ofMillis(5), queue::get));
            Task<String> getter = createTask("getter", queue::get);
            TestLoop.settle();
            queue.put("after the timeout");
            return await(getter);
        });
        assertEquals("after the timeout", got);
        assertEquals(Duration.ofMillis(5).toNanos(), clock.nanoTime());
    }

    @Test
    void anotherThreadCannotPutIntoAQueueBoundToARunningLoop() throws Exception {
        Queue<String> queue = new Queue<>();
        String outcome = test.run(() -> {
            Task<String> getter = createTask("getter", queue::get); // binds the queue to this loop
            sleep(Duration.ZERO);
            String refusal = Async.toThread(() -> {
                try {
                    queue.putNowait("from a worker");
                    return "accepted";
                } catch (IllegalStateException e) {
                    return e.getMessage();
                }
            });
            queue.putNowait("from the loop");
            return refusal + " / " + await(getter);
        });
        assertTrue(outcome.contains("callSoonThreadsafe"), outcome);
        assertTrue(outcome.endsWith(" / from the loop"), outcome);
    }
}
