package io.loopdiag.loop;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.gather;
import static io.loopdiag.loop.Async.shield;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.net.DatagramEndpoint;
import io.loopdiag.loop.net.Datagrams;
import io.loopdiag.loop.net.Server;
import io.loopdiag.loop.net.Streams;
import io.loopdiag.loop.net.Subprocess;
import io.loopdiag.loop.sync.Condition;
import io.loopdiag.loop.sync.Lock;
import io.loopdiag.loop.sync.Queue;
import io.loopdiag.loop.sync.Semaphore;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a snapshot says a task waits on, for every relation a dump follows: the tasks behind a
 * gather, a task group, a shield, a lock, a semaphore and a condition; the worker thread of
 * {@code toThread} with its live stack; a queue's size; the direction and channel of I/O.
 */
@Timeout(20)
class WaitsOnTest {
    private final EventLoop loop = new EventLoop("waits", LoopClock.SYSTEM);
    private LoopSnapshot snapshot;

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        if (!loop.isRunning()) {
            loop.close();
        }
    }

    /**
     * Runs {@code setup} in the main task, which then waits in a worker thread (the worker relation)
     * while this test takes the snapshot; afterwards every task left is cancelled.
     */
    private void snapshotAfter(Coroutine.Body<Void> setup) throws Exception {
        CountDownLatch ready = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Task<Void> main = loop.createTask("main", () -> {
            setup.call();
            untilEveryOtherTaskWaits();
            Async.toThread(() -> waitInWorker(ready, release));
            for (Task<?> task : loop.allTasks()) {
                if (task != Task.current()) {
                    task.cancel();
                }
            }
            return null;
        });
        Thread runner = new Thread(() -> {
            try {
                loop.runUntilComplete(main);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        runner.start();
        ready.await();
        while (!main.isSuspended()) { // the worker may be running before main has parked at its await
            Thread.sleep(1);
        }
        snapshot = loop.snapshot(true);
        release.countDown();
        runner.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    /** Yields until every task but the caller is suspended or done: each yield lets the tasks the last ones made run a step. */
    private void untilEveryOtherTaskWaits() throws Exception {
        while (loop.allTasks().stream().anyMatch(task -> task != Task.current() && !task.isSuspended() && !task.isDone())) {
            sleep(Duration.ZERO);
        }
    }

    private static Void waitInWorker(CountDownLatch ready, CountDownLatch release) throws InterruptedException {
        ready.countDown();
        release.await();
        return null;
    }

    private static Void sleepForAnHour() throws Exception {
        sleep(Duration.ofHours(1));
        return null;
    }

    private LoopSnapshot.TaskSnapshot task(String name) {
        return snapshot.tasks().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no task " + name + " in " + snapshot.tasks()));
    }

    private long id(String name) {
        return task(name).id();
    }

    private LoopSnapshot.Awaiting awaiting(String name) {
        LoopSnapshot.Awaiting awaiting = task(name).awaiting();
        assertNotNull(awaiting, name + " waits for nothing");
        return awaiting;
    }

    @Test
    void aGatherAGroupAndAShieldWaitOnTheTasksBehindThem() throws Exception {
        snapshotAfter(() -> {
            Task<Void> a = createTask("a", WaitsOnTest::sleepForAnHour);
            Task<Void> b = createTask("b", WaitsOnTest::sleepForAnHour);
            Future<Void> timer = loop.createFuture();
            createTask("gatherer", () -> await(gather(a, b, timer)));
            createTask("grouper", () -> TaskGroup.run(group -> {
                group.createTask("child", WaitsOnTest::sleepForAnHour);
                return null;
            }));
            Task<Void> inner = createTask("inner", WaitsOnTest::sleepForAnHour);
            createTask("shielder", () -> await(shield(inner)));
            createTask("nested", () -> await(shield(gather(a, inner))));
            createTask("joiner", () -> await(a));
            return null;
        });
        assertEquals("gather", awaiting("gatherer").kind());
        assertEquals(List.of(id("a"), id("b")), awaiting("gatherer").waitsOn(), "the tasks among the gathered futures");
        assertEquals("group", awaiting("grouper").kind());
        assertEquals(List.of(id("child")), awaiting("grouper").waitsOn());
        assertEquals("shield", awaiting("shielder").kind());
        assertEquals(List.of(id("inner")), awaiting("shielder").waitsOn());
        assertEquals(List.of(id("a"), id("inner")), awaiting("nested").waitsOn(), "through a shield of a gather");
        assertEquals(List.of(id("a")), awaiting("joiner").waitsOn());
        assertEquals(id("a"), awaiting("joiner").taskId());
        assertEquals(List.of(), awaiting("a").waitsOn(), "a timer: no task ends it");
    }

    @Test
    void aWaitAndAnAsCompletedWaitOnTheTasksAmongTheirFuturesThatStillRun() throws Exception {
        snapshotAfter(() -> {
            Task<Void> a = createTask("a", WaitsOnTest::sleepForAnHour);
            Task<Void> b = createTask("b", WaitsOnTest::sleepForAnHour);
            Task<Void> quick = createTask("quick", () -> null);
            Future<Void> plain = loop.createFuture();
            createTask("waiter", () -> Async.wait(List.of(a, plain, b), Async.ReturnWhen.FIRST_COMPLETED, Duration.ofHours(2)));
            createTask("earliest", () -> {
                for (Future<Void> next : Async.asCompleted(List.of(quick, b, plain), null)) {
                    await(next);
                }
                return null;
            });
            return null;
        });
        LoopSnapshot.Awaiting waiter = awaiting("waiter");
        assertEquals("wait", waiter.kind());
        assertEquals("wait for the first of 3", waiter.description());
        assertEquals(List.of(id("a"), id("b")), waiter.waitsOn());
        long dueIn = waiter.deadlineNanos() - snapshot.takenAtNanos();
        assertTrue(dueIn > Duration.ofMinutes(119).toNanos() && dueIn <= Duration.ofHours(2).toNanos(), "its timeout's deadline: " + dueIn);
        LoopSnapshot.Awaiting earliest = awaiting("earliest");
        assertEquals("as-completed", earliest.kind());
        assertEquals("as completed: 2 of 3", earliest.description(), "the first came from 'quick'");
        assertEquals(List.of(id("b")), earliest.waitsOn());
    }

    @Test
    void aBarrierWaitHasNoTaskBehindItAndAPriorityQueueIsAQueue() throws Exception {
        io.loopdiag.loop.sync.Barrier barrier = new io.loopdiag.loop.sync.Barrier(3);
        io.loopdiag.loop.sync.PriorityQueue<Integer> urgent = new io.loopdiag.loop.sync.PriorityQueue<>();
        snapshotAfter(() -> {
            createTask("arrived", barrier::await);
            createTask("urgent-getter", urgent::get);
            return null;
        });
        assertEquals("barrier", awaiting("arrived").kind());
        assertEquals("await (3 parties)", awaiting("arrived").description());
        assertEquals(List.of(), awaiting("arrived").waitsOn(), "the missing parties are not known");
        assertEquals("queue", awaiting("urgent-getter").kind());
        assertEquals(0, awaiting("urgent-getter").size());
    }

    @Test
    void aLockASemaphoreAndAConditionWaitOnTheirHolders() throws Exception {
        Lock lock = new Lock();
        Semaphore semaphore = new Semaphore(2);
        Condition condition = new Condition();
        snapshotAfter(() -> {
            createTask("holder", () -> lock.withLock(WaitsOnTest::sleepForAnHour));
            createTask("permit-1", () -> semaphore.withPermit(WaitsOnTest::sleepForAnHour));
            createTask("permit-2", () -> semaphore.withPermit(WaitsOnTest::sleepForAnHour));
            createTask("notified", () -> condition.withLock(() -> {
                condition.waitSignal();
                return null;
            }));
            untilEveryOtherTaskWaits(); // the holders hold, the condition's waiter waits
            createTask("locker", () -> lock.withLock(() -> null));
            createTask("permit-3", () -> semaphore.withPermit(() -> null));
            createTask("notifier", () -> condition.withLock(WaitsOnTest::sleepForAnHour));
            return null;
        });
        assertEquals("lock", awaiting("locker").kind());
        assertEquals(List.of(id("holder")), awaiting("locker").waitsOn());
        assertEquals("semaphore", awaiting("permit-3").kind());
        assertEquals(List.of(id("permit-1"), id("permit-2")), awaiting("permit-3").waitsOn());
        assertEquals("condition", awaiting("notified").kind());
        assertEquals(List.of(id("notifier")), awaiting("notified").waitsOn(), "the task holding the condition's lock now");
    }

    @Test
    void aWorkerAQueueAndIoSayWhoWhatAndWhere() throws Exception {
        Queue<String> queue = new Queue<>();
        snapshotAfter(() -> {
            createTask("getter", queue::get);
            createTask("reader", () -> {
                Server server = Streams.startServer((reader, writer) -> sleepForAnHour(), "127.0.0.1", 0);
                return Streams.openConnection("127.0.0.1", server.port()).reader().read(1);
            });
            return null;
        });
        assertEquals("queue", awaiting("getter").kind());
        assertEquals(0, awaiting("getter").size());
        assertEquals(List.of(), awaiting("getter").waitsOn());

        LoopSnapshot.Awaiting io = awaiting("reader");
        assertEquals("io", io.kind());
        assertEquals("read", io.io().direction());
        assertTrue(io.io().channel().startsWith("/127.0.0.1:"), io.io().channel());
        assertEquals(io.io().toString(), io.description());

        LoopSnapshot.Awaiting worker = awaiting("main");
        assertEquals("worker", worker.kind());
        assertNotNull(worker.worker(), "the worker thread running the call");
        assertTrue(worker.worker().name().startsWith("loopdiag-worker-waits-"), worker.worker().name());
        assertEquals("WAITING", worker.worker().state());
        assertTrue(worker.worker().stack().stream().anyMatch(frame -> frame.getMethodName().equals("waitInWorker")),
                "its live stack: " + worker.worker().stack());
        assertNull(awaiting("getter").worker());
    }

    @Test
    void aProcessWaitAndAReadOfItsOutputNameThePidAndTheCommand() throws Exception {
        AtomicReference<Subprocess> sleeper = new AtomicReference<>();
        try {
            snapshotAfter(() -> {
                sleeper.set(Subprocess.create("sleep", "600"));
                createTask("waiter", sleeper.get()::waitFor);
                createTask("output", () -> sleeper.get().stdout().read(1));
                return null;
            });
        } finally {
            sleeper.get().process().destroyForcibly();
        }
        String process = "pid " + sleeper.get().pid() + " (sleep 600)";
        assertEquals("process", awaiting("waiter").kind());
        assertEquals(process, awaiting("waiter").description());
        assertEquals(List.of(), awaiting("waiter").waitsOn(), "no task is behind a process");
        assertEquals("io", awaiting("output").kind());
        assertEquals("read stdout of " + process, awaiting("output").description());
    }

    @Test
    void aReadOnAUnixConnectionWaitsOnTheSocketsPath() throws Exception {
        Path socket = dir.resolve("waits.sock");
        snapshotAfter(() -> {
            Streams.startUnixServer((reader, writer) -> sleepForAnHour(), socket);
            createTask("unix-reader", () -> Streams.openUnixConnection(socket).reader().read(1));
            return null;
        });
        LoopSnapshot.Awaiting io = awaiting("unix-reader");
        assertEquals("io", io.kind());
        assertEquals(new IoWait("read", socket.toString()), io.io());
        assertEquals("read " + socket, io.description());
    }

    @Test
    void aDatagramReceiveWaitsOnARecvfromAtTheEndpointsLocalAddress() throws Exception {
        AtomicReference<SocketAddress> local = new AtomicReference<>();
        snapshotAfter(() -> {
            DatagramEndpoint endpoint = Datagrams.open(new InetSocketAddress("127.0.0.1", 0), null);
            local.set(endpoint.localAddress());
            createTask("udp-receiver", () -> {
                try {
                    return endpoint.receive();
                } finally {
                    endpoint.close();
                }
            });
            return null;
        });
        LoopSnapshot.Awaiting io = awaiting("udp-receiver");
        assertEquals("io", io.kind());
        assertEquals(new IoWait("recvfrom", String.valueOf(local.get())), io.io());
        assertEquals("recvfrom " + local.get(), io.description());
        assertEquals(List.of(), io.waitsOn(), "no task can end a wait for the network");
    }
}
