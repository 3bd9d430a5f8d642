package io.loopdiag.protocol;

import java.util.List;

/**
 * loop-core's hook points: the private methods the agent instruments, and the frames loop-core's
 * snapshots trim a stack at. Both sides name them only through these constants; renaming one of
 * the methods in loop-core fails loop-core's {@code HookPointsTest}, and an agent given a loop-core
 * without it says so in its self-check.
 */
public final class LoopCoreHooks {
    public static final String EVENT_LOOP = "io.loopdiag.loop.EventLoop";
    public static final String TASK = "io.loopdiag.loop.Task";
    public static final String COROUTINE = "io.loopdiag.loop.Coroutine";
    public static final String FUTURE = "io.loopdiag.loop.Future";
    /** The hand-off between a loop's thread and its tasks' threads; it parks on the loop ({@link #BATON_BLOCKER}). */
    public static final String BATON = "io.loopdiag.loop.Baton";

    /** The loop proper, on the loop's thread: the agent marks the thread as a loop's while it runs. */
    public static final HookPoint RUN_ITERATIONS = new HookPoint(EVENT_LOOP, "runIterations");
    /** The loop's own wait in select: blocking inside it is the loop idling, not a blocking call. */
    public static final HookPoint WAIT_FOR_IO = new HookPoint(EVENT_LOOP, "waitForIo");
    /** The one method that invokes callbacks: a callback's stack ends above it. */
    public static final HookPoint DISPATCH = new HookPoint(EVENT_LOOP, "dispatch");
    /** Makes a task of a coroutine: the agent records where. */
    public static final HookPoint CREATE_TASK = new HookPoint(EVENT_LOOP, "createTask");
    /** Closes a loop: what it never awaited or retrieved by then never will be. */
    public static final HookPoint CLOSE = new HookPoint(EVENT_LOOP, "close");
    /** A task's coroutine on the task's own thread: marked as a loop's; a task's stack ends above it. */
    public static final HookPoint RUN_COROUTINE = new HookPoint(TASK, "runCoroutine");
    /** A coroutine is created: its constructors. */
    public static final HookPoint NEW_COROUTINE = new HookPoint(COROUTINE, HookPoint.CONSTRUCTOR);
    /** A coroutine is awaited or made a task. */
    public static final HookPoint CONSUME = new HookPoint(COROUTINE, "consume");
    /** A future fails. */
    public static final HookPoint SET_EXCEPTION = new HookPoint(FUTURE, "setException");
    /** A future's outcome is retrieved: its exception was not lost. */
    public static final HookPoint RESULT = new HookPoint(FUTURE, "result");
    public static final HookPoint EXCEPTION = new HookPoint(FUTURE, "exception");
    public static final HookPoint COPY_OUTCOME_TO = new HookPoint(FUTURE, "copyOutcomeTo");
    public static final HookPoint CANCEL = new HookPoint(FUTURE, "cancel");
    /** A task (or the loop's thread) parked while pinned to the loop's own carrier thread: where, on the carriers' watcher. */
    public static final HookPoint REPORT_PINNED = new HookPoint(EVENT_LOOP, "reportPinned");

    /** Every hook point. */
    public static final List<HookPoint> ALL = List.of(RUN_ITERATIONS, WAIT_FOR_IO, DISPATCH, CREATE_TASK, CLOSE,
            RUN_COROUTINE, NEW_COROUTINE, CONSUME, SET_EXCEPTION, RESULT, EXCEPTION, COPY_OUTCOME_TO, CANCEL,
            REPORT_PINNED);

    /**
     * The class whose instance a loop and its tasks park on to hand each other the baton: the
     * agent tells that park, the most frequent of all, from a blocking call by its blocker's class.
     */
    public static final String BATON_BLOCKER = EVENT_LOOP;

    /** The classes whose frames sit between a suspended task's code and the JDK's park: the baton's machinery. */
    public static boolean isBatonFrame(String className) {
        return className.equals(EVENT_LOOP) || className.equals(BATON) || className.equals(TASK) || className.equals(FUTURE);
    }

    private LoopCoreHooks() {
    }
}
