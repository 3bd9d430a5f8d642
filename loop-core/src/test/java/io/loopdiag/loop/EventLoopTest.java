package io.loopdiag.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class EventLoopTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final LoopClock.Virtual clock = test.clock;
    private final EventLoop loop = test.loop;

    @Test
    void callSoonRunsCallbacksInFifoOrder() {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            int n = i;
            loop.callSoon(() -> order.add(n));
        }
        loop.callSoon(loop::stop);
        loop.runForever();
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            expected.add(i);
        }
        assertEquals(expected, order);
    }

    @Test
    void eachCallbackRunsExactlyOnce() {
        int[] runs = {0};
        loop.callSoon(() -> runs[0]++);
        loop.callSoon(loop::stop);
        loop.runForever();
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(1, runs[0]);
    }

    @Test
    void aCancelledHandleDoesNotRun() {
        boolean[] ran = {false};
        Handle handle = loop.callSoon(() -> ran[0] = true);
        handle.cancel();
        loop.callSoon(loop::stop);
        loop.runForever();
        assertFalse(ran[0]);
        assertTrue(handle.isCancelled());
    }

    @Test
    void aCallbackScheduledDuringTheRunPhaseRunsNextIteration() {
        List<String> log = new ArrayList<>();
        loop.callSoon(() -> {
            log.add("first");
            loop.callSoon(() -> log.add("scheduled by first"));
        });
        loop.callSoon(() -> {
            log.add("second");
            loop.stop();
        });
        loop.runForever();
        // stop() lets the current iteration finish; the callback scheduled in it has not run yet.
        assertEquals(List.of("first", "second"), log);
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(List.of("first", "second", "scheduled by first"), log);
    }

    @Test
    void executeOnTheLoopQueuesTheCallbackItselfInOrderWithHandlesAndTheNextIterationRunsIt() {
        List<String> log = new ArrayList<>();
        loop.callSoon(() -> {
            log.add("first");
            loop.execute(() -> log.add("executed by first"));
            loop.callSoon(() -> log.add("scheduled by first"));
            loop.stop();
        });
        loop.runForever();
        assertEquals(List.of("first"), log);
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(List.of("first", "executed by first", "scheduled by first"), log);
    }

    @Test
    void anExecutedCallbackIsPublishedWhileItRunsAndItsFailureGoesToTheHandlerWithoutAHandle() {
        List<ExceptionContext> handled = new ArrayList<>();
        loop.setExceptionHandler((l, context) -> handled.add(context));
        Object[] seen = new Object[1];
        Runnable failing = new Runnable() {
            @Override
            public void run() {
                seen[0] = loop.currentCallback();
                throw new IllegalStateException("boom");
            }

            @Override
            public String toString() {
                return "the failing one";
            }
        };
        loop.callSoon(() -> {
            loop.execute(failing);
            loop.execute(loop::stop);
        });
        loop.runForever();
        assertSame(failing, seen[0]);
        assertEquals(1, handled.size());
        assertEquals("Exception in callback the failing one", handled.get(0).message());
        assertNull(handled.get(0).handle());
        assertEquals("boom", handled.get(0).exception().getMessage());
    }

    @Test
    void theLoopIsAnExecutorForOtherThreads() throws Exception {
        Thread[] ranOn = new Thread[2];
        Thread other = new Thread(() -> CompletableFuture.supplyAsync(() -> {
            ranOn[0] = Thread.currentThread();
            return loop.thread();
        }, loop).thenAcceptAsync(thread -> {
            ranOn[1] = thread;
            loop.stop();
        }, loop));
        loop.callSoon(other::start); // from a running loop, which other's execute must wake
        loop.runForever();
        other.join();
        assertNotNull(ranOn[0]);
        assertSame(ranOn[1], ranOn[0], "ran on the loop's thread");
        loop.close();
        assertThrows(IllegalStateException.class, () -> loop.execute(() -> { }));
    }

    @Test
    void timersRunInDeadlineOrder() {
        List<String> log = new ArrayList<>();
        loop.callLater(Duration.ofMillis(30), () -> log.add("30"));
        loop.callLater(Duration.ofMillis(10), () -> log.add("10"));
        loop.callLater(Duration.ofMillis(20), () -> log.add("20"));
        loop.callLater(Duration.ofMillis(40), loop::stop);
        loop.runForever();
        assertEquals(List.of("10", "20", "30"), log);
        assertEquals(Duration.ofMillis(40).toNanos(), clock.nanoTime());
    }

    @Test
    void timersWithEqualDeadlinesRunInSchedulingOrder() {
        List<Integer> log = new ArrayList<>();
        long deadline = loop.timeNanos() + 1_000_000;
        for (int i = 0; i < 50; i++) {
            int n = i;
            loop.callAt(deadline, () -> log.add(n));
        }
        loop.callAt(deadline, loop::stop);
        loop.runForever();
        for (int i = 0; i < 50; i++) {
            assertEquals(i, log.get(i));
        }
    }

    @Test
    void aTimerDoesNotRunBeforeItsDeadline() {
        long[] ranAt = {-1};
        loop.callLater(Duration.ofSeconds(5), () -> ranAt[0] = loop.timeNanos());
        loop.callLater(Duration.ofSeconds(6), loop::stop);
        loop.runForever();
        assertEquals(Duration.ofSeconds(5).toNanos(), ranAt[0]);
    }

    @Test
    void cancelledTimersAreCompactedWhenTheyAreTheMajority() {
        List<TimerHandle> timers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            timers.add(loop.callLater(Duration.ofSeconds(10 + i), () -> { }));
        }
        for (int i = 0; i < 150; i++) {
            timers.get(199 - i).cancel(); // the latest ones, so none is at the head
        }
        assertEquals(200, loop.timerCount()); // lazily: still in the heap
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(50, loop.timerCount());
    }

    @Test
    void aFewCancelledTimersAreRemovedOnlyWhenTheyReachTheHead() {
        TimerHandle first = loop.callLater(Duration.ofSeconds(1), () -> { });
        TimerHandle second = loop.callLater(Duration.ofSeconds(2), () -> { });
        loop.callLater(Duration.ofSeconds(3), () -> { });
        second.cancel();
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(3, loop.timerCount()); // the cancelled one is behind a live head
        first.cancel();
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(1, loop.timerCount());
    }

    @Test
    void aCancelledTimerDoesNotRun() {
        boolean[] ran = {false};
        TimerHandle timer = loop.callLater(Duration.ofSeconds(1), () -> ran[0] = true);
        timer.cancel();
        loop.callLater(Duration.ofSeconds(2), loop::stop);
        loop.runForever();
        assertFalse(ran[0]);
    }

    @Test
    void callSoonThreadsafeWakesALoopBlockedInSelect() throws Exception {
        EventLoop real = new EventLoop();
        try {
            CountDownLatch running = new CountDownLatch(1);
            real.callSoon(running::countDown);
            Thread other = new Thread(() -> {
                try {
                    running.await();
                    // The loop has nothing to do now and waits in select with no timeout.
                    real.callSoonThreadsafe(real::stop);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            other.start();
            real.runForever(); // returns only if the wake-up reached the loop
            other.join();
            assertFalse(real.isRunning());
        } finally {
            real.close();
        }
    }

    @Test
    void anExceptionInACallbackReachesTheHandlerAndTheLoopGoesOn() {
        List<ExceptionContext> seen = new ArrayList<>();
        loop.setExceptionHandler((l, context) -> seen.add(context));
        List<String> log = new ArrayList<>();
        Handle failing = loop.callSoon(() -> {
            throw new IllegalStateException("boom");
        });
        loop.callSoon(() -> log.add("after"));
        loop.callSoon(loop::stop);
        loop.runForever();
        assertEquals(List.of("after"), log);
        assertEquals(1, seen.size());
        assertEquals("boom", seen.get(0).exception().getMessage());
        assertSame(failing, seen.get(0).handle());
        assertTrue(seen.get(0).message().startsWith("Exception in callback"), seen.get(0).message());
    }

    @Test
    void anExceptionHandlerThatThrowsDoesNotStopTheLoop() {
        loop.setExceptionHandler((l, context) -> {
            throw new IllegalStateException("handler broke");
        });
        boolean[] ran = {false};
        loop.callSoon(() -> {
            throw new IllegalArgumentException("first");
        });
        loop.callSoon(() -> ran[0] = true);
        loop.callSoon(loop::stop);
        loop.runForever();
        assertTrue(ran[0]);
    }

    @Test
    void callingTheLoopFromAnotherThreadWhileItRunsFailsClearly() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch tried = new CountDownLatch(1);
        loop.callSoon(() -> {
            Thread other = new Thread(() -> {
                try {
                    loop.callSoon(() -> { });
                } catch (Throwable t) {
                    failure.set(t);
                }
                tried.countDown();
            }, "intruder");
            other.start();
        });
        Task<Void> waiter = loop.createTask("waiter", () -> Async.toThread(() -> {
            tried.await();
            return null;
        }));
        loop.runUntilComplete(waiter);
        IllegalStateException thrown = assertInstanceOf(IllegalStateException.class, failure.get());
        assertTrue(thrown.getMessage().contains("intruder"), thrown.getMessage());
        assertTrue(thrown.getMessage().contains("callSoonThreadsafe"), thrown.getMessage());
    }

    @Test
    void runUntilCompleteReturnsTheResult() throws Exception {
        Future<String> future = loop.createFuture();
        loop.callLater(Duration.ofMillis(5), () -> future.setResult("done"));
        assertEquals("done", loop.runUntilComplete(future));
        assertFalse(loop.isRunning());
    }

    @Test
    void runUntilCompleteFailsIfTheLoopStopsFirst() {
        Future<String> never = loop.createFuture();
        loop.callSoon(loop::stop);
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> loop.runUntilComplete(never));
        assertTrue(thrown.getMessage().contains("stopped before"), thrown.getMessage());
    }

    @Test
    void isRunningIsTrueOnlyWhileTheLoopRuns() {
        boolean[] during = {false};
        loop.callSoon(() -> during[0] = loop.isRunning());
        loop.callSoon(loop::stop);
        assertFalse(loop.isRunning());
        loop.runForever();
        assertTrue(during[0]);
        assertFalse(loop.isRunning());
    }

    @Test
    void theLoopRunsOnAVirtualThread() {
        Thread[] seen = new Thread[1];
        loop.callSoon(() -> seen[0] = Thread.currentThread());
        loop.callSoon(loop::stop);
        loop.runForever();
        assertTrue(seen[0].isVirtual());
        assertTrue(seen[0] != Thread.currentThread());
    }

    @Test
    void aClosedLoopRefusesWork() {
        loop.close();
        assertTrue(loop.isClosed());
        assertThrows(IllegalStateException.class, () -> loop.callSoon(() -> { }));
        assertThrows(IllegalStateException.class, loop::runForever);
        loop.close(); // idempotent
    }

    @Test
    void aRunningLoopCannotBeClosedOrRunAgain() {
        List<Class<?>> failures = new ArrayList<>();
        loop.callSoon(() -> {
            try {
                loop.close();
            } catch (IllegalStateException e) {
                failures.add(e.getClass());
            }
            try {
                loop.runForever();
            } catch (IllegalStateException e) {
                failures.add(e.getClass());
            }
            loop.stop();
        });
        loop.runForever();
        assertEquals(2, failures.size());
        assertFalse(loop.isClosed());
    }

    @Test
    void runReturnsMainsResultAndClosesItsLoop() throws Exception {
        EventLoop[] used = new EventLoop[1];
        String result = EventLoop.run(() -> {
            used[0] = Async.loop();
            Async.sleep(Duration.ofMillis(1));
            return "main done";
        });
        assertEquals("main done", result);
        assertTrue(used[0].isClosed());
    }

    @Test
    void runCancelsTasksThatAreLeft() throws Exception {
        List<String> log = new ArrayList<>();
        EventLoop.run(() -> {
            Async.createTask("leftover", () -> {
                try {
                    Async.sleep(Duration.ofHours(1));
                } catch (CancelledException e) {
                    log.add("leftover cancelled");
                    throw e;
                }
                return null;
            });
            Async.sleep(Duration.ZERO);
            return null;
        });
        assertEquals(List.of("leftover cancelled"), log);
    }

    @Test
    void timeNanosIsMonotonic() {
        EventLoop real = new EventLoop();
        try {
            long previous = real.timeNanos();
            for (int i = 0; i < 1000; i++) {
                long now = real.timeNanos();
                assertTrue(now >= previous);
                previous = now;
            }
        } finally {
            real.close();
        }
    }

    @Test
    void aReaderRunsWhileItsChannelIsReadableAndStopsWhenRemoved() throws Exception {
        // Virtual time: the 20 ms below cost nothing, and the selector is still polled for real I/O.
        EventLoop real = new EventLoop("io", LoopClock.virtual());
        java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
        try {
            pipe.source().configureBlocking(false);
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(16);
            List<String> received = new ArrayList<>();
            real.addReader(pipe.source(), () -> {
                try {
                    buffer.clear();
                    int n = pipe.source().read(buffer);
                    received.add(new String(buffer.array(), 0, n, java.nio.charset.StandardCharsets.US_ASCII));
                    assertTrue(real.removeReader(pipe.source()));
                    real.stop();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            pipe.sink().write(java.nio.ByteBuffer.wrap("ping".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            real.runForever(); // returns once the reader has run and stopped the loop
            assertEquals(List.of("ping"), received);
            assertFalse(real.removeReader(pipe.source()), "already removed");

            pipe.sink().write(java.nio.ByteBuffer.wrap("more".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            real.callLater(Duration.ofMillis(20), real::stop); // the loop polls I/O before this: a removed reader would run
            real.runForever();
            assertEquals(List.of("ping"), received);
        } finally {
            real.close();
            pipe.source().close();
            pipe.sink().close();
        }
    }

    @Test
    void aWriterRunsWhenItsChannelIsWritable() throws Exception {
        EventLoop real = new EventLoop();
        java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
        try {
            pipe.sink().configureBlocking(false);
            int[] calls = {0};
            real.addWriter(pipe.sink(), () -> {
                calls[0]++;
                real.removeWriter(pipe.sink());
                real.stop();
            });
            real.runForever();
            assertEquals(1, calls[0]);
        } finally {
            real.close();
            pipe.source().close();
            pipe.sink().close();
        }
    }

    @Test
    void allLoopsListsOpenLoopsOnly() {
        assertTrue(EventLoop.allLoops().contains(loop));
        EventLoop other = new EventLoop();
        assertTrue(EventLoop.allLoops().contains(other));
        other.close();
        assertFalse(EventLoop.allLoops().contains(other));
        assertNotNull(loop.name());
    }
}
