package io.loopdiag.loop;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.LoopCoreHooks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the agent and the snapshots rely on in the baton hand-off: every baton wait parks on the
 * loop ({@link LoopCoreHooks#BATON_BLOCKER}), and every frame between a suspended task's await and
 * the JDK's park is a baton frame ({@link LoopCoreHooks#isBatonFrame}); and a task that yields
 * hands the baton straight to the next task of the iteration as the loop would have stepped it.
 */
@Timeout(10)
class BatonTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final EventLoop loop = test.loop;

    @Test
    void theLoopAndASuspendedTaskParkOnTheLoop() throws Exception {
        Future<Void> never = loop.createFuture();
        List<Object> blockers = new ArrayList<>();
        test.run(() -> {
            Task<Void> waiter = Async.createTask("waiter", () -> await(never));
            sleep(Duration.ZERO);
            blockers.add(LockSupport.getBlocker(waiter.thread()));
            blockers.add(LockSupport.getBlocker(loop.thread()));
            waiter.cancel();
            return null;
        });
        assertEquals(2, blockers.size());
        assertSame(loop, blockers.get(0), "a suspended task's park");
        assertSame(loop, blockers.get(1), "the loop's park while a task runs");
        assertEquals(LoopCoreHooks.BATON_BLOCKER, loop.getClass().getName());
    }

    @Test
    void aTaskHandsTheBatonStraightToTheNextTaskAsTheLoopWouldHaveSteppedIt() throws Exception {
        List<String> seen = new ArrayList<>();
        java.util.Map<String, Long> counted = new java.util.HashMap<>();
        test.run(() -> {
            List<Task<Void>> tasks = new ArrayList<>();
            for (String name : List.of("a", "b", "c", "d")) {
                tasks.add(Async.createTask(name, () -> {
                    for (int round = 1; round <= 3; round++) {
                        sleep(Duration.ZERO);
                        // Each step is published as the loop's handle and counted, whoever stepped it.
                        seen.add(name + round + " " + Handle.describe(loop.currentCallback()).startsWith("step of Task[" + name + " "));
                        counted.put(name + round, loop.dispatchCount());
                        if (name.equals("a") && round == 1) {
                            Async.loop().callSoon(() -> seen.add("callback")); // for the next iteration, after b, c and d
                            tasks.get(2).cancel(); // c's step, next in this iteration, now throws at its sleep
                        }
                    }
                    return null;
                }));
            }
            for (Task<Void> task : tasks) {
                try {
                    await(task);
                } catch (CancelledException expected) {
                    seen.add(task.name() + " cancelled");
                }
            }
            return null;
        });
        assertEquals(List.of("a1 true", "b1 true", "d1 true", "callback", "a2 true", "b2 true",
                "d2 true", "a3 true", "b3 true", "d3 true", "c cancelled"), seen);
        // One iteration's steps, a (the loop's), then b, c (which ends cancelled) and d, each counted once.
        assertEquals(List.of(1L, 3L), List.of(counted.get("b1") - counted.get("a1"), counted.get("d1") - counted.get("a1")));
    }

    @Test
    void iterationsTheTasksBeginKeepTheLoopsOrderOfTasksTimersAndCallbacks() throws Exception {
        List<String> seen = new ArrayList<>();
        test.run(() -> {
            Task<Void> a = Async.createTask("a", () -> {
                seen.add("a1");
                sleep(Duration.ZERO);
                seen.add("a2");
                Async.loop().callLater(Duration.ZERO, () -> seen.add("timer")); // due in the next iteration, after b's step
                sleep(Duration.ZERO);
                seen.add("a3");
                return null;
            });
            Task<Void> b = Async.createTask("b", () -> {
                for (int round = 1; round <= 3; round++) {
                    seen.add("b" + round);
                    sleep(Duration.ZERO);
                }
                return null;
            });
            await(a); // a's end schedules this step behind the timer
            seen.add("main");
            await(b);
            return null;
        });
        assertEquals(List.of("a1", "b1", "a2", "b2", "a3", "b3", "timer", "main"), seen);
    }

    @Test
    void tasksSwitchingWithoutEndStillLetTheLoopPollIo() throws Exception {
        EventLoop real = new EventLoop("io", LoopClock.SYSTEM);
        java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
        try {
            pipe.source().configureBlocking(false);
            pipe.sink().write(java.nio.ByteBuffer.wrap(new byte[] {1}));
            boolean[] read = new boolean[1];
            real.addReader(pipe.source(), () -> read[0] = true);
            int[] rounds = new int[1];
            real.runUntilComplete(real.createTask("main", () -> {
                Coroutine.Body<Void> switcher = () -> {
                    while (!read[0]) {
                        rounds[0]++;
                        sleep(Duration.ZERO);
                    }
                    return null;
                };
                await(Async.gather(Async.createTask("x", switcher), Async.createTask("y", switcher)));
                return null;
            }));
            // An iteration is two rounds here; the loop polls I/O at least every 64 iterations.
            assertTrue(read[0] && rounds[0] <= 2 * 65, rounds[0] + " rounds before the reader ran");
        } finally {
            real.close();
            pipe.source().close();
            pipe.sink().close();
        }
    }

    @Test
    void theFramesAboveASuspendedTasksAwaitAreBatonFrames() throws Exception {
        assertEquals(LoopCoreHooks.BATON, Baton.class.getName());
        Future<Void> never = loop.createFuture();
        List<StackTraceElement> frames = new ArrayList<>();
        test.run(() -> {
            Task<Void> waiter = Async.createTask("waiter", () -> await(never));
            sleep(Duration.ZERO);
            frames.addAll(List.of(waiter.thread().getStackTrace()));
            waiter.cancel();
            return null;
        });
        int top = 0;
        while (top < frames.size() && Frame.isJdk(frames.get(top))) {
            top++;
        }
        List<String> between = new ArrayList<>();
        for (int i = top; i < frames.size() && !frames.get(i).getClassName().equals(Async.class.getName()); i++) {
            between.add(frames.get(i).getClassName() + "." + frames.get(i).getMethodName());
        }
        assertTrue(between.stream().anyMatch(frame -> frame.startsWith(LoopCoreHooks.BATON + ".")), between.toString());
        for (String frame : between) {
            assertTrue(LoopCoreHooks.isBatonFrame(frame.substring(0, frame.lastIndexOf('.'))), frame + " in " + between);
        }
    }
}
