package io.loopdiag.loop;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The loop's own carrier thread (loop-core's tests run with {@code java.lang} opened, as the pom
 * says). A mounted virtual thread's {@code toString} ends with {@code @} and its carrier's name.
 */
@Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LoopCarrierTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final EventLoop loop = test.loop;

    @Test
    void theLoopAndItsTasksRunOnTheLoopsOwnCarrier() throws Exception {
        String[] seen = new String[2];
        loop.callSoon(() -> seen[0] = Thread.currentThread().toString());
        test.run(() -> seen[1] = Thread.currentThread().toString());
        assertTrue(seen[0].endsWith("@loopdiag-carrier-test"), seen[0]);
        assertTrue(seen[1].endsWith("@loopdiag-carrier-test"), seen[1]);
    }

    @Test
    void aVirtualThreadStartedFromATaskRunsBesideTheLoopNotInItsPlace() throws Exception {
        // On the loop's carrier, the spinning thread would keep the loop from ever running again.
        AtomicBoolean released = new AtomicBoolean();
        AtomicReference<String> spinner = new AtomicReference<>();
        Thread thread = test.run(() -> {
            Thread started = Thread.ofVirtual().start(() -> {
                spinner.set(Thread.currentThread().toString());
                while (!released.get()) {
                    Thread.onSpinWait();
                }
            });
            while (spinner.get() == null) {
                sleep(Duration.ZERO);
            }
            released.set(true);
            return started;
        });
        thread.join();
        assertFalse(spinner.get().contains("loopdiag-carrier"), spinner.get());
    }

    /**
     * A task's thread woken by the timeout of a blocking call in the task runs on the JDK's
     * scheduler, and is back on the loop's carrier once the loop has stepped it again. The step
     * waits until the thread has parked: stepped before that, it finds its permit and runs on
     * where it is, as it may.
     */
    @Test
    void aTaskWokenOutsideAHandOffComesBackToTheCarrierAtTheNext() throws Exception {
        String[] seen = test.run(() -> {
            Thread.sleep(5); // a blocking call: the JDK's timer unparks the thread
            String woken = Thread.currentThread().toString();
            Thread me = Thread.currentThread();
            Future<Void> parked = loop.createFuture();
            Runnable[] check = new Runnable[1];
            check[0] = () -> {
                if (me.getState() == Thread.State.WAITING) {
                    parked.setResult(null);
                } else {
                    loop.callLater(Duration.ofMillis(1), check[0]);
                }
            };
            loop.callSoon(check[0]);
            await(parked); // parks until the loop steps it again
            return new String[] {woken, Thread.currentThread().toString()};
        });
        assertFalse(seen[0].contains("loopdiag-carrier"), seen[0]);
        assertTrue(seen[1].endsWith("@loopdiag-carrier-test"), seen[1]);
    }

    /**
     * A task's thread woken off the carrier (the timeout of a blocking call) that starts a new
     * task's thread: the carrier, idle, is not there to start it after the task yields, so the
     * loop's thread does, and the new task runs on the carrier.
     */
    @Test
    void aTaskRunningOffTheCarrierHandsANewTaskToTheLoop() throws Exception {
        String[] seen = test.run(() -> {
            Thread.sleep(5); // the JDK's timer wakes the thread on the JDK's scheduler
            String woken = Thread.currentThread().toString();
            String child = await(Async.createTask("child", () -> Thread.currentThread().toString()));
            return new String[] {woken, child};
        });
        assertFalse(seen[0].contains("loopdiag-carrier"), seen[0]);
        assertTrue(seen[1].endsWith("@loopdiag-carrier-test"), seen[1]);
    }

    @Test
    void aTaskSuspendedWhenTheLoopStopsResumesInTheNextRun() throws Exception {
        Future<String> gate = loop.createFuture();
        Task<String> waiter = loop.createTask("waiter", () -> await(gate) + "!");
        test.run(() -> {
            sleep(Duration.ZERO);
            return null;
        });
        assertFalse(waiter.isDone());
        loop.callSoon(() -> gate.setResult("resumed"));
        assertEquals("resumed!", loop.runUntilComplete(waiter));
    }

    /** A task that suspends in a class initializer, where every JDK pins its virtual thread. */
    static final class SuspendsInItsInitializer {
        static final String VALUE;

        static {
            try {
                sleep(Duration.ofMillis(10));
            } catch (Exception e) {
                throw new ExceptionInInitializerError(e);
            }
            VALUE = "initialized";
        }
    }

    /**
     * Pinned, the task's park holds the carrier and the loop's thread queued behind it: the loop
     * goes on on the JDK's scheduler, reports the task and where it parked, and is back on its
     * carrier once the task lets go.
     */
    @Test
    void aTaskSuspendingWhilePinnedStallsTheLoopWithoutHangingIt() throws Exception {
        List<ExceptionContext> reported = new CopyOnWriteArrayList<>();
        loop.setExceptionHandler((ignored, context) -> reported.add(context));
        String[] seen = test.run(() -> {
            String value = SuspendsInItsInitializer.VALUE;
            TestLoop.settle();
            return new String[] {value, Thread.currentThread().toString()};
        });
        assertEquals("initialized", seen[0]);
        assertTrue(seen[1].endsWith("@loopdiag-carrier-test"), seen[1]);
        assertEquals(1, reported.size(), reported::toString);
        ExceptionContext report = reported.get(0);
        assertEquals("main", report.task().name());
        assertTrue(report.message().startsWith("Task 'main' parked while pinned to the loop's carrier thread"), report.message());
        assertTrue(Arrays.stream(report.exception().getStackTrace()).anyMatch(frame -> frame.getMethodName().equals("<clinit>")
                && frame.getClassName().equals(SuspendsInItsInitializer.class.getName())),
                () -> Arrays.toString(report.exception().getStackTrace()));
    }

    /**
     * A class initializer that starts a task and awaits it. The task's body is not a lambda of
     * this class: that would wait for the initializer to end.
     */
    static final class AwaitsATaskInItsInitializer {
        static final String VALUE;

        static {
            try {
                VALUE = await(Async.createTask("child", LoopCarrierTest::childRan));
            } catch (Exception e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    private static String childRan() {
        return "child ran";
    }

    /** The new task's thread, which the carrier starts once the held thread yields, is started without that. */
    @Test
    void aTaskStartedWhilePinnedRuns() throws Exception {
        List<ExceptionContext> reported = new CopyOnWriteArrayList<>();
        loop.setExceptionHandler((ignored, context) -> reported.add(context));
        assertEquals("child ran", test.run(() -> AwaitsATaskInItsInitializer.VALUE));
        assertFalse(reported.isEmpty());
    }

    @Test
    void withTheSharedSchedulerAskedForTasksRunOnTheJdksCarriers() throws Exception {
        System.setProperty("loopdiag.sharedScheduler", "true");
        try (EventLoop shared = new EventLoop("shared", LoopClock.virtual())) {
            String seen = shared.runUntilComplete(shared.createTask("t", () -> Thread.currentThread().toString()));
            assertTrue(seen.contains("@ForkJoinPool"), seen);
        } finally {
            System.clearProperty("loopdiag.sharedScheduler");
        }
    }
}
