package io.loopdiag.loop;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TaskTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final LoopClock.Virtual clock = test.clock;
    private final EventLoop loop = test.loop;

    /**
     * As an asyncio task copies its creator's context, a task's thread inherits the inheritable
     * thread-locals and the context class loader of the code that created it, whichever thread
     * later starts it.
     */
    @Test
    void aTasksThreadInheritsFromTheCodeThatCreatedIt() throws Exception {
        InheritableThreadLocal<String> context = new InheritableThreadLocal<>();
        ClassLoader loader = new ClassLoader(null) { };
        Object[] seen = test.run(() -> {
            context.set("request-7");
            Thread.currentThread().setContextClassLoader(loader);
            return await(Async.createTask("child", () -> new Object[] {
                    context.get(), Thread.currentThread().getContextClassLoader()}));
        });
        assertEquals("request-7", seen[0]);
        assertSame(loader, seen[1]);
    }

    @Test
    void twoTasksThatSleepBetweenPrintsInterleave() throws Exception {
        List<String> printed = new ArrayList<>();
        Task<Void> a = loop.createTask("A", () -> {
            for (int i = 1; i <= 3; i++) {
                printed.add("A" + i);
                sleep(Duration.ofMillis(10));
            }
            return null;
        });
        Task<Void> b = loop.createTask("B", () -> {
            sleep(Duration.ofMillis(5));
            for (int i = 1; i <= 2; i++) {
                printed.add("B" + i);
                sleep(Duration.ofMillis(10));
            }
            return null;
        });
        loop.runUntilComplete(Async.gatherOn(loop, List.of(a, b), false));
        assertEquals(List.of("A1", "B1", "A2", "B2", "A3"), printed);
        assertEquals(Duration.ofMillis(30).toNanos(), clock.nanoTime());
    }

    /** What jcmd's thread dump, a profiler and a log line show of a task's virtual thread: the task's name. */
    @Test
    void aTasksThreadCarriesItsName() throws Exception {
        String given = new String("fetch");
        Task<Thread> named = loop.createTask(given, Thread::currentThread);
        Task<String> unnamed = loop.createTask(null, () -> Thread.currentThread().getName());
        loop.runUntilComplete(unnamed);
        assertSame(given, named.result().getName(), "the given name itself, not a copy");
        assertEquals("Task-" + unnamed.id(), unnamed.result());
    }

    @Test
    void awaitReturnsTheResultOfAnotherTask() throws Exception {
        int result = loop.runUntilComplete(Coroutine.of("outer", () -> {
            Task<Integer> inner = Async.createTask("inner", () -> 20 + 1);
            return await(inner) * 2;
        }));
        assertEquals(42, result);
    }

    @Test
    void awaitRethrowsTheFailureAsItWasThrown() {
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> loop.runUntilComplete(Coroutine.of("outer", () -> {
                    Task<Integer> inner = Async.createTask("inner", () -> {
                        throw new IllegalArgumentException("bad input");
                    });
                    return await(inner);
                })));
        assertEquals("bad input", thrown.getMessage());
    }

    @Test
    void aCoroutineRunsOnlyWhenAwaited() throws Exception {
        List<String> log = new ArrayList<>();
        Coroutine<String> lazy = Coroutine.of("lazy", () -> {
            log.add("ran");
            return "done";
        });
        String result = loop.runUntilComplete(Coroutine.of("main", () -> {
            sleep(Duration.ofMillis(1));
            log.add("before await");
            return await(lazy);
        }));
        assertEquals("done", result);
        assertEquals(List.of("before await", "ran"), log);
        assertTrue(lazy.isConsumed());
    }

    @Test
    void cancellationIsThrownAtTheSuspensionPoint() throws Exception {
        List<String> log = new ArrayList<>();
        Task<Void> sleeper = loop.createTask("sleeper", () -> {
            try {
                sleep(Duration.ofHours(1));
                log.add("woke");
            } catch (CancelledException e) {
                log.add("cancelled: " + e.getMessage());
                throw e;
            }
            return null;
        });
        loop.callLater(Duration.ofSeconds(1), () -> sleeper.cancel("enough"));
        assertThrows(CancelledException.class, () -> loop.runUntilComplete(sleeper));
        assertTrue(sleeper.isCancelled());
        assertEquals(List.of("cancelled: enough"), log);
        assertEquals(Duration.ofSeconds(1).toNanos(), clock.nanoTime());
    }

    @Test
    void aTaskThatSwallowsCancellationFinishesNormally() throws Exception {
        Task<String> stubborn = loop.createTask("stubborn", () -> {
            try {
                sleep(Duration.ofHours(1));
                return "slept";
            } catch (CancelledException e) {
                return "refused";
            }
        });
        loop.callSoon(stubborn::cancel);
        assertEquals("refused", loop.runUntilComplete(stubborn));
        assertFalse(stubborn.isCancelled());
    }

    @Test
    void cancellingANewTaskMeansItsBodyNeverRuns() {
        boolean[] ran = {false};
        Task<Void> task = loop.createTask("never", () -> {
            ran[0] = true;
            return null;
        });
        assertTrue(task.cancel());
        assertThrows(CancelledException.class, () -> loop.runUntilComplete(task));
        assertFalse(ran[0]);
    }

    @Test
    void cancellingATaskCancelsTheFutureItAwaits() throws Exception {
        Future<String> never = loop.createFuture();
        Task<String> waiter = loop.createTask("waiter", () -> await(never));
        loop.callLater(Duration.ofMillis(1), waiter::cancel);
        assertThrows(CancelledException.class, () -> loop.runUntilComplete(waiter));
        assertTrue(never.isCancelled());
    }

    @Test
    void sleepZeroLetsOtherReadyWorkRun() throws Exception {
        List<String> log = new ArrayList<>();
        Task<Void> yielder = loop.createTask("yielder", () -> {
            log.add("before");
            loop.callSoon(() -> log.add("callback"));
            sleep(Duration.ZERO);
            log.add("after");
            return null;
        });
        loop.runUntilComplete(yielder);
        assertEquals(List.of("before", "callback", "after"), log);
        assertEquals(0, clock.nanoTime());
    }

    @Test
    void currentTaskIsTheTaskRunningTheCode() throws Exception {
        Task<?>[] seen = new Task<?>[1];
        Task<Void> task = loop.createTask("me", () -> {
            seen[0] = Async.currentTask();
            return null;
        });
        loop.runUntilComplete(task);
        assertSame(task, seen[0]);
        assertNull(Async.currentTask());
    }

    @Test
    void tasksHaveIdsAndDefaultNames() {
        Task<Void> first = loop.createTask(null, () -> null);
        Task<Void> second = loop.createTask("named", () -> null);
        assertEquals("Task-" + first.id(), first.name());
        assertEquals("named", second.name());
        assertTrue(second.id() > first.id());
        assertEquals(List.of(first, second), loop.allTasks());
    }

    @Test
    void allTasksListsOnlyPendingTasks() throws Exception {
        Task<Void> quick = loop.createTask("quick", () -> null);
        Task<Void> slow = loop.createTask("slow", () -> {
            sleep(Duration.ofSeconds(1));
            return null;
        });
        loop.runUntilComplete(quick);
        assertEquals(List.of(slow), loop.allTasks());
        loop.runUntilComplete(slow);
        assertEquals(List.of(), loop.allTasks());
    }

    @Test
    void awaitOutsideATaskIsRefused() {
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> await(loop.createFuture()));
        assertTrue(thrown.getMessage().contains("inside a task"), thrown.getMessage());
    }

    @Test
    void aTaskCannotAwaitItself() {
        Task<?>[] self = new Task<?>[1];
        self[0] = loop.createTask("selfish", () -> await(self[0]));
        assertThrows(IllegalStateException.class, () -> loop.runUntilComplete(self[0]));
    }
}
