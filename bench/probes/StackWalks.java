import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * What a dump pays per task at the least: a walk of a parked virtual thread's stack, by
 * {@code Thread.getStackTrace} or, with {@code snapshot}, by the JDK's thread snapshot
 * ({@code jdk.internal.vm.ThreadSnapshot}, JDK 25+, what jcmd's thread dump reads). Parks 50,000
 * virtual threads 4 calls deep (10 frames) and 50,000 8 calls deep (14 frames), optionally first
 * walks one parked thread WARM times (what warming the walker at the agent's start would cost),
 * then walks all of them in 6 rounds, alternating depths, and prints microseconds a walk. The
 * first rounds are the JVM's first walks, while the JIT compiles the stack walker; the CPU the
 * JIT's threads spend during those two rounds is printed after them.
 * Run: java [--add-opens java.base/jdk.internal.vm=ALL-UNNAMED] bench/probes/StackWalks.java [WARM [snapshot]] (JDK 21+).
 */
public class StackWalks {
    private static final int THREADS = 50_000;

    public static void main(String[] args) throws Throwable {
        int warm = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        Walk walk = args.length > 1 && args[1].equals("snapshot") ? snapshots() : Thread::getStackTrace;
        List<Thread> shallow = park(4);
        List<Thread> deep = park(8);
        Thread.sleep(2_000); // all parked
        if (warm > 0) {
            long started = System.nanoTime();
            for (int i = 0; i < warm; i++) {
                walk.of(shallow.get(0));
            }
            System.out.printf("warm-up: %d walks of one thread, %.0f ms%n", warm, (System.nanoTime() - started) / 1e6);
            Thread.sleep(1_000); // the compiler finishes
        }
        long compiling = compilerMillis();
        for (int round = 0; round < 6; round++) {
            if (round == 1) {
                System.out.printf("the JIT's threads during round 0: %d ms of CPU%n", compilerMillis() - compiling);
            }
            for (List<Thread> threads : List.of(shallow, deep)) {
                long started = System.nanoTime();
                int frames = 0;
                for (Thread thread : threads) {
                    frames += walk.of(thread).length;
                }
                System.out.printf("round %d, %d frames: %.2f us a walk%n", round, frames / THREADS,
                        (System.nanoTime() - started) / 1e3 / THREADS);
            }
        }
        System.exit(0);
    }

    private interface Walk {
        StackTraceElement[] of(Thread thread) throws Throwable;
    }

    private static Walk snapshots() throws ReflectiveOperationException {
        Class<?> type = Class.forName("jdk.internal.vm.ThreadSnapshot");
        MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
        MethodHandle of = lookup.findStatic(type, "of", MethodType.methodType(type, Thread.class));
        MethodHandle stack = lookup.findVirtual(type, "stackTrace", MethodType.methodType(StackTraceElement[].class));
        return thread -> (StackTraceElement[]) stack.invoke(of.invoke(thread));
    }

    /** CPU of the JIT's compiler threads so far, from /proc (Linux). */
    private static long compilerMillis() throws IOException {
        long ticks = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                String stat = Files.readString(task.resolve("stat"));
                if (stat.contains("CompilerThre")) {
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                }
            }
        }
        return ticks * 10;
    }

    private static List<Thread> park(int depth) {
        List<Thread> threads = new ArrayList<>(THREADS);
        for (int i = 0; i < THREADS; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                while (true) {
                    nest(depth);
                }
            }));
        }
        return threads;
    }

    private static void nest(int depth) {
        if (depth == 0) {
            LockSupport.park();
        } else {
            nest(depth - 1);
        }
    }
}
