package io.loopdiag.loop;

import java.util.Arrays;
import java.util.List;

/**
 * A picture of one loop taken from any thread without stopping it: its state, what it is running
 * now (with the stack of the thread running it, so a stuck loop is shown), its queue lengths and
 * every task that is not done, each with what it awaits and its suspension stack. Fields are read
 * once each while the loop moves on, so a snapshot may be slightly torn, like
 * {@code python -m asyncio ps}. Times are on the loop's clock, in nanoseconds.
 *
 * @param state         {@code running}, {@code idle} (open, not running) or {@code closed}
 * @param takenAtNanos  the loop's clock when the snapshot was taken
 * @param running       the callback being dispatched now, or null
 * @param tasks         tasks that are not done, by id
 */
public record LoopSnapshot(long loopId, String name, String state, String threadName, long takenAtNanos,
                           int readyCount, int timerCount, long dispatchCount, RunningCallback running,
                           List<TaskSnapshot> tasks) {

    /**
     * The callback being dispatched.
     *
     * @param sinceNanos at or before the moment it started: the loop reads its clock only every
     *                   few callbacks (the agent times each exactly)
     * @param taskId     the task it steps, or -1 for a plain callback
     * @param stack      the stack of the thread running it (the task's for a task step), innermost
     *                   first, the loop's own frames below the callback removed; empty without stacks
     */
    public record RunningCallback(String description, long sinceNanos, long taskId, List<StackTraceElement> stack) {
    }

    /**
     * One task.
     *
     * @param state               {@code new}, {@code running} or {@code suspended}
     * @param awaiting            what it waits for, or null when it is not suspended on a future
     * @param suspendedSinceNanos when it last suspended (approximate, like {@code sinceNanos})
     * @param stack               its suspension stack, innermost first, loop internals trimmed
     */
    public record TaskSnapshot(long id, String name, String state, Awaiting awaiting, long suspendedSinceNanos,
                               List<StackTraceElement> stack) {
    }

    /**
     * What a suspended task waits for.
     *
     * @param kind        {@code task}, {@code timer}, {@code io}, {@code worker}, {@code future}, or a
     *                    primitive's own word ({@code queue}, {@code lock}, ...)
     * @param taskId        the awaited task's id when {@code kind} is {@code task}, else -1
     * @param deadlineNanos when a sleep's timer is due, on the loop's clock; -1 for other kinds
     */
    public record Awaiting(String kind, String description, long taskId, long deadlineNanos) {
    }

    /** Tasks past which stacks are taken in parallel (the common pool): below it, forking costs more than it saves. */
    private static final int PARALLEL_FROM = 1_000;

    static LoopSnapshot of(EventLoop loop, boolean withStacks) {
        long now = loop.clock().nanoTime();
        Thread thread = loop.thread();
        String state = loop.isClosed() ? "closed" : thread != null ? "running" : "idle";
        RunningCallback running = runningCallback(loop, withStacks);
        List<Task<?>> all = loop.allTasks();
        // A stack walk of a parked virtual thread costs about 8 us here, so 100,000 of them are spread over the cores.
        List<TaskSnapshot> tasks = withStacks && all.size() > PARALLEL_FROM
                ? all.parallelStream().map(task -> taskSnapshot(task, true)).toList()
                : all.stream().map(task -> taskSnapshot(task, withStacks)).toList();
        return new LoopSnapshot(loop.id(), loop.name(), state, thread != null ? thread.getName() : null, now,
                loop.readyCount(), loop.timerCount(), loop.dispatchCount(), running, tasks);
    }

    /** The callback {@code loop} is dispatching now, or null; the cheap part of a snapshot, for watchdogs. */
    static RunningCallback runningCallback(EventLoop loop, boolean withStack) {
        Handle handle = loop.currentHandle();
        if (handle == null) {
            return null;
        }
        Runnable callback = handle.callback;
        Task<?> stepped = callback instanceof Task.Step step ? step.task() : null;
        Thread runner = stepped != null ? stepped.thread() : loop.thread();
        List<StackTraceElement> stack = withStack && runner != null ? runningStack(runner.getStackTrace()) : List.of();
        return new RunningCallback(Handle.describe(callback), loop.clockStampNanos(),
                stepped != null ? stepped.id() : -1, stack);
    }

    private static TaskSnapshot taskSnapshot(Task<?> task, boolean withStacks) {
        Future<?> awaited = task.awaiting();
        Awaiting awaiting = null;
        if (awaited instanceof Task<?> other) {
            awaiting = new Awaiting("task", other.toString(), other.id(), -1);
        } else if (awaited != null) {
            TimerHandle timer = awaited instanceof Async.SleepFuture sleep ? sleep.timer : null;
            awaiting = new Awaiting(awaited.awaitKind(),
                    awaited.awaitLabel() != null ? awaited.awaitLabel() : awaited.toString(), -1,
                    timer != null ? timer.deadlineNanos() : -1);
        }
        List<StackTraceElement> stack = List.of();
        Thread thread = task.thread();
        if (withStacks && thread != null) {
            StackTraceElement[] frames = thread.getStackTrace();
            stack = task.isSuspended() ? suspensionStack(frames) : runningStack(frames);
        }
        return new TaskSnapshot(task.id(), task.name(), task.stateName(), awaiting, task.suspendedSinceNanos(), stack);
    }

    /**
     * A parked task's frames without the parking machinery above the first frame that is not the
     * loop's, the JDK's or the baton's, and without the task's own frames below its coroutine.
     */
    static List<StackTraceElement> suspensionStack(StackTraceElement[] frames) {
        int top = 0;
        while (top < frames.length && isParkingFrame(frames[top])) {
            top++;
        }
        // Of the loop's API frames (Async.await under Async.sleep under user code), keep the one the user called.
        while (top + 1 < frames.length && isLoopApiFrame(frames[top]) && isLoopApiFrame(frames[top + 1])) {
            top++;
        }
        return List.copyOf(Arrays.asList(frames).subList(top, bottomOf(frames, top)));
    }

    /**
     * A running thread's frames, innermost first (a blocking JDK call stays visible), without the
     * loop's own frames below the callback or the task's coroutine. Any thread.
     */
    public static List<StackTraceElement> runningStack(StackTraceElement[] frames) {
        return List.copyOf(Arrays.asList(frames).subList(0, bottomOf(frames, 0)));
    }

    private static int bottomOf(StackTraceElement[] frames, int from) {
        for (int i = from; i < frames.length; i++) {
            String cls = frames[i].getClassName();
            String method = frames[i].getMethodName();
            if ((cls.equals(Task.class.getName()) && method.equals("runCoroutine"))
                    || (cls.equals(EventLoop.class.getName()) && method.equals("dispatch"))) {
                return i;
            }
        }
        return frames.length;
    }

    /** Where loop-core's classes come from: a frame is the loop's own if its class comes from there too. */
    private static final java.security.CodeSource LOOP_CORE = LoopSnapshot.class.getProtectionDomain().getCodeSource();
    private static final java.util.Map<String, Boolean> LOOP_CORE_CLASSES = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * True for a frame of loop-core itself (not of code in the same packages elsewhere, such as
     * tests), decided once per class name by where the class was loaded from.
     */
    private static boolean isLoopApiFrame(StackTraceElement frame) {
        String name = frame.getClassName();
        if (!name.startsWith("io.loopdiag.loop.")) {
            return false;
        }
        return LOOP_CORE_CLASSES.computeIfAbsent(name, cls -> {
            try {
                Class<?> loaded = Class.forName(cls, false, LoopSnapshot.class.getClassLoader());
                return LOOP_CORE != null && LOOP_CORE.equals(loaded.getProtectionDomain().getCodeSource());
            } catch (ClassNotFoundException | LinkageError | SecurityException e) {
                return false;
            }
        });
    }

    private static boolean isParkingFrame(StackTraceElement frame) {
        String cls = frame.getClassName();
        return cls.startsWith("java.") || cls.startsWith("jdk.") || cls.startsWith("sun.")
                || cls.equals(EventLoop.class.getName()) || cls.equals(Task.class.getName())
                || cls.equals(Future.class.getName());
    }
}
