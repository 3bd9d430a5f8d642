import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import jdk.jfr.consumer.RecordingStream;

/**
 * What the JDK tells of a thread waiting to enter a contended monitor, for a platform thread and
 * for a virtual one: its Thread.State, what a read of it costs, what ThreadMXBean says of the
 * monitor and its holder, and whether JFR's jdk.JavaMonitorEnter (an in-process RecordingStream,
 * 10 ms threshold) is posted. Run: java bench/probes/MonitorEnterProbe.java (JDK 21+).
 * docs/decisions.md quotes its output.
 */
public class MonitorEnterProbe {
    static final Object MONITOR = new Object();
    static final int READS = 1_000_000;

    public static void main(String[] args) throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        try (RecordingStream jfr = new RecordingStream()) {
            jfr.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ofMillis(10));
            jfr.onEvent("jdk.JavaMonitorEnter", e -> events.add(e.getThread("eventThread").getJavaName()
                    + " (" + e.getDuration().toMillis() + " ms on a " + e.getClass("monitorClass").getName() + ")"));
            jfr.startAsync();
            for (boolean virtual : new boolean[] {false, true}) {
                CountDownLatch held = new CountDownLatch(1);
                Thread holder = Thread.ofPlatform().name("holder").start(() -> {
                    synchronized (MONITOR) {
                        held.countDown();
                        pause(300);
                    }
                });
                held.await();
                Thread waiter = (virtual ? Thread.ofVirtual().name("virtual-waiter") : Thread.ofPlatform().name("platform-waiter"))
                        .start(() -> {
                            synchronized (MONITOR) {
                                MONITOR.hashCode();
                            }
                        });
                pause(50);
                Thread.State state = waiter.getState();
                long start = System.nanoTime();
                for (int i = 0; i < READS; i++) {
                    state = waiter.getState();
                }
                long nanos = (System.nanoTime() - start) / READS;
                ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(waiter.threadId(), 0);
                System.out.printf("%s waiter: state %s, %d ns per getState(), ThreadMXBean: %s%n", virtual ? "virtual" : "platform",
                        state, nanos, info == null ? "nothing (null)" : "lock " + info.getLockName() + " held by '" + info.getLockOwnerName() + "'");
                holder.join();
                waiter.join();
            }
            pause(1500); // the stream delivers once a second
        }
        System.out.println("jdk.JavaMonitorEnter events: " + events);
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
