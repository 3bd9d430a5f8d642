package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code many-tasks [--tasks N]}: N tasks (100,000 unless told) suspended three calls deep on a
 * future nobody completes, for timing a dump. A 1 ms timer measures how late the loop runs it;
 * each line read on stdin is answered with {@code worst-stall-ms X}, the worst lateness since
 * the previous line, so a benchmark can ask before and after a dump. The line {@code walk} is
 * answered with {@code walked-ms X cpu-ms Y frames Z}: the JDK's walk of every task's stack
 * ({@code Thread.getStackTrace}), on the one thread reading stdin, the floor under a dump. Prints
 * {@code many-tasks ready} once every task is suspended; serves until killed.
 */
final class ManyTasks {
    static final String NAME = "many-tasks";
    static final String DESCRIPTION = "N tasks (--tasks N, default 100000) suspended 3 deep; stdin line -> worst loop stall";
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final AtomicLong worstLateNanos = new AtomicLong();

    private ManyTasks() {
    }

    static int main(String[] args) throws Exception {
        int tasks = 100_000;
        if (args.length > 0 && args[0].equals("--tasks") && args.length <= 2) {
            tasks = (int) Main.parseNumber(args, 0, 1, 10_000_000);
        } else if (args.length != 0) {
            throw new IllegalArgumentException("usage: " + NAME + " [--tasks N]");
        }
        int count = tasks;
        EventLoop.run(() -> {
            Future<Void> never = Async.loop().createFuture();
            for (int i = 0; i < count; i++) {
                Async.createTask("worker-" + i, () -> handleRequest(never));
                if (i % 1000 == 999) {
                    sleep(Duration.ZERO); // a well-behaved start: never one long step
                }
            }
            sleep(Duration.ZERO); // every task has run up to its await
            // Settled, like a service that has run a while: otherwise the first collection after
            // "ready" moves the 100,000 new stacks out of the young generation (150 ms and more
            // here), and the first dump measured would carry the pause of this start, not its own.
            System.gc();
            tick(Async.loop(), System.nanoTime() + TICK_NANOS);
            EventLoop loop = Async.loop();
            Thread answering = Thread.ofPlatform().daemon().name("many-tasks-stdin").start(() -> answerStdin(loop));
            System.out.println(NAME + " ready");
            System.out.flush();
            await(never);
            answering.interrupt();
            return null;
        });
        return Main.EXIT_OK;
    }

    private static Void handleRequest(Future<Void> never) throws Exception {
        return awaitResponse(never);
    }

    private static Void awaitResponse(Future<Void> never) throws Exception {
        return readBody(never);
    }

    private static Void readBody(Future<Void> never) throws Exception {
        return await(never);
    }

    /** Runs every millisecond and keeps the worst lateness seen. */
    private static void tick(EventLoop loop, long dueNanos) {
        long now = System.nanoTime();
        worstLateNanos.accumulateAndGet(now - dueNanos, Math::max);
        loop.callLater(Duration.ofNanos(TICK_NANOS), () -> tick(loop, now + TICK_NANOS));
    }

    /** Walks every task's stack as the JDK does for a thread dump, and prints how long it took. */
    private static void walk(EventLoop loop) {
        List<Thread> tasks = loop.allTasks().stream().map(Task::thread).toList();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu = threads.getCurrentThreadCpuTime();
        long started = System.nanoTime();
        long frames = 0;
        for (Thread thread : tasks) {
            frames += thread.getStackTrace().length;
        }
        System.out.printf("walked-ms %.1f cpu-ms %.1f frames %d%n", (System.nanoTime() - started) / 1e6,
                (threads.getCurrentThreadCpuTime() - cpu) / 1e6, frames);
    }

    private static void answerStdin(EventLoop loop) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("walk")) {
                    walk(loop);
                } else {
                    System.out.printf("worst-stall-ms %.3f%n", worstLateNanos.getAndSet(0) / 1e6);
                }
                System.out.flush();
            }
        } catch (java.io.IOException closed) {
            // stdin closed: nobody asks any more
        }
    }
}
