package io.loopdiag.protocol;

import java.util.List;

/**
 * The kinds of finding, in the order a CI summary lists them. {@link #id} is the word in
 * reports, logs, options ({@code --fail-on}) and annotations; constants for places that need a
 * compile-time constant (an annotation's default) are beside it.
 */
public enum Kind {
    BLOCKING_CALL(Kind.BLOCKING_CALL_ID,
            "A call that blocks the thread ran on an event loop: every other callback and task waited for it.",
            "Move the call off the loop: run it on a worker (loop-core's runInExecutor, Vert.x's executeBlocking, a Netty"
                    + " EventExecutorGroup of its own) or use its non-blocking form. A call known to be brief can be allowed"
                    + " with the agent's allow option."),
    SLOW_CALLBACK("slow-callback",
            "A callback or task step ran longer than the slow threshold, delaying everything else on its loop.",
            "Split the work into steps that give the loop back between them, or move the computation to a worker thread."),
    LOOP_STALL("loop-stall",
            "A callback was still running past the slow threshold: the loop was stuck in it.",
            "The stack is where the loop was stuck: find what that code waits for or computes (a lock, I/O, a long loop)"
                    + " and move it off the loop."),
    NEVER_AWAITED("never-awaited",
            "A coroutine was created and dropped without being awaited or run as a task: its work never happened.",
            "Await the coroutine, or run it as a task (createTask) and keep the task."),
    LOST_EXCEPTION("lost-exception",
            "A future or task failed and nobody retrieved its exception: the error was lost.",
            "Await the future or task, or add a done callback that reads its exception.");

    /** {@link #BLOCKING_CALL}'s id as a constant: the default of {@code @LoopdiagCheck(failOn)} and {@code --fail-on}. */
    public static final String BLOCKING_CALL_ID = "blocking-call";

    private static final List<Kind> ALL = List.of(values());

    private final String id;
    private final String description;
    private final String advice;

    Kind(String id, String description, String advice) {
        this.id = id;
        this.description = description;
        this.advice = advice;
    }

    /** The kind's word: {@code slow-callback}. */
    public String id() {
        return id;
    }

    /** One sentence saying what a finding of this kind means, for SARIF rules and docs. */
    public String description() {
        return description;
    }

    /** What to do about a finding of this kind, for SARIF rules' help and docs. */
    public String advice() {
        return advice;
    }

    /** The kind's name as a word in PascalCase: {@code BlockingCall}, for SARIF rule names. */
    public String ruleName() {
        StringBuilder name = new StringBuilder();
        for (String part : id.split("-")) {
            name.append(Character.toUpperCase(part.charAt(0))).append(part, 1, part.length());
        }
        return name.toString();
    }

    /** The kind whose id is {@code id}, or null. */
    public static Kind of(String id) {
        for (Kind kind : ALL) {
            if (kind.id.equals(id)) {
                return kind;
            }
        }
        return null;
    }

    /** Every id, in order: {@code blocking-call, slow-callback, ...}. */
    public static List<String> ids() {
        return ALL.stream().map(Kind::id).toList();
    }

    @Override
    public String toString() {
        return id;
    }
}
