package io.loopdiag.loop;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the agent and the CLI see of a loop, taken from another thread while it runs. */
@Timeout(20)
class SnapshotTest {
    private final EventLoop loop = new EventLoop("snap", LoopClock.SYSTEM);

    @AfterEach
    void close() {
        if (!loop.isRunning()) {
            loop.close();
        }
    }

    /** Runs {@code body} as the main task and takes a snapshot from this test's thread once {@code ready} opens. */
    private LoopSnapshot snapshotWhile(Coroutine.Body<Void> setup, CountDownLatch ready, CountDownLatch release) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                loop.runUntilComplete(loop.createTask("main", setup));
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        runner.start();
        ready.await();
        LoopSnapshot snapshot = loop.snapshot(true);
        release.countDown();
        runner.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        return snapshot;
    }

    @Test
    void aSuspendedTaskShowsWhatItAwaitsAndWhere() throws Exception {
        CountDownLatch ready = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        LoopSnapshot snapshot = snapshotWhile(() -> {
            Task<Void> sleeper = Async.createTask("sleeper", () -> {
                sleepForAnHour();
                return null;
            });
            Task<Void> joiner = Async.createTask("joiner", () -> await(sleeper));
            sleep(Duration.ofMillis(1));
            Async.toThread(() -> {
                ready.countDown();
                release.await();
                return null;
            });
            sleeper.cancel();
            joiner.cancel();
            return null;
        }, ready, release);

        assertEquals("running", snapshot.state());
        LoopSnapshot.TaskSnapshot sleeper = find(snapshot, "sleeper");
        assertEquals("suspended", sleeper.state());
        assertEquals("timer", sleeper.awaiting().kind());
        long inAnHour = Duration.ofHours(1).toNanos();
        long untilDue = sleeper.awaiting().deadlineNanos() - snapshot.takenAtNanos();
        assertTrue(untilDue > inAnHour / 2 && untilDue <= inAnHour, "deadline an hour away, was " + untilDue);
        assertEquals("io.loopdiag.loop.Async", sleeper.stack().get(0).getClassName());
        assertEquals("sleep", sleeper.stack().get(0).getMethodName());
        assertEquals("sleepForAnHour", sleeper.stack().get(1).getMethodName());
        assertFalse(sleeper.stack().stream().anyMatch(f -> f.getMethodName().equals("runCoroutine")));

        LoopSnapshot.TaskSnapshot joiner = find(snapshot, "joiner");
        assertEquals("task", joiner.awaiting().kind());
        assertEquals(sleeper.id(), joiner.awaiting().taskId());
        assertEquals(-1, joiner.awaiting().deadlineNanos());

        LoopSnapshot.TaskSnapshot main = find(snapshot, "main");
        assertEquals("worker", main.awaiting().kind());
    }

    @Test
    void manyTasksComeInOrderEachWithItsOwnStack() throws Exception {
        int count = 2_500; // more than two chunks of stack walks, the last one partial
        CountDownLatch ready = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<Void> never = loop.createFuture();
        LoopSnapshot snapshot = snapshotWhile(() -> {
            List<Task<Void>> waiters = new java.util.ArrayList<>();
            for (int i = 0; i < count; i++) {
                waiters.add(Async.createTask("waiter-" + i, () -> awaitNever(never)));
            }
            sleep(Duration.ZERO);
            Async.toThread(() -> {
                ready.countDown();
                release.await();
                return null;
            });
            waiters.forEach(Task::cancel);
            return null;
        }, ready, release);

        List<LoopSnapshot.TaskSnapshot> waiters = snapshot.tasks().stream().filter(t -> t.name().startsWith("waiter-")).toList();
        assertEquals(count, waiters.size());
        for (int i = 0; i < count; i++) {
            LoopSnapshot.TaskSnapshot waiter = waiters.get(i);
            assertEquals("waiter-" + i, waiter.name(), "in creation order");
            assertEquals("awaitNever", waiter.stack().get(1).getMethodName(), "waiter-" + i + "'s own stack");
        }
    }

    private static Void awaitNever(Future<Void> never) throws Exception {
        return await(never);
    }

    private static void sleepForAnHour() throws Exception {
        sleep(Duration.ofHours(1));
    }

    @Test
    void aStuckCallbackIsShownWithTheLoopThreadsStack() throws Exception {
        CountDownLatch ready = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<LoopSnapshot> taken = new AtomicReference<>();
        loop.callSoon(() -> stuckInCallback(ready, release));
        loop.callSoon(loop::stop);
        Thread runner = new Thread(loop::runForever);
        runner.start();
        ready.await();
        taken.set(loop.snapshot(true));
        release.countDown();
        runner.join();

        LoopSnapshot.RunningCallback running = taken.get().running();
        assertNotNull(running);
        assertEquals(-1, running.taskId());
        assertTrue(running.description().contains("SnapshotTest"), running.description());
        assertTrue(running.stack().stream().anyMatch(f -> f.getMethodName().equals("stuckInCallback")));
        assertFalse(running.stack().stream().anyMatch(f -> f.getMethodName().equals("runOnce")));
    }

    private static void stuckInCallback(CountDownLatch ready, CountDownLatch release) {
        ready.countDown();
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void anIdleLoopHasNoRunningCallback() {
        loop.createTask("new", () -> null);
        LoopSnapshot snapshot = loop.snapshot(true);
        assertEquals("idle", snapshot.state());
        assertNull(snapshot.running());
        assertEquals(1, snapshot.readyCount());
        assertEquals("new", snapshot.tasks().get(0).state());
        assertEquals(List.of(), snapshot.tasks().get(0).stack());
    }

    @Test
    void theRegistriesKeepNeitherAnAbandonedTaskNorAnAbandonedLoopAlive() throws Exception {
        // A parked virtual thread is held by the JDK itself (jdk.trackAllThreads, on by default),
        // so the task tested here is one that never started, of a closed loop nobody holds: only
        // the JVM's registry of loops could keep the loop, and with it its table of tasks.
        WeakReference<Task<?>> task = abandonTask();
        WeakReference<EventLoop> otherLoop = new WeakReference<>(new EventLoop());
        for (int i = 0; i < 50 && (task.get() != null || otherLoop.get() != null); i++) {
            System.gc();
            Thread.sleep(10); // lets reference processing finish; bounded by the count, nothing asserted on time
        }
        assertNull(task.get(), "the task registry kept a task alive");
        assertNull(otherLoop.get(), "the loop registry kept a loop alive");
        assertTrue(EventLoop.allLoops().stream().noneMatch(l -> l != loop && l.name().equals("never")));
    }

    private WeakReference<Task<?>> abandonTask() {
        EventLoop doomed = new EventLoop("doomed", LoopClock.virtual());
        Task<Void> never = doomed.createTask("never", () -> null);
        assertEquals(List.of(never), doomed.allTasks());
        doomed.close(); // drops the ready queue, the only other holder of the task's first step
        return new WeakReference<>(never);
    }

    private static LoopSnapshot.TaskSnapshot find(LoopSnapshot snapshot, String name) {
        return snapshot.tasks().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no task " + name + " in " + snapshot.tasks()));
    }

    @Test
    void aStackWalkedInASuspensionServesTheNextSnapshotUntilTheTaskRunsAgain() throws Exception {
        io.loopdiag.loop.sync.Event first = new io.loopdiag.loop.sync.Event();
        io.loopdiag.loop.sync.Event second = new io.loopdiag.loop.sync.Event();
        CountDownLatch[] ready = {new CountDownLatch(1), new CountDownLatch(1)};
        CountDownLatch[] release = {new CountDownLatch(1), new CountDownLatch(1)};
        List<LoopSnapshot> taken = new java.util.ArrayList<>();
        Thread taker = new Thread(() -> {
            try {
                ready[0].await();
                taken.add(loop.snapshot(true));
                taken.add(loop.snapshot(true));
                release[0].countDown();
                ready[1].await();
                taken.add(loop.snapshot(true));
                release[1].countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        taker.start();
        loop.runUntilComplete(loop.createTask("main", () -> {
            Coroutine.Body<Void> body = () -> {
                waitAtFirst(first);
                waitAtSecond(second);
                return null;
            };
            Task<Void> a = Async.createTask("a", body);
            Task<Void> b = Async.createTask("b", body);
            sleep(Duration.ofMillis(1));
            Async.toThread(() -> phase(ready[0], release[0]));
            first.set();
            sleep(Duration.ofMillis(1));
            Async.toThread(() -> phase(ready[1], release[1]));
            a.cancel();
            b.cancel();
            return null;
        }));
        taker.join();

        List<StackTraceElement> atFirst = find(taken.get(0), "a").stack();
        assertTrue(atFirst.stream().anyMatch(f -> f.getMethodName().equals("waitAtFirst")), atFirst.toString());
        assertSame(atFirst, find(taken.get(0), "b").stack(), "tasks suspended at the same place share one stack");
        assertSame(atFirst, find(taken.get(1), "a").stack(), "the next snapshot did not walk it again");
        List<StackTraceElement> atSecond = find(taken.get(2), "a").stack();
        assertTrue(atSecond.stream().anyMatch(f -> f.getMethodName().equals("waitAtSecond")), atSecond.toString());
        assertFalse(atSecond.stream().anyMatch(f -> f.getMethodName().equals("waitAtFirst")), "the task ran: walked again");
    }

    private static Void phase(CountDownLatch ready, CountDownLatch release) throws InterruptedException {
        ready.countDown();
        release.await();
        return null;
    }

    private static void waitAtFirst(io.loopdiag.loop.sync.Event event) throws Exception {
        event.waitSet();
    }

    private static void waitAtSecond(io.loopdiag.loop.sync.Event event) throws Exception {
        event.waitSet();
    }
}
