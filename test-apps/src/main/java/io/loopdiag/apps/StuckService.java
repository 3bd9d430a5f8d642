package io.loopdiag.apps;

import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import io.loopdiag.loop.sync.Lock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * "Returns 200 but every request times out, CPU at 5%": a task that holds the cache's lock makes a
 * blocking call ({@code CompletableFuture.get} on a config fetch that never completes), so the
 * loop is stuck, and the {@value #REQUESTS} request handlers queued on the lock wait behind it.
 * On the way it also runs a 150 ms callback and drops a task that failed. Prints
 * {@code stuck-service ready} once the requests all wait, then stays stuck until killed. The demo
 * runs it.
 */
final class StuckService {
    static final String NAME = "stuck-service";
    static final String DESCRIPTION = "100 request tasks wait on a lock whose holder blocks the loop (kill it)";
    static final int REQUESTS = 100;

    private StuckService() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        EventLoop loop = new EventLoop(NAME, LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask("main", () -> {
                Async.loop().callSoon(StuckService::recomputePrices);
                createTask("send-receipt", StuckService::sendReceipt); // fails, and nobody looks
                Lock cache = new Lock();
                createTask("refresh-cache", () -> cache.withLock(() -> refreshCache(cache)));
                for (int i = 0; i < REQUESTS; i++) {
                    createTask("request-" + i, () -> cache.withLock(StuckService::handleRequest));
                }
                sleep(Duration.ofDays(1));
                return null;
            }));
        } finally {
            loop.close();
        }
        return Main.EXIT_FAILED; // not reached: the loop never gets past fetchConfigBlocking
    }

    /** Holds the lock: waits until every request queues on it, then blocks the whole loop. */
    private static Void refreshCache(Lock cache) throws Exception {
        while (cache.waiting() < REQUESTS) {
            sleep(Duration.ZERO);
        }
        System.out.println(NAME + " ready");
        System.out.flush();
        return fetchConfigBlocking(new CompletableFuture<>());
    }

    /** The bug: a blocking get on the loop, of a future nothing will ever complete. */
    private static Void fetchConfigBlocking(CompletableFuture<Void> config) throws Exception {
        return config.get();
    }

    private static Void handleRequest() {
        return null;
    }

    /** A slow callback: 150 ms of CPU on the loop. */
    private static void recomputePrices() {
        SlowCallback.busyWait(150);
    }

    private static Void sendReceipt() {
        throw new IllegalStateException("SMTP server refused the connection");
    }
}
