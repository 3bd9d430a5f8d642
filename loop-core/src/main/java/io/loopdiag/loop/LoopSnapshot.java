package io.loopdiag.loop;

import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.LoopCoreHooks;
import io.loopdiag.protocol.States;
import io.loopdiag.loop.sync.Condition;
import io.loopdiag.loop.sync.Lock;
import io.loopdiag.loop.sync.Queue;
import io.loopdiag.loop.sync.Semaphore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;

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
 * @param tasks         tasks that are not done, by id; empty from {@link #withoutTasks}
 */
public record LoopSnapshot(long loopId, String name, String state, String threadName, long takenAtNanos,
                           int readyCount, int timerCount, long dispatchCount, RunningCallback running,
                           List<TaskSnapshot> tasks) {

    /**
     * The callback being dispatched.
     *
     * @param sinceNanos at or before the moment it started: the loop reads its clock only every
     *                   few callbacks
     * @param taskId     the task it steps, or -1 for a plain callback
     * @param taskName   that task's name, or null for a plain callback
     * @param stack      the stack of the thread running it (the task's for a task step), innermost
     *                   first, the loop's own frames below the callback removed; empty without stacks
     */
    public record RunningCallback(String description, long sinceNanos, long taskId, String taskName, List<StackTraceElement> stack) {
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
     * @param kind          one of {@link AwaitKinds}: {@code task}, {@code timer}, {@code io}, {@code lock}, ...
     * @param taskId        the awaited task's id when {@code kind} is {@code task}, else -1
     * @param deadlineNanos when a sleep's timer is due, on the loop's clock; -1 for other kinds
     * @param waitsOn       the ids of the tasks the wait is on, each once: the awaited task, a gather's
     *                      or a task group's children still running, a shield's inner task, a lock's
     *                      holder, the holders of a semaphore's permits, a condition's lock holder; empty
     *                      when no task can end the wait (a timer, I/O, an event, a worker)
     * @param worker        the thread running the work a task awaits ({@code toThread}, {@code runInExecutor}),
     *                      or null (another kind, or the work still queued for a thread)
     * @param size          how many items a queue holds, for a wait on a queue; else -1
     * @param io            the direction and channel of a wait for I/O, else null
     */
    public record Awaiting(String kind, String description, long taskId, long deadlineNanos, List<Long> waitsOn,
                           Worker worker, int size, IoWait io) {
    }

    /**
     * The thread running a task's work off the loop, as the dump saw it.
     *
     * @param stack its live stack, innermost first; empty without stacks
     */
    public record Worker(String name, long threadId, String state, List<StackTraceElement> stack) {
    }

    /**
     * How a snapshot reads a thread's stack, innermost frame first, as {@link Thread#getStackTrace}
     * does: {@link #JDK_STACKS}, or an equivalent that is cheaper to run (the agent's reads the
     * JDK's own thread snapshot where the JDK has one, docs/decisions.md).
     */
    @FunctionalInterface
    public interface StackSource {
        StackTraceElement[] of(Thread thread);
    }

    /** {@link Thread#getStackTrace}. */
    public static final StackSource JDK_STACKS = Thread::getStackTrace;

    /** Tasks whose stacks are walked together; a loop with fewer walks them on the calling thread alone, where a helper costs more than it saves. */
    private static final int CHUNK = 1_024;

    static LoopSnapshot of(EventLoop loop, boolean withStacks) {
        List<Task<?>> all = loop.allTasks();
        LoopSnapshot snapshot = withoutTasks(loop, withStacks);
        List<TaskSnapshot> tasks = new ArrayList<>(all.size());
        eachTask(all, withStacks ? JDK_STACKS : null, (task, taken) -> tasks.add(taken));
        return new LoopSnapshot(snapshot.loopId, snapshot.name, snapshot.state, snapshot.threadName, snapshot.takenAtNanos,
                snapshot.readyCount, snapshot.timerCount, snapshot.dispatchCount, snapshot.running, List.copyOf(tasks));
    }

    /**
     * The picture of {@code loop} without its tasks ({@link #tasks} is empty), for a caller that
     * takes them with {@link #eachTask} as it writes them out. Any thread.
     */
    public static LoopSnapshot withoutTasks(EventLoop loop, boolean withStack) {
        long now = loop.clock().nanoTime();
        Thread thread = loop.thread();
        String state = loop.isClosed() ? States.CLOSED : thread != null ? States.RUNNING : States.IDLE;
        return new LoopSnapshot(loop.id(), loop.name(), state, thread != null ? thread.getName() : null, now,
                loop.readyCount(), loop.timerCount(), loop.dispatchCount(), runningCallback(loop, withStack), List.of());
    }

    /**
     * Takes the snapshot of each of {@code tasks} (from {@link EventLoop#allTasks}), with the
     * stacks {@code stacks} reads or without stacks when it is null, and hands it to {@code action}
     * with its task, in order, keeping none: a dump of 100,000 tasks holds two
     * chunks of stacks at a time, so what it allocates dies young and the collector's pauses stay
     * short for the loop being dumped. Walking a parked virtual thread's stack costs hundreds of
     * callbacks (see docs/decisions.md), so while {@code action} takes one chunk, a helper from
     * the common pool walks the next, and the calling thread joins it when done.
     */
    public static <E extends Exception> void eachTask(List<Task<?>> tasks, StackSource stacks, TaskAction<E> action) throws E {
        Map<Frames, List<StackTraceElement>> kept = new ConcurrentHashMap<>();
        if (stacks == null || tasks.size() <= CHUNK) {
            for (Task<?> task : tasks) {
                action.accept(task, taskSnapshot(task, stacks, kept));
            }
            return;
        }
        ChunkWalk walk = ChunkWalk.start(tasks.subList(0, CHUNK), stacks, kept);
        for (int from = CHUNK; walk != null; from += CHUNK) {
            TaskSnapshot[] taken = walk.finish();
            List<Task<?>> chunk = walk.chunk;
            walk = from < tasks.size() ? ChunkWalk.start(tasks.subList(from, Math.min(from + CHUNK, tasks.size())), stacks, kept) : null;
            for (int i = 0; i < taken.length; i++) {
                action.accept(chunk.get(i), taken[i]);
            }
        }
    }

    /**
     * One chunk's snapshots with stacks, taken by a helper from the common pool and by the thread
     * that {@linkplain #finish finishes} it, each claiming the next task. The caller never waits
     * for the helper to start: a pool busy with the application's work leaves it all to the caller.
     */
    private static final class ChunkWalk implements Runnable {
        final List<Task<?>> chunk;
        private final StackSource stacks;
        private final Map<Frames, List<StackTraceElement>> kept;
        private final TaskSnapshot[] taken;
        private final AtomicInteger claimed = new AtomicInteger();
        private final AtomicInteger done = new AtomicInteger();
        /** What a walk threw, thrown again by {@link #finish}: not on a pool thread, where it would be the application's to log. */
        private volatile Throwable failed;

        private ChunkWalk(List<Task<?>> chunk, StackSource stacks, Map<Frames, List<StackTraceElement>> kept) {
            this.chunk = chunk;
            this.stacks = stacks;
            this.kept = kept;
            this.taken = new TaskSnapshot[chunk.size()];
        }

        static ChunkWalk start(List<Task<?>> chunk, StackSource stacks, Map<Frames, List<StackTraceElement>> kept) {
            ChunkWalk walk = new ChunkWalk(chunk, stacks, kept);
            ForkJoinPool.commonPool().execute(walk);
            return walk;
        }

        @Override
        public void run() {
            int i;
            while ((i = claimed.getAndIncrement()) < taken.length) {
                try {
                    taken[i] = taskSnapshot(chunk.get(i), stacks, kept);
                } catch (Throwable e) {
                    failed = e;
                } finally {
                    done.incrementAndGet(); // publishes taken[i]
                }
            }
        }

        /** Takes what is left, waits for the snapshots the helper claimed (one walk each at most), and returns them all. */
        TaskSnapshot[] finish() {
            run();
            while (done.get() < taken.length) {
                Thread.yield();
            }
            Throwable failure = failed;
            if (failure instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (failure instanceof Error error) {
                throw error;
            }
            return taken;
        }
    }

    /** What {@link #eachTask} does with each task's snapshot; it may throw, which ends the walk. */
    @FunctionalInterface
    public interface TaskAction<E extends Exception> {
        void accept(Task<?> task, TaskSnapshot snapshot) throws E;
    }

    /** The callback {@code loop} is dispatching now, or null; the cheap part of a snapshot, for watchdogs. */
    static RunningCallback runningCallback(EventLoop loop, boolean withStack) {
        Object callback = loop.currentCallback();
        if (callback == null) {
            return null;
        }
        Task<?> stepped = callback instanceof Task<?> task ? task : null;
        Thread runner = runningThread(loop);
        List<StackTraceElement> stack = withStack && runner != null ? runningStack(runner.getStackTrace()) : List.of();
        return new RunningCallback(Handle.describe(callback), loop.clockStampNanos(),
                stepped != null ? stepped.id() : -1, stepped != null ? stepped.name() : null, stack);
    }

    /** The thread running the callback {@code loop} dispatches now, or null: see {@link EventLoop#runningThread()}. */
    static Thread runningThread(EventLoop loop) {
        Object callback = loop.currentCallback();
        if (callback == null) {
            return null;
        }
        return callback instanceof Task<?> task ? task.thread() : loop.thread();
    }

    private static TaskSnapshot taskSnapshot(Task<?> task, StackSource stacks,
                                             Map<Frames, List<StackTraceElement>> kept) {
        Future<?> awaited = task.awaiting();
        Awaiting awaiting = awaited == null ? null : awaiting(awaited, stacks);
        List<StackTraceElement> stack = List.of();
        Thread thread = task.thread();
        if (stacks != null && thread != null) {
            stack = task.isSuspended() ? suspensionStack(task, thread, stacks, kept) : runningStack(stacks.of(thread));
        }
        return new TaskSnapshot(task.id(), task.name(), task.stateName(), awaiting, task.suspendedSinceNanos(), stack);
    }

    /** Distinct stacks one walk keeps for the next: past it, what it walks is not kept. */
    private static final int MAX_KEPT_STACKS = 1_024;

    /**
     * A suspended task's stack. A task's stack changes only while it runs, so a stack walked in
     * the suspension the task is still in is that suspension's: a second dump, and each of
     * {@code hang}'s, walks only the tasks that ran since the last, where walking a parked virtual
     * thread's stack costs microseconds. One walk keeps at most {@link #MAX_KEPT_STACKS} distinct
     * stacks, shared by every task suspended at the same place ({@code kept}), so the heap a dump
     * leaves behind in the target is bounded: about 36 bytes a task besides, in the loop's
     * {@link TaskTable}, not on the task (why: the table's comment).
     */
    private static List<StackTraceElement> suspensionStack(Task<?> task, Thread thread, StackSource stacks,
                                                           Map<Frames, List<StackTraceElement>> kept) {
        int suspension = task.suspensions();
        TaskTable table = task.loop.tasks;
        List<StackTraceElement> walked = table.walkedStack(task, suspension);
        if (walked != null) {
            return walked;
        }
        Frames frames = Frames.suspended(stacks.of(thread));
        if (task.isSuspended() && task.suspensions() == suspension) { // still the suspension walked
            // Looked up by its range of the walk: a stack seen before is not copied.
            List<StackTraceElement> shared = kept.get(frames);
            if (shared == null && kept.size() < MAX_KEPT_STACKS) {
                shared = kept.computeIfAbsent(frames.own(), Frames::copy);
            }
            if (shared != null) {
                table.keepWalked(task, suspension, shared);
                return shared;
            }
        }
        return frames.copy();
    }

    /** A range of a walked stack, equal to another of the same frames: what a walk's distinct stacks are kept by. */
    private record Frames(StackTraceElement[] walk, int from, int to) {
        /** A parked task's own frames in {@code walk}: see {@link #suspensionStack(StackTraceElement[])}. */
        static Frames suspended(StackTraceElement[] walk) {
            int top = topOf(walk);
            return new Frames(walk, top, bottomOf(walk, top));
        }

        /** The same frames in an array of their own, not the walk's. */
        Frames own() {
            return new Frames(Arrays.copyOfRange(walk, from, to), 0, to - from);
        }

        List<StackTraceElement> copy() {
            return List.of(Arrays.copyOfRange(walk, from, to));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Frames that && Arrays.equals(walk, from, to, that.walk, that.from, that.to);
        }

        @Override
        public int hashCode() {
            int hash = 1;
            for (int i = from; i < to; i++) {
                hash = 31 * hash + walk[i].hashCode();
            }
            return hash;
        }
    }

    /** What a task awaiting {@code awaited} waits for, followed through the future's await subject to the tasks behind it. */
    private static Awaiting awaiting(Future<?> awaited, StackSource stacks) {
        if (awaited instanceof Task<?> other) {
            return new Awaiting(AwaitKinds.TASK, other.toString(), other.id(), -1, List.of(other.id()), null, -1, null);
        }
        Object subject = awaited.awaitSubject();
        TimerHandle timer = awaited instanceof Async.TimedFuture timed ? timed.timer : null;
        Set<Long> waitsOn = subject == null ? Set.of() : new LinkedHashSet<>();
        tasksBehind(subject, waitsOn, 0);
        Worker worker = null;
        if (subject instanceof EventLoop.WorkerCall call && call.thread != null) {
            Thread thread = call.thread;
            worker = new Worker(thread.getName(), thread.threadId(), thread.getState().name(),
                    stacks != null ? List.of(stacks.of(thread)) : List.of());
        }
        return new Awaiting(awaited.awaitKind(), awaited.awaitLabel() != null ? awaited.awaitLabel() : awaited.toString(), -1,
                timer != null ? timer.deadlineNanos() : -1, List.copyOf(waitsOn), worker,
                subject instanceof Queue<?> queue ? queue.size() : -1, subject instanceof IoWait io ? io : null);
    }

    /** Nesting past which a subject is not followed (a gather of gathers of...): dumps stay bounded. */
    private static final int MAX_SUBJECT_DEPTH = 8;

    /**
     * Adds to {@code ids} the tasks that {@code subject} (a future's await subject) waits on: the
     * running ones of a gather's futures or a group's children (through nested gathers and shields),
     * a lock's holder, a semaphore's, a condition's lock's. Read from another thread while the loop
     * runs, so a primitive changing meanwhile may be seen before or after the change.
     */
    private static void tasksBehind(Object subject, Set<Long> ids, int depth) {
        if (subject == null || depth > MAX_SUBJECT_DEPTH) {
            return;
        }
        switch (subject) {
            case Task<?> task -> {
                if (!task.isDone()) {
                    ids.add(task.id());
                }
            }
            case Future<?> future -> tasksBehind(future.awaitSubject(), ids, depth + 1);
            case Collection<?> futures -> {
                for (Object future : futures.toArray()) {
                    tasksBehind(future, ids, depth + 1);
                }
            }
            case TaskGroup group -> group.runningChildren().forEach(child -> tasksBehind(child, ids, depth + 1));
            case Lock lock -> holder(lock.holder(), ids);
            case Condition condition -> holder(condition.lock().holder(), ids);
            case Semaphore semaphore -> semaphore.holders().forEach(holder -> holder(holder, ids));
            default -> { }
        }
    }

    /** A primitive's holder: even one that ended without releasing it, which is what holds the waiters then. */
    private static void holder(Task<?> task, Set<Long> ids) {
        if (task != null) {
            ids.add(task.id());
        }
    }

    /**
     * A parked task's frames without the parking machinery above the first frame that is not the
     * loop's, the JDK's or the baton's, and without the task's own frames below its coroutine.
     */
    static List<StackTraceElement> suspensionStack(StackTraceElement[] frames) {
        return Frames.suspended(frames).copy();
    }

    /** Where a parked task's own frames start in {@code frames}: see {@link #suspensionStack(StackTraceElement[])}. */
    private static int topOf(StackTraceElement[] frames) {
        int top = 0;
        while (top < frames.length && isParkingFrame(frames[top])) {
            top++;
        }
        // Of the loop's API frames (Async.await under Async.sleep under user code), keep the one the user called.
        while (top + 1 < frames.length && isLoopApiFrame(frames[top]) && isLoopApiFrame(frames[top + 1])) {
            top++;
        }
        return top;
    }

    /**
     * A running thread's frames, innermost first (a blocking JDK call stays visible), without the
     * loop's own frames below the callback or the task's coroutine. Any thread.
     */
    public static List<StackTraceElement> runningStack(StackTraceElement[] frames) {
        return List.of(Arrays.copyOfRange(frames, 0, bottomOf(frames, 0)));
    }

    /** Where the loop's own frames start below the code it runs: the task's coroutine, or the callback's dispatch. */
    private static int bottomOf(StackTraceElement[] frames, int from) {
        for (int i = from; i < frames.length; i++) {
            if (LoopCoreHooks.RUN_COROUTINE.is(frames[i]) || LoopCoreHooks.DISPATCH.is(frames[i])) {
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
        if (!Frame.isLoopCore(name)) {
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

    /** The JDK's park, or the baton's machinery above it. */
    private static boolean isParkingFrame(StackTraceElement frame) {
        return Frame.isJdk(frame) || LoopCoreHooks.isBatonFrame(frame.getClassName());
    }
}
