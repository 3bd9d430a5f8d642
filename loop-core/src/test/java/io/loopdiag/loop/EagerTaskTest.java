package io.loopdiag.loop;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Eager tasks (asyncio 3.12's eager_task_factory): the first step runs inside createTask. */
@Timeout(10)
class EagerTaskTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final EventLoop loop = test.loop;
    private final List<String> log = new ArrayList<>();

    @BeforeEach
    void eager() {
        loop.setEagerTasks(true);
    }

    @Test
    void aTaskThatDoesNotSuspendComesBackDoneAndRanBeforeItsCreatorWentOn() throws Exception {
        Task<?>[] seenInside = new Task<?>[2];
        test.run(() -> {
            Task<String> child = createTask("child", () -> {
                seenInside[0] = Task.current();
                log.add("child runs");
                return "done";
            });
            seenInside[1] = Task.current();
            log.add("main goes on");
            assertTrue(child.isDone());
            assertEquals("done", child.result());
            assertSame(child, seenInside[0], "the child's step is the child's");
            return null;
        });
        assertEquals(List.of("child runs", "main goes on"), log);
        assertEquals("main", seenInside[1].name(), "and the creator is itself again after it");
    }

    @Test
    void aTaskThatSuspendsRunsItsFirstStepNowAndTheRestLater() throws Exception {
        test.run(() -> {
            Task<Void> child = createTask("child", () -> {
                log.add("child starts");
                sleep(Duration.ofMillis(10));
                log.add("child ends");
                return null;
            });
            log.add("main goes on");
            assertFalse(child.isDone());
            await(child);
            log.add("main ends");
            return null;
        });
        assertEquals(List.of("child starts", "main goes on", "child ends", "main ends"), log);
    }

    @Test
    void eagerTasksNestAndEachCreatorGetsTheBatonBack() throws Exception {
        test.run(() -> {
            createTask("outer", () -> {
                log.add("outer starts");
                createTask("inner", () -> {
                    log.add("inner starts");
                    sleep(Duration.ZERO);
                    log.add("inner ends");
                    return null;
                });
                log.add("outer goes on");
                return null;
            });
            log.add("main goes on");
            sleep(Duration.ofMillis(1));
            return null;
        });
        assertEquals(List.of("outer starts", "inner starts", "outer goes on", "main goes on", "inner ends"), log);
    }

    @Test
    void aCallbackCreatesAnEagerTaskInsideItself() throws Exception {
        test.run(() -> {
            loop.callSoon(() -> {
                Task<Void> fromCallback = loop.createTask("from-callback", () -> {
                    log.add("task runs");
                    return null;
                });
                log.add("callback goes on, task done " + fromCallback.isDone());
            });
            sleep(Duration.ofMillis(1));
            return null;
        });
        assertEquals(List.of("task runs", "callback goes on, task done true"), log);
    }

    @Test
    void aFailingFirstStepLeavesTheTaskFailedAndTheCreatorRunning() throws Exception {
        String outcome = test.run(() -> {
            Task<Void> failing = createTask("failing", () -> {
                throw new IllegalStateException("at once");
            });
            return failing.exception().getMessage();
        });
        assertEquals("at once", outcome);
    }

    @Test
    void beforeTheLoopRunsATaskStartsInTheLoopAsUsual() throws Exception {
        Task<Void> early = loop.createTask("early", () -> {
            log.add("early runs");
            return null;
        });
        assertFalse(early.isDone());
        assertEquals(List.of(), log);
        loop.runUntilComplete(early);
        assertEquals(List.of("early runs"), log);
    }
}
