import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * The floor under a suspended loop-core task's heap: N bare virtual threads, each parked three
 * calls deep (as many-tasks' tasks are), and nothing else. Prints "many-tasks ready" once all are
 * parked and waits until killed, so that bench/task-bytes --floor diffs its class histogram as
 * it does many-tasks'. Run: java bench/probes/ParkedThreads.java --tasks N (JDK 21+).
 */
public class ParkedThreads {
    public static void main(String[] args) throws Exception {
        int count = args.length == 2 && args[0].equals("--tasks") ? Integer.parseInt(args[1]) : 100_000;
        CountDownLatch parked = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            Thread.ofVirtual().start(() -> first(parked));
        }
        parked.await();
        System.out.println("many-tasks ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static void first(CountDownLatch parked) {
        second(parked);
    }

    private static void second(CountDownLatch parked) {
        third(parked);
    }

    private static void third(CountDownLatch parked) {
        parked.countDown();
        while (true) {
            LockSupport.park();
        }
    }
}
