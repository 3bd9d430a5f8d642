import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * What a dump pays per task at the least: {@code Thread.getStackTrace} of a parked virtual thread,
 * the only way to read another virtual thread's stack (jcmd's thread dump uses it too). Parks
 * 50,000 virtual threads 4 calls deep (10 frames) and 50,000 8 calls deep (14 frames), optionally
 * first walks one parked thread WARM times (what warming the walker at the agent's start would
 * cost), then walks all of them in 6 rounds, alternating depths, and prints microseconds a walk.
 * The first rounds are the JVM's first walks, while the JIT compiles the stack walker.
 * Run: java bench/probes/StackWalks.java [WARM] (JDK 21+).
 */
public class StackWalks {
    private static final int THREADS = 50_000;

    public static void main(String[] args) throws Exception {
        int warm = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        List<Thread> shallow = park(4);
        List<Thread> deep = park(8);
        Thread.sleep(2_000); // all parked
        if (warm > 0) {
            long started = System.nanoTime();
            for (int i = 0; i < warm; i++) {
                shallow.get(0).getStackTrace();
            }
            System.out.printf("warm-up: %d walks of one thread, %.0f ms%n", warm, (System.nanoTime() - started) / 1e6);
            Thread.sleep(1_000); // the compiler finishes
        }
        for (int round = 0; round < 6; round++) {
            for (List<Thread> threads : List.of(shallow, deep)) {
                long started = System.nanoTime();
                int frames = 0;
                for (Thread thread : threads) {
                    frames += thread.getStackTrace().length;
                }
                System.out.printf("round %d, %d frames: %.2f us a walk%n", round, frames / THREADS,
                        (System.nanoTime() - started) / 1e3 / THREADS);
            }
        }
        System.exit(0);
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
