package io.loopdiag.bench;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Heap and resident memory of 100,000 loop-core tasks, each suspended on its own future nobody completes,
 * each sample in fresh JVMs (a JVM that measured once reuses its resident pages, so its next
 * growth reads near zero). A suspended task keeps its frames as they were compiled when it
 * parked (docs/decisions.md: an interpreted task's stack chunk is four times a compiled one's),
 * so the heap is measured twice: {@code heap} after 50,000 such tasks have run, as in a service
 * that has served a while (the JIT has compiled the await path), and {@code heap-first}, the
 * JVM's first 100,000 after 1,000 (classes loaded, little compiled). {@code rss} is measured
 * with {@code heap-first}: the warm-up's garbage would already be resident. {@code java -cp
 * benchmarks.jar io.loopdiag.bench.SuspendedMemory [--smoke] [--agent JAR | --floor]} prints the
 * three as JSON lines, in MB (10^6 bytes). {@code --floor} measures the same of bare virtual
 * threads, each parked on an object of its own and doing nothing else: what any task that is a
 * virtual thread keeps, whatever its loop.
 */
public final class SuspendedMemory {
    static final int TASKS = 100_000;
    private static final int SAMPLES = 5; // as the peers take
    /** The warm-up of {@code heap}: rounds of tasks that suspend, then finish. */
    private static final int WARM_ROUNDS = 5;
    private static final int WARM_TASKS = 10_000;
    private static final double MB = 1e6;

    private SuspendedMemory() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("--child")) {
            long[] growth = measure(Integer.parseInt(args[1]), args[2].equals("warm"), args[3].equals("floor"));
            System.out.println(growth[0] + " " + growth[1]);
            return;
        }
        List<String> list = Arrays.asList(args);
        boolean smoke = list.contains("--smoke");
        int agentAt = list.indexOf("--agent");
        String agent = agentAt >= 0 ? list.get(agentAt + 1) : null;
        boolean floor = list.contains("--floor");
        int tasks = smoke ? TASKS / 1000 : TASKS;
        int samples = smoke ? 1 : SAMPLES;
        double[] heap = new double[samples];
        double[] heapFirst = new double[samples];
        double[] rss = new double[samples];
        for (int i = 0; i < samples; i++) {
            heap[i] = child(agent, tasks, "warm", floor)[0] / MB;
            long[] first = child(agent, tasks, "first", floor);
            heapFirst[i] = first[0] / MB;
            rss[i] = first[1] / MB;
        }
        String subject = floor ? "jvm" : "loop-core";
        String variant = agent != null ? "agent" : "default";
        String note = floor
                ? tasks + " virtual threads each parked on an object of its own, nothing else; growth after System.gc(); fresh JVMs per sample"
                : tasks + " tasks each awaiting its own never-completed future (counted); growth after System.gc(); fresh JVMs per sample";
        System.out.println(Results.line("suspended-memory", subject, variant, "MB", heap,
                "{\"tasks\":" + tasks + ",\"measure\":\"heap\"}", note + "; after " + WARM_ROUNDS * WARM_TASKS + " such"));
        System.out.println(Results.line("suspended-memory", subject, variant, "MB", heapFirst,
                "{\"tasks\":" + tasks + ",\"measure\":\"heap-first\"}", note + "; the JVM's first, after 1000"));
        System.out.println(Results.line("suspended-memory", subject, variant, "MB", rss,
                "{\"tasks\":" + tasks + ",\"measure\":\"rss\"}", note + "; the JVM's first, after 1000"));
    }

    /** Heap and RSS growth, in bytes, measured by a fresh JVM after the warm-up named. */
    private static long[] child(String agent, int tasks, String warmUp, boolean floor) throws Exception {
        // loop-core's fast setup, as in every loop-core benchmark: the loop's own carrier thread.
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--add-opens=java.base/java.lang=ALL-UNNAMED"));
        if (agent != null) {
            command.add("-javaagent:" + agent + "=log=off");
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SuspendedMemory.class.getName(),
                "--child", Integer.toString(tasks), warmUp, floor ? "floor" : "tasks"));
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String[] line = new String(child.getInputStream().readAllBytes()).trim().split(" ");
        if (child.waitFor() != 0 || line.length != 2) {
            throw new IllegalStateException("the measuring JVM failed: " + String.join(" ", line));
        }
        return new long[] {Long.parseLong(line[0]), Long.parseLong(line[1])};
    }

    /** Heap and RSS growth, in bytes, of {@code tasks} suspended tasks (or bare threads), measured while they are suspended. */
    private static long[] measure(int tasks, boolean warm, boolean floor) throws Exception {
        Suspender suspender = floor ? SuspendedMemory::park : SuspendedMemory::suspend;
        for (int round = 0; round < (warm ? WARM_ROUNDS : 1); round++) {
            suspender.suspend(warm ? WARM_TASKS : 1_000, null);
        }
        long[] before = {usedHeap(), rss()};
        long[] after = new long[2];
        suspender.suspend(tasks, after);
        return new long[] {after[0] - before[0], after[1] - before[1]};
    }

    /** Suspends {@code count} tasks or threads, measures into {@code measured} (unless null) while they wait, then ends them. */
    @FunctionalInterface
    private interface Suspender {
        void suspend(int count, long[] measured) throws Exception;
    }

    /** The floor: {@code threads} virtual threads, each parked on an object of its own, named as the tasks are. */
    private static void park(int threads, long[] measured) throws Exception {
        List<Thread> all = new ArrayList<>(threads);
        Thread.Builder builder = Thread.ofVirtual().name("suspended");
        for (int i = 0; i < threads; i++) {
            Object never = new Object(); // its own, as each task awaits a future of its own
            all.add(builder.start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    LockSupport.park(never);
                }
            }));
        }
        for (Thread thread : all) {
            while (thread.getState() != Thread.State.WAITING) { // parked: its frames are in its stack chunk
                Thread.onSpinWait();
            }
        }
        if (measured != null) {
            measured[0] = usedHeap();
            measured[1] = rss();
        }
        for (Thread thread : all) {
            thread.interrupt();
        }
        for (Thread thread : all) {
            thread.join();
        }
    }

    private static void suspend(int tasks, long[] measured) throws Exception {
        try (EventLoop loop = new EventLoop()) {
            loop.runUntilComplete(Coroutine.of("main", () -> {
                List<Task<Void>> all = new ArrayList<>(tasks);
                for (int i = 0; i < tasks; i++) {
                    Future<Void> never = Async.loop().createFuture(); // its own, as the peers' tasks have theirs
                    all.add(Async.createTask("suspended", () -> await(never)));
                }
                sleep(Duration.ZERO); // each task has run to its await
                if (measured != null) {
                    measured[0] = usedHeap();
                    measured[1] = rss();
                }
                all.forEach(t -> t.cancel());
                sleep(Duration.ZERO);
                return null;
            }));
        }
    }

    private static long usedHeap() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long rss() throws IOException {
        String[] statm = Files.readString(Path.of("/proc/self/statm")).trim().split(" ");
        return Long.parseLong(statm[1]) * 4096;
    }
}
