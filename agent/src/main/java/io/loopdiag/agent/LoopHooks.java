package io.loopdiag.agent;

import static net.bytebuddy.matcher.ElementMatchers.any;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import io.loopdiag.protocol.HookPoint;
import io.loopdiag.protocol.LoopCoreHooks;
import java.util.List;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The hooks woven into loop-core (at its {@link LoopCoreHooks hook points}), and the public
 * entry points their advice calls (advice is inlined into loop-core's classes, so what it calls
 * must be public). Loop-core pays nothing without the agent; with it, the cost is where the
 * comments say. Which loops run is told to {@link BlockingCheck};
 * coroutines, task creations and failed futures are passed to the detectors.
 */
public final class LoopHooks {
    private static volatile NeverAwaited neverAwaited;
    private static volatile LostExceptions lostExceptions;
    private static volatile BlockingCalls blockingCalls;

    private LoopHooks() {
    }

    /** How the blocking check finds the loop whose baton a thread holds: loop-core's own answer. */
    static java.util.function.Supplier<Object> currentLoop() {
        return EventLoop::current;
    }

    /** Loops that were running when the agent started (it was attached): their runs began before the hooks. */
    static void adoptRunningLoops() {
        for (EventLoop loop : EventLoop.allLoops()) {
            if (loop.isRunning()) {
                BlockingCheck.loopCoreRunning(loop);
            }
        }
    }

    /** {@code calls} null: {@code blocking=off}. */
    static void start(NeverAwaited coroutines, LostExceptions failures, BlockingCalls calls) {
        neverAwaited = coroutines;
        lostExceptions = failures;
        blockingCalls = calls;
    }

    /** The hooks, one per hook point; {@code blocking} false leaves out those only the blocking check needs. */
    static List<Hook> hooks(boolean blocking) {
        List<Hook> hooks = new java.util.ArrayList<>();
        if (blocking) {
            hooks.add(hook(LoopCoreHooks.RUN_ITERATIONS, LoopRuns.class, "blocking calls on loop threads and in tasks are not detected"));
            hooks.add(hook(LoopCoreHooks.WAIT_FOR_IO, LoopWaits.class,
                    "the loop's own wait for I/O may be reported as a blocking call"));
            hooks.add(hook(LoopCoreHooks.REPORT_PINNED, ParkedWhilePinned.class,
                    "a task that parks while pinned to its loop's carrier is not reported as a blocking call"));
        }
        hooks.add(hook(LoopCoreHooks.CREATE_TASK, takesArguments(Coroutine.class), TaskCreated.class,
                "where tasks were created is not recorded"));
        hooks.add(hook(LoopCoreHooks.CLOSE, LoopClosed.class,
                "never-awaited coroutines and lost exceptions are not reported when their loop closes"));
        hooks.add(hook(LoopCoreHooks.NEW_COROUTINE, CoroutineCreated.class,
                "never-awaited coroutines are not detected"));
        hooks.add(hook(LoopCoreHooks.CONSUME, CoroutineConsumed.class, "every coroutine is reported as never awaited"));
        hooks.add(hook(LoopCoreHooks.SET_EXCEPTION, FutureFailed.class, "lost exceptions are not detected"));
        String retrieved = "an exception retrieved this way is still reported as lost";
        hooks.add(hook(LoopCoreHooks.RESULT, OutcomeRetrieved.class, retrieved));
        hooks.add(hook(LoopCoreHooks.EXCEPTION, OutcomeRetrieved.class, retrieved));
        hooks.add(hook(LoopCoreHooks.COPY_OUTCOME_TO, OutcomeRetrieved.class, retrieved));
        hooks.add(hook(LoopCoreHooks.CANCEL, takesArguments(String.class), OutcomeRetrieved.class, retrieved));
        return List.copyOf(hooks);
    }

    private static Hook hook(HookPoint point, Class<?> advice, String loss) {
        return hook(point, any(), advice, loss);
    }

    /** The hook of {@code point}'s methods (its constructors for {@link HookPoint#CONSTRUCTOR}) that {@code these} also match. */
    private static Hook hook(HookPoint point, ElementMatcher.Junction<MethodDescription> these, Class<?> advice, String loss) {
        ElementMatcher.Junction<MethodDescription> methods = point.method().equals(HookPoint.CONSTRUCTOR) ? isConstructor()
                : named(point.method());
        return new Hook(point.className(), point.toString(), methods.and(these), Advice.to(advice), loss,
                ClassLoader.getSystemClassLoader());
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

    public static void parkedWhilePinned(EventLoop loop, Task<?> task, StackTraceElement[] stack) {
        BlockingCalls calls = blockingCalls;
        if (calls != null) {
            calls.parkedWhilePinned(loop, loop.name(), Names.task(task), stack);
        }
    }

    public static void loopClosed(EventLoop loop) {
        BlockingCheck.loopCoreStopped(loop); // a loop adopted while it ran has no hook at the end of that run
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
    // Each advice suppresses what its hook throws: the agent must never break the application, and
    // a hook that fails (a bug, or the agent's jar rewritten so that a class not loaded yet cannot
    // be read) loses a detection, as BlockingCheck loses a failed report.

    /** Around the loop's iterations: once per run, not per callback or per task. */
    static final class LoopRuns {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Object loop) {
            BlockingCheck.loopCoreStarted(loop);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.This Object loop) {
            BlockingCheck.loopCoreStopped(loop);
        }
    }

    /** Around the loop's own wait in select: only when the loop has nothing to run. */
    static final class LoopWaits {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter() {
            BlockingCheck.enterIdle();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit() {
            BlockingCheck.exitIdle();
        }
    }

    /** Told by loop-core's carrier watcher, on its thread: rare (a task that parked while pinned). */
    static final class ParkedWhilePinned {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This EventLoop loop, @Advice.Argument(0) Task<?> task, @Advice.Argument(1) StackTraceElement[] stack) {
            LoopHooks.parkedWhilePinned(loop, task, stack);
        }
    }

    static final class TaskCreated {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Return Task<?> task) {
            LoopHooks.taskCreated(task);
        }
    }

    static final class LoopClosed {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This EventLoop loop) {
            LoopHooks.loopClosed(loop);
        }
    }

    /** Per coroutine: a nursery entry, tens of nanoseconds (see NeverAwaited). */
    static final class CoroutineCreated {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Coroutine<?> coroutine) {
            LoopHooks.coroutineCreated(coroutine);
        }
    }

    /** Per await of a coroutine: one volatile read while no coroutine outlived a nursery sweep. */
    static final class CoroutineConsumed {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Coroutine<?> coroutine) {
            if (LoopHooks.isWatchingCoroutines()) {
                LoopHooks.coroutineConsumed(coroutine);
            }
        }
    }

    /** Per failure only. */
    static final class FutureFailed {
        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.This Future<?> future) {
            LoopHooks.futureFailed(future);
        }
    }

    /** Per result taken: one volatile read while no failed future is tracked. */
    static final class OutcomeRetrieved {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.This Future<?> future) {
            if (LoopHooks.isTrackingFailures()) {
                LoopHooks.outcomeRetrieved(future);
            }
        }
    }
}
