package io.loopdiag.loop.sync;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Task;
import io.loopdiag.loop.TestLoop;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** LifoQueue, PriorityQueue and Queue.shutdown, against asyncio's (3.13). */
@Timeout(10)
class QueueKindsTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();

    private static <T> List<T> drain(Queue<T> queue) throws Exception {
        List<T> got = new ArrayList<>();
        while (!queue.isEmpty()) {
            got.add(queue.get());
        }
        return got;
    }

    @Test
    void aLifoQueueGivesTheLastPutFirst() throws Exception {
        LifoQueue<Integer> queue = new LifoQueue<>();
        assertEquals(List.of(3, 2, 1), test.run(() -> {
            for (int i = 1; i <= 3; i++) {
                queue.put(i);
            }
            return drain(queue);
        }));
    }

    @Test
    void aPriorityQueueGivesTheLeastFirstByNaturalOrderOrByItsComparator() throws Exception {
        PriorityQueue<Integer> natural = new PriorityQueue<>();
        PriorityQueue<String> byLength = new PriorityQueue<>(0, Comparator.comparingInt(String::length));
        test.run(() -> {
            for (int i : List.of(5, 1, 4, 2, 3)) {
                natural.put(i);
            }
            for (String s : List.of("ccc", "a", "bb")) {
                byLength.put(s);
            }
            assertEquals(List.of(1, 2, 3, 4, 5), drain(natural));
            assertEquals(List.of("a", "bb", "ccc"), drain(byLength));
            return null;
        });
    }

    @Test
    void aBoundedPriorityQueueMakesAPutterWaitAndAGetterTakesTheLeast() throws Exception {
        PriorityQueue<Integer> queue = new PriorityQueue<>(2, null);
        List<Integer> got = test.run(() -> {
            queue.put(9);
            queue.put(7);
            Task<Void> putter = createTask("putter", () -> {
                queue.put(1);
                return null;
            });
            TestLoop.settle();
            assertEquals(2, queue.size(), "full: the putter waits");
            List<Integer> taken = new ArrayList<>(List.of(queue.get()));
            await(putter);
            taken.addAll(drain(queue));
            return taken;
        });
        assertEquals(List.of(7, 1, 9), got);
    }

    @Test
    void afterShutdownPutsFailAtOnceAndGetsOnceTheQueueIsEmpty() throws Exception {
        Queue<String> queue = new Queue<>(1);
        List<Object> seen = test.run(() -> {
            queue.put("kept");
            Task<Void> blockedPutter = createTask("putter", () -> {
                queue.put("never");
                return null;
            });
            TestLoop.settle();
            queue.shutdown(false);
            List<Object> outcomes = new ArrayList<>();
            outcomes.add(assertThrows(QueueShutDownException.class, () -> await(blockedPutter)).getMessage());
            outcomes.add(assertThrows(QueueShutDownException.class, () -> queue.putNowait("late")).getMessage());
            outcomes.add(queue.get());
            outcomes.add(assertThrows(QueueShutDownException.class, queue::get).getMessage());
            outcomes.add(assertThrows(QueueShutDownException.class, queue::getNowait).getMessage());
            return outcomes;
        });
        assertEquals(List.of("queue is shut down: no more puts", "queue is shut down: no more puts", "kept",
                "queue is shut down and empty", "queue is shut down and empty"), seen);
        assertTrue(queue.isShutDown());
    }

    @Test
    void shutdownWakesTheWaitingGetters() throws Exception {
        Queue<String> queue = new Queue<>();
        List<Throwable> failures = test.run(() -> {
            Task<String> first = createTask("first", queue::get);
            Task<String> second = createTask("second", queue::get);
            TestLoop.settle();
            queue.shutdown(false);
            List<Throwable> outcomes = new ArrayList<>();
            for (Task<String> getter : List.of(first, second)) {
                outcomes.add(assertThrows(Exception.class, () -> await(getter)));
            }
            return outcomes;
        });
        failures.forEach(failure -> assertInstanceOf(QueueShutDownException.class, failure));
    }

    @Test
    void anImmediateShutdownDropsTheItemsAndReleasesJoin() throws Exception {
        Queue<String> queue = new Queue<>();
        String outcome = test.run(() -> {
            queue.put("a");
            queue.put("b");
            queue.get(); // taken, not marked done: still unfinished
            Task<Void> joiner = createTask("joiner", () -> {
                queue.join();
                return null;
            });
            TestLoop.settle();
            queue.shutdown(true);
            assertEquals(0, queue.size());
            assertEquals(1, queue.unfinishedTasks(), "the dropped item counts as done; the taken one is the taker's");
            queue.taskDone();
            await(joiner);
            return assertThrows(QueueShutDownException.class, queue::get).getMessage();
        });
        assertEquals("queue is shut down and empty", outcome);
    }
}
