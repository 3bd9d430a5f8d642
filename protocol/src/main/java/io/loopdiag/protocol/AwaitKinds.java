package io.loopdiag.protocol;

/**
 * What a suspended task waits for, as a dump's {@code awaiting.kind} says it ({@link
 * Fields#AWAITING}): one word per kind of thing loop-core lets a task await. A future made by
 * other code may use a word of its own.
 */
public final class AwaitKinds {
    /** Another task; the dump gives its id ({@link Fields#TASK_ID}). */
    public static final String TASK = "task";
    /** A plain future. */
    public static final String FUTURE = "future";
    /** A sleep's timer; the dump gives when it is due ({@link Fields#DUE_IN_MILLIS}). */
    public static final String TIMER = "timer";
    /** A channel becoming readable or writable. */
    public static final String IO = "io";
    /** A child process's exit ({@code Subprocess.waitFor}); the description gives its pid and command. */
    public static final String PROCESS = "process";
    /** Work handed to a worker thread ({@code toThread}, {@code runInExecutor}). */
    public static final String WORKER = "worker";
    /** Several futures at once ({@code gather}). */
    public static final String GATHER = "gather";
    /** Several futures until one, the first failure or all are done ({@code Async.wait}). */
    public static final String WAIT = "wait";
    /** The next of several futures to complete ({@code Async.asCompleted}). */
    public static final String AS_COMPLETED = "as-completed";
    /** The children of a task group, which its task waits for once its body is done ({@code TaskGroup.run}). */
    public static final String GROUP = "group";
    /** A future guarded from cancellation ({@code shield}). */
    public static final String SHIELD = "shield";
    public static final String LOCK = "lock";
    public static final String QUEUE = "queue";
    public static final String EVENT = "event";
    public static final String SEMAPHORE = "semaphore";
    public static final String CONDITION = "condition";
    /** A barrier's round ({@code Barrier.await}); no task is behind it. */
    public static final String BARRIER = "barrier";

    private AwaitKinds() {
    }
}
