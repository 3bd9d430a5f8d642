package io.loopdiag.agent;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.loopdiag.agent.boot.BlockingGate;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import java.util.Map;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;

/**
 * The advice woven into loop-core, and the public entry points it calls (advice is inlined into
 * loop-core's classes, so what it calls must be public). Loop-core pays nothing without the agent;
 * with it, the cost is where the comments say. Which thread runs a loop or a task is marked for
 * {@link BlockingGate}; coroutines, task creations and failed futures are passed to the detectors.
 */
public final class LoopHooks {
    private static volatile NeverAwaited neverAwaited;
    private static volatile LostExceptions lostExceptions;

    private LoopHooks() {
    }

    static void start(NeverAwaited coroutines, LostExceptions failures) {
        neverAwaited = coroutines;
        lostExceptions = failures;
    }

    /** The advice for each loop-core class, by class name. */
    static Map<String, AsmVisitorWrapper> advice() {
        return Map.of(
                "io.loopdiag.loop.EventLoop", new AsmVisitorWrapper.Compound(
                        Advice.to(MarksLoopThread.class).on(named("runIterations")),
                        Advice.to(LoopWaits.class).on(named("waitForIo")),
                        Advice.to(TaskCreated.class).on(named("createTask").and(takesArguments(Coroutine.class))),
                        Advice.to(LoopClosed.class).on(named("close"))),
                "io.loopdiag.loop.Task", Advice.to(MarksLoopThread.class).on(named("runCoroutine")),
                "io.loopdiag.loop.Coroutine", new AsmVisitorWrapper.Compound(
                        Advice.to(CoroutineCreated.class).on(isConstructor()),
                        Advice.to(CoroutineConsumed.class).on(named("consume"))),
                "io.loopdiag.loop.Future", new AsmVisitorWrapper.Compound(
                        Advice.to(FutureFailed.class).on(named("setException")),
                        Advice.to(OutcomeRetrieved.class).on(namedOneOf("result", "exception", "copyOutcomeTo")
                                .or(named("cancel").and(takesArguments(String.class))))));
    }

    // ---- entry points for the advice -------------------------------------------------------------

    public static void coroutineCreated(Coroutine<?> coroutine) {
        NeverAwaited detector = neverAwaited;
        if (detector != null) {
            detector.created(coroutine);
        }
    }

    public static void coroutineConsumed(Coroutine<?> coroutine) {
        NeverAwaited detector = neverAwaited;
        if (detector != null) {
            detector.consumed(coroutine);
        }
    }

    public static void taskCreated(Task<?> task) {
        CreationSites.taskCreated(task);
    }

    public static void futureFailed(Future<?> future) {
        LostExceptions detector = lostExceptions;
        Throwable exception = future.peekException();
        if (detector != null && exception != null) {
            detector.failed(future, exception);
        }
    }

    public static void outcomeRetrieved(Future<?> future) {
        LostExceptions detector = lostExceptions;
        if (detector != null) {
            detector.retrieved(future);
        }
    }

    public static void loopClosed(EventLoop loop) {
        NeverAwaited coroutines = neverAwaited;
        LostExceptions failures = lostExceptions;
        if (coroutines != null) {
            coroutines.loopClosed(loop);
        }
        if (failures != null) {
            failures.loopClosed(loop);
        }
    }

    public static boolean isWatchingCoroutines() {
        return NeverAwaited.watchedCount != 0;
    }

    public static boolean isTrackingFailures() {
        return LostExceptions.trackedCount != 0;
    }

    // ---- advice ---------------------------------------------------------------------------------

    /** Around the loop's iterations and a task's coroutine: once per run or per task, not per callback. */
    static final class MarksLoopThread {
        @Advice.OnMethodEnter
        static void enter() {
            BlockingGate.markLoopThread();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit() {
            BlockingGate.unmarkLoopThread();
        }
    }

    /** Around the loop's own wait in select: only when the loop has nothing to run. */
    static final class LoopWaits {
        @Advice.OnMethodEnter
        static void enter() {
            BlockingGate.enterIdle();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit() {
            BlockingGate.exitIdle();
        }
    }

    static final class TaskCreated {
        @Advice.OnMethodExit
        static void exit(@Advice.Return Task<?> task) {
            LoopHooks.taskCreated(task);
        }
    }

    static final class LoopClosed {
        @Advice.OnMethodExit
        static void exit(@Advice.This EventLoop loop) {
            LoopHooks.loopClosed(loop);
        }
    }

    /** Per coroutine: a nursery entry, tens of nanoseconds (see NeverAwaited). */
    static final class CoroutineCreated {
        @Advice.OnMethodExit
        static void exit(@Advice.This Coroutine<?> coroutine) {
            LoopHooks.coroutineCreated(coroutine);
        }
    }

    /** Per await of a coroutine: one volatile read while no coroutine outlived a nursery sweep. */
    static final class CoroutineConsumed {
        @Advice.OnMethodExit
        static void exit(@Advice.This Coroutine<?> coroutine) {
            if (LoopHooks.isWatchingCoroutines()) {
                LoopHooks.coroutineConsumed(coroutine);
            }
        }
    }

    /** Per failure only. */
    static final class FutureFailed {
        @Advice.OnMethodExit
        static void exit(@Advice.This Future<?> future) {
            LoopHooks.futureFailed(future);
        }
    }

    /** Per result taken: one volatile read while no failed future is tracked. */
    static final class OutcomeRetrieved {
        @Advice.OnMethodEnter
        static void enter(@Advice.This Future<?> future) {
            if (LoopHooks.isTrackingFailures()) {
                LoopHooks.outcomeRetrieved(future);
            }
        }
    }
}
