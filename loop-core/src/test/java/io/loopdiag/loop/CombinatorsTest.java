package io.loopdiag.loop;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

/** gather, TaskGroup, waitFor, timeout and shield. */
@Timeout(10)
class CombinatorsTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final LoopClock.Virtual clock = test.clock;
    private final EventLoop loop = test.loop;

    private static Coroutine<Integer> after(Duration delay, int value) {
        return Coroutine.of("after " + delay, () -> {
            sleep(delay);
            return value;
        });
    }

    @Test
    void gatherReturnsResultsInArgumentOrder() throws Exception {
        List<Integer> results = test.run(() -> await(Async.gather(
                after(Duration.ofMillis(30), 1), after(Duration.ofMillis(10), 2), after(Duration.ofMillis(20), 3))));
        assertEquals(List.of(1, 2, 3), results);
        assertEquals(Duration.ofMillis(30).toNanos(), clock.nanoTime());
    }

    @Test
    void gatherPropagatesTheFirstFailure() {
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> test.run(() -> await(Async.gather(
                after(Duration.ofMillis(30), 1),
                Coroutine.of("fails", () -> {
                    sleep(Duration.ofMillis(5));
                    throw new IllegalStateException("second failed");
                })))));
        assertEquals("second failed", thrown.getMessage());
        assertEquals(Duration.ofMillis(5).toNanos(), clock.nanoTime());
    }

    @Test
    void gatherCanCollectExceptionsInPlace() throws Exception {
        List<Object> results = test.run(() -> {
            Task<Object> ok = Async.createTask("ok", () -> "fine");
            Task<Object> bad = Async.createTask("bad", () -> {
                throw new IllegalArgumentException("bad");
            });
            return await(Async.gather(List.of(ok, bad), true));
        });
        assertEquals("fine", results.get(0));
        assertInstanceOf(IllegalArgumentException.class, results.get(1));
    }

    @Test
    void cancellingGatherCancelsTheChildren() throws Exception {
        List<Task<Integer>> children = new ArrayList<>();
        Task<List<Integer>> main = loop.createTask("main", () -> {
            Task<Integer> a = Async.createTask("a", () -> {
                sleep(Duration.ofHours(1));
                return 1;
            });
            children.add(a);
            return await(Async.gather(a));
        });
        loop.callLater(Duration.ofSeconds(1), main::cancel);
        assertThrows(CancelledException.class, () -> loop.runUntilComplete(main));
        assertTrue(children.get(0).isCancelled());
    }

    @Test
    void gatherOfNothingIsAnEmptyList() throws Exception {
        assertEquals(List.of(), test.run(() -> await(Async.gather(List.<Future<String>>of(), false))));
    }

    @Test
    void taskGroupWaitsForAllChildren() throws Exception {
        List<String> log = new ArrayList<>();
        String result = test.run(() -> TaskGroup.run(group -> {
            group.createTask("slow", () -> {
                sleep(Duration.ofMillis(20));
                log.add("slow");
                return null;
            });
            group.createTask("fast", () -> {
                sleep(Duration.ofMillis(10));
                log.add("fast");
                return null;
            });
            return "body";
        }));
        assertEquals("body", result);
        assertEquals(List.of("fast", "slow"), log);
    }

    @Test
    void taskGroupCancelsSiblingsOnTheFirstFailureAndRethrowsIt() {
        List<String> log = new ArrayList<>();
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> test.run(() -> TaskGroup.run(group -> {
            group.createTask("sibling", () -> {
                try {
                    sleep(Duration.ofHours(1));
                } catch (CancelledException e) {
                    log.add("sibling cancelled");
                    throw e;
                }
                return null;
            });
            group.createTask("failing", () -> {
                sleep(Duration.ofMillis(10));
                throw new IllegalStateException("child failed");
            });
            try {
                sleep(Duration.ofHours(2)); // the body is cancelled too
            } catch (CancelledException e) {
                log.add("body cancelled");
                throw e;
            }
            return null;
        })));
        assertEquals("child failed", thrown.getMessage());
        assertEquals(List.of("sibling cancelled", "body cancelled"), log);
        assertEquals(Duration.ofMillis(10).toNanos(), clock.nanoTime());
    }

    @Test
    void taskGroupAttachesLaterFailuresAsSuppressed() {
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> test.run(() -> TaskGroup.run(group -> {
            group.createTask("first", () -> {
                throw new IllegalStateException("first");
            });
            group.createTask("second", () -> {
                throw new IllegalArgumentException("second");
            });
            return null;
        })));
        assertEquals("first", thrown.getMessage());
        assertEquals(1, thrown.getSuppressed().length);
        assertEquals("second", thrown.getSuppressed()[0].getMessage());
    }

    @Test
    void theTaskGroupParentIsNotLeftCancelled() throws Exception {
        String after = test.run(() -> {
            try {
                TaskGroup.run(group -> group.createTask("boom", () -> {
                    throw new IllegalStateException("boom");
                }));
            } catch (IllegalStateException expected) {
                // handled; the task must be able to go on awaiting
            }
            sleep(Duration.ofMillis(1));
            return "went on";
        });
        assertEquals("went on", after);
    }

    @Test
    void anOuterCancellationOfATaskGroupCancelsItsChildren() {
        List<String> log = new ArrayList<>();
        Task<Void> main = loop.createTask("main", () -> TaskGroup.run(group -> {
            group.createTask("child", () -> {
                try {
                    sleep(Duration.ofHours(1));
                } catch (CancelledException e) {
                    log.add("child cancelled");
                    throw e;
                }
                return null;
            });
            return null;
        }));
        loop.callLater(Duration.ofSeconds(1), main::cancel);
        assertThrows(CancelledException.class, () -> loop.runUntilComplete(main));
        assertEquals(List.of("child cancelled"), log);
    }

    @Test
    void waitForReturnsInTime() throws Exception {
        assertEquals(7, test.run(() -> Async.waitFor(after(Duration.ofMillis(10), 7), Duration.ofSeconds(1))));
    }

    @Test
    void waitForTimesOutAndCancelsTheInnerTask() throws Exception {
        List<Task<?>> inner = new ArrayList<>();
        assertThrows(TimeoutException.class, () -> test.run(() -> {
            Task<Integer> slow = Async.createTask(after(Duration.ofHours(1), 1));
            inner.add(slow);
            return Async.waitFor(slow, Duration.ofSeconds(2));
        }));
        assertTrue(inner.get(0).isCancelled());
        assertEquals(Duration.ofSeconds(2).toNanos(), clock.nanoTime());
    }

    @Test
    void timeoutTurnsItsOwnCancellationIntoTimeoutException() throws Exception {
        String outcome = test.run(() -> {
            try {
                Async.timeout(Duration.ofMillis(50), () -> {
                    sleep(Duration.ofSeconds(10));
                    return null;
                });
                return "no timeout";
            } catch (TimeoutException e) {
                sleep(Duration.ofMillis(1)); // the task is usable again
                return "timed out";
            }
        });
        assertEquals("timed out", outcome);
    }

    @Test
    void aTimeoutWhoseBodySwallowsTheCancellationLeavesNoRequestBehind() throws Exception {
        String outcome = test.run(() -> {
            Async.timeout(Duration.ofMillis(10), () -> {
                try {
                    sleep(Duration.ofSeconds(1));
                } catch (CancelledException swallowed) {
                    // the body refuses the cancellation and returns normally
                }
                return null;
            });
            assertEquals(0, Async.currentTask().cancelling());
            try {
                Async.timeout(Duration.ofMillis(10), () -> {
                    sleep(Duration.ofSeconds(1));
                    return null;
                });
                return "no timeout";
            } catch (TimeoutException e) {
                return "second timeout is a TimeoutException";
            }
        });
        assertEquals("second timeout is a TimeoutException", outcome);
    }

    @Test
    void nestedTimeoutsEachReportTheirOwnExpiry() throws Exception {
        String outcome = test.run(() -> {
            try {
                return Async.timeout(Duration.ofMillis(10), () -> {
                    try {
                        return Async.timeout(Duration.ofSeconds(10), () -> {
                            sleep(Duration.ofSeconds(60));
                            return "inner finished";
                        });
                    } catch (TimeoutException inner) {
                        return "inner timed out (wrong: the outer one expired)";
                    }
                });
            } catch (TimeoutException outer) {
                return "outer timed out";
            }
        });
        assertEquals("outer timed out", outcome);
    }

    @Test
    void anOuterCancellationPassesThroughTimeout() {
        Task<Void> main = loop.createTask("main", () -> Async.timeout(Duration.ofHours(1), () -> {
            sleep(Duration.ofHours(2));
            return null;
        }));
        loop.callLater(Duration.ofSeconds(1), main::cancel);
        assertThrows(CancelledException.class, () -> loop.runUntilComplete(main));
    }

    @Test
    void shieldKeepsTheInnerTaskRunningWhenTheAwaiterIsCancelled() throws Exception {
        List<Task<Integer>> inner = new ArrayList<>();
        Task<Integer> waiter = loop.createTask("waiter", () -> {
            Task<Integer> work = Async.createTask(after(Duration.ofSeconds(5), 42));
            inner.add(work);
            return await(Async.shield(work));
        });
        loop.callLater(Duration.ofSeconds(1), waiter::cancel);
        assertThrows(CancelledException.class, () -> loop.runUntilComplete(waiter));
        assertFalse(inner.get(0).isCancelled());
        assertEquals(42, loop.runUntilComplete(inner.get(0)));
    }

    @Test
    void toThreadDoesNotBlockTheLoop() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<String> log = new ArrayList<>();
        EventLoop real = new EventLoop();
        try {
            String result = real.runUntilComplete(real.createTask("main", () -> {
                Task<String> blocking = Async.createTask("blocking", () -> Async.toThread(() -> {
                    release.await(); // blocks a worker thread, not the loop
                    return "worker done";
                }));
                for (int i = 0; i < 3; i++) {
                    sleep(Duration.ofMillis(1));
                    log.add("tick " + i);
                }
                assertFalse(blocking.isDone());
                release.countDown();
                return await(blocking);
            }));
            assertEquals("worker done", result);
            assertEquals(List.of("tick 0", "tick 1", "tick 2"), log);
        } finally {
            real.close();
        }
    }

    @Test
    void toThreadRunsOnAWorkerThreadAndRethrows() throws Exception {
        EventLoop real = new EventLoop();
        try {
            Thread[] ranOn = new Thread[1];
            assertThrows(java.io.IOException.class, () -> real.runUntilComplete(real.createTask("main", () ->
                    Async.toThread(() -> {
                        ranOn[0] = Thread.currentThread();
                        throw new java.io.IOException("disk gone");
                    }))));
            assertFalse(ranOn[0].isVirtual());
            assertTrue(ranOn[0].getName().startsWith("loopdiag-worker-"), ranOn[0].getName());
        } finally {
            real.close();
        }
    }
}
