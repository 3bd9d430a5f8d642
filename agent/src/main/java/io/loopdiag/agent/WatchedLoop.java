package io.loopdiag.agent;

import java.util.List;

/**
 * A loop as the {@link Watchdog} samples it: the unit of work it runs now (a callback, a task
 * step) and how many it has started, both read at no cost to the loop; and, only when a unit has
 * run long, its description and the stack of the thread running it. Sampled from the watchdog's
 * thread while the loop runs, so every answer may be a moment old.
 */
interface WatchedLoop {
    /** What tells this loop apart across samples (the loop object itself): spans are kept per key. */
    Object key();

    String name();

    /** The loop's kind ({@code loop-core}, {@code netty}, {@code awt}...). */
    default String kind() {
        return io.loopdiag.protocol.LoopKinds.LOOP_CORE;
    }

    /** What waits on the loop now, for its health; costs a look at its queues (and at its tasks, for loop-core). */
    default Counts counts() {
        return new Counts(0, 0, 0, 0);
    }

    /**
     * Asks the loop to run {@code probe} as soon as it can, as any other unit of work (loop-core's
     * callSoonThreadsafe, Netty's execute, AWT's invokeLater); false if it cannot run one now.
     */
    default boolean post(Runnable probe) {
        return false;
    }

    /** The unit running now, or null between units. */
    Object currentWork();

    /** How many units the loop has started: the same unit seen in two samples has the same count. */
    long workCount();

    /** Of {@link #workCount}, the units that found nothing to do (a Netty 4.2 I/O batch without I/O): not the loop's work. */
    default long emptyCount() {
        return 0;
    }

    /**
     * Whether the loop, idle now, begins its next unit through a hook that wakes a quiet watchdog
     * ({@code BlockingCheck.quiet}): every unit of a foreign loop does; a loop-core loop does
     * when it is not running or waits in its idle wait, where the agent hooks both.
     */
    default boolean wakesWatchdog() {
        return true;
    }

    /** The thread running the unit now, or null between units: asked for its state, at no cost to the loop. */
    default Thread thread() {
        return null;
    }

    /** The unit running now with its stack (innermost first), or null if none runs now. Costs one stack walk. */
    Running running();

    /** The stack of the unit running now (innermost first), or empty: {@link #running()} without naming the unit. */
    default List<StackTraceElement> stack() {
        Running now = running();
        return now == null ? List.of() : now.stack();
    }

    /**
     * What waits on a loop: units ready to run, timers or scheduled tasks, loop-core tasks not done
     * and, of those, the suspended ones.
     */
    record Counts(long ready, long timers, long tasks, long suspended) {
    }

    /**
     * A unit of work that is running.
     *
     * @param task the task it steps as findings name it ({@code 'fetch' (#3)}), or null for a plain callback
     */
    record Running(String description, String task, List<StackTraceElement> stack) {
    }
}
