package io.loopdiag.apps;

import static io.loopdiag.loop.Async.asCompleted;
import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.gather;
import static io.loopdiag.loop.Async.shield;
import static io.loopdiag.loop.Async.sleep;
import static io.loopdiag.loop.Async.toThread;
import static io.loopdiag.loop.Async.waitFor;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.Async.ReturnWhen;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.LoopClock;
import io.loopdiag.loop.Task;
import io.loopdiag.loop.TaskGroup;
import io.loopdiag.loop.net.Server;
import io.loopdiag.loop.net.Streams;
import io.loopdiag.loop.sync.Condition;
import io.loopdiag.loop.sync.Lock;
import io.loopdiag.loop.sync.Queue;
import io.loopdiag.loop.sync.Semaphore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A service whose tasks wait in every way loop-core has, each relation of a dump's wait-for graph
 * once, for {@code loopdiag dump} and {@code pstree} to show:
 * <ul>
 *   <li>{@code checkout} awaits a gather of {@code price-quote} and {@code stock-check};</li>
 *   <li>{@code import-batch} waits for its task group's {@code import-file-1} and {@code import-file-2};</li>
 *   <li>{@code audit-flush} awaits a shield of {@code audit-write}; {@code report} a waitFor of {@code report-build};</li>
 *   <li>{@code first-reply} waits for the first of {@code replica-a} and {@code replica-b} to be done
 *       (with a timeout), {@code replies-in-order} for the next of them (asCompleted);</li>
 *   <li>a diamond, no cycle: {@code dashboard} and {@code alerts} both await {@code metrics};</li>
 *   <li>a lock deadlock: {@code transfer-a-to-b} holds account A's lock and waits for B's, which
 *       {@code transfer-b-to-a} holds while it waits for A's;</li>
 *   <li>{@code pool-user-1} and {@code pool-user-2} hold the connection pool's two permits;
 *       {@code pool-waiter} waits for one;</li>
 *   <li>{@code consumer} waits on a condition whose lock {@code producer} holds;</li>
 *   <li>{@code legacy-call} awaits {@code toThread} work stuck in {@code queryLegacySystem};</li>
 *   <li>{@code socket-reader} waits to read from a server that never writes;
 *       {@code queue-getter} waits on an empty queue.</li>
 * </ul>
 * Prints {@code wait-graph ready} once every task waits, then runs until killed.
 */
final class WaitGraph {
    static final String NAME = "wait-graph";
    static final String DESCRIPTION = "tasks waiting in every way: gather, wait, group, shield, locks (a deadlock), worker, I/O (kill it)";
    private static final Duration FOREVER = Duration.ofDays(1);

    private WaitGraph() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        CountDownLatch never = new CountDownLatch(1);
        try {
            loop.runUntilComplete(loop.createTask("main", () -> {
                Task<Void> price = createTask("price-quote", WaitGraph::sleepForever);
                Task<Void> stock = createTask("stock-check", WaitGraph::sleepForever);
                createTask("checkout", () -> await(gather(price, stock)));
                createTask("import-batch", () -> TaskGroup.run(group -> {
                    group.createTask("import-file-1", WaitGraph::sleepForever);
                    group.createTask("import-file-2", WaitGraph::sleepForever);
                    return null;
                }));
                Task<Void> auditWrite = createTask("audit-write", WaitGraph::sleepForever);
                createTask("audit-flush", () -> await(shield(auditWrite)));
                Task<Void> reportBuild = createTask("report-build", WaitGraph::sleepForever);
                createTask("report", () -> waitFor(reportBuild, FOREVER));
                Task<Void> replicaA = createTask("replica-a", WaitGraph::sleepForever);
                Task<Void> replicaB = createTask("replica-b", WaitGraph::sleepForever);
                createTask("first-reply", () -> Async.wait(List.of(replicaA, replicaB), ReturnWhen.FIRST_COMPLETED, Duration.ofHours(1)));
                createTask("replies-in-order", () -> {
                    for (Future<Void> next : asCompleted(List.of(replicaA, replicaB), null)) {
                        await(next);
                    }
                    return null;
                });
                Task<Void> metrics = createTask("metrics", WaitGraph::sleepForever);
                createTask("dashboard", () -> await(metrics));
                createTask("alerts", () -> await(metrics));

                Lock accountA = new Lock();
                Lock accountB = new Lock();
                createTask("transfer-a-to-b", () -> transfer(accountA, accountB));
                createTask("transfer-b-to-a", () -> transfer(accountB, accountA));

                Semaphore pool = new Semaphore(2);
                createTask("pool-user-1", () -> pool.withPermit(WaitGraph::sleepForever));
                createTask("pool-user-2", () -> pool.withPermit(WaitGraph::sleepForever));
                Condition restocked = new Condition();
                createTask("consumer", () -> restocked.withLock(() -> {
                    restocked.waitSignal();
                    return null;
                }));
                sleep(Duration.ofMillis(10)); // the holders hold, the consumer waits
                createTask("pool-waiter", () -> pool.withPermit(() -> null));
                createTask("producer", () -> restocked.withLock(WaitGraph::sleepForever));

                createTask("legacy-call", () -> toThread(() -> queryLegacySystem(never)));
                Server silent = Streams.startServer((reader, writer) -> sleepForever(), "127.0.0.1", 0);
                createTask("socket-reader", () -> Streams.openConnection("127.0.0.1", silent.port()).reader().read(1));
                Queue<String> orders = new Queue<>();
                createTask("queue-getter", orders::get);

                sleep(Duration.ofMillis(50)); // every task has reached its wait
                System.out.println(NAME + " ready");
                System.out.flush();
                return sleepForever();
            }));
        } finally {
            loop.close();
        }
        return Main.EXIT_FAILED; // not reached
    }

    /** Takes {@code from}'s lock, then {@code to}'s: two transfers in opposite directions deadlock. */
    private static Void transfer(Lock from, Lock to) throws Exception {
        return from.withLock(() -> {
            sleep(Duration.ofMillis(5)); // the other transfer takes its first lock meanwhile
            return to.withLock(() -> null);
        });
    }

    /** A call to a system that never answers, on a worker thread. */
    private static Void queryLegacySystem(CountDownLatch never) throws InterruptedException {
        never.await();
        return null;
    }

    private static Void sleepForever() throws Exception {
        sleep(FOREVER);
        return null;
    }
}
