package io.loopdiag.agent;

import io.loopdiag.protocol.Kind;
import java.util.List;

/**
 * One sighting of a problem, as a detector reports it to {@link Findings}: the same problem seen
 * again (same kind, same stack) is another occurrence of the same finding.
 *
 * @param loopKey   the loop as the watchdog knows it ({@link WatchedLoop#key}), or null when no loop is known:
 *                  the loop's findings by kind count the occurrence
 * @param loop      the loop's name, or null when no loop is known
 * @param task      the task's name and id ({@code 'fetch' (#3)}), or null
 * @param message   the one-line description after the kind and the loop
 * @param stack     where it happened, innermost first
 * @param createdAt where the task or coroutine concerned was created, or null if not recorded
 * @param millis    how long it lasted (slow-callback, loop-stall), else 0
 */
record Occurrence(Kind kind, Object loopKey, String loop, String task, String message, List<StackTraceElement> stack,
                  List<StackTraceElement> createdAt, long millis) {

    /** The same occurrence without its stack: a stall's update whose stack has not moved. */
    Occurrence withoutStack() {
        return new Occurrence(kind, loopKey, loop, task, message, List.of(), createdAt, millis);
    }

    /** The same occurrence with {@code key} as its loop's key. */
    Occurrence withLoopKey(Object key) {
        return new Occurrence(kind, key, loop, task, message, stack, createdAt, millis);
    }
}
