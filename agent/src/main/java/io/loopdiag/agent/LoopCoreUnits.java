package io.loopdiag.agent;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Handle;
import io.loopdiag.loop.LoopSnapshot;
import io.loopdiag.loop.Task;
import io.loopdiag.loop.LoopSnapshot.RunningCallback;
import java.util.ArrayList;
import java.util.List;

/**
 * Which unit of loop-core's a thread runs now, for a finding made on that thread. Apart from the
 * foreign loops' naming so that a JVM without loop-core never loads loop-core's classes.
 */
final class LoopCoreUnits {
    private LoopCoreUnits() {
    }

    /** The current thread's loop-core task or callback. */
    static BlockingCalls.Where where() {
        Task<?> task = Task.current();
        EventLoop loop = EventLoop.current();
        String taskName = Names.task(task);
        String unit;
        if (task != null) {
            unit = " in task " + taskName;
        } else if (loop != null && loop.currentCallback() != null) {
            unit = " in callback " + Handle.describe(loop.currentCallback());
        } else {
            unit = " on the loop thread";
        }
        return new BlockingCalls.Where(loop, loop != null ? loop.name() : null, taskName, unit);
    }

    /** A loop-core thread's frames without the loop's own below the callback or the task's coroutine. */
    static List<StackTraceElement> runningStack(StackTraceElement[] frames) {
        return LoopSnapshot.runningStack(frames);
    }

    /**
     * The open loops of loop-core in this JVM, oldest first, as the watchdog samples them;
     * {@code hooked}: the agent hooks each loop's runs and idle waits (with the blocking check).
     */
    static List<WatchedLoop> watched(boolean hooked) {
        List<EventLoop> open = EventLoop.allLoops();
        List<WatchedLoop> loops = new ArrayList<>(open.size());
        for (EventLoop loop : open) {
            loops.add(new Watched(loop, hooked));
        }
        return loops;
    }

    /** A loop-core loop: it publishes the handle it dispatches and a dispatch count. */
    record Watched(EventLoop loop, boolean hooked) implements WatchedLoop {
        /** A run begins in a hooked method, and an idle wait ends in one ({@code BlockingCheck.loopCoreStarted}, {@code exitIdle}). */
        @Override
        public boolean wakesWatchdog() {
            return hooked && (!loop.isRunning() || BlockingCheck.loopCoreWaits(loop));
        }

        @Override
        public Object key() {
            return loop;
        }

        @Override
        public String name() {
            return loop.name();
        }

        @Override
        public Object currentWork() {
            return loop.currentCallback();
        }

        @Override
        public long workCount() {
            return loop.dispatchCount();
        }

        @Override
        public Thread thread() {
            return loop.runningThread();
        }

        @Override
        public Counts counts() {
            List<Task<?>> tasks = loop.allTasks();
            long suspended = tasks.stream().filter(Task::isSuspended).count();
            return new Counts(loop.readyCount(), loop.timerCount(), tasks.size(), suspended);
        }

        @Override
        public boolean post(Runnable probe) {
            if (!loop.isRunning()) {
                return false; // a stopped loop would run it on its next start, far too late
            }
            try {
                loop.callSoonThreadsafe(probe);
                return true;
            } catch (RuntimeException closed) {
                return false;
            }
        }

        @Override
        public Running running() {
            RunningCallback callback = loop.runningCallback(true);
            return callback == null ? null : new Running(callback.description(),
                    callback.taskId() < 0 ? null : Names.task(callback.taskName(), callback.taskId()), callback.stack());
        }
    }
}
