package io.loopdiag.protocol;

import java.util.List;

/**
 * The kinds of finding, in the order a CI summary lists them. {@link #id} is the word in
 * reports, logs, options ({@code --fail-on}) and annotations; constants for places that need a
 * compile-time constant (an annotation's default) are beside it.
 */
public enum Kind {
    BLOCKING_CALL(Kind.BLOCKING_CALL_ID,
            "A call that blocks the thread ran on an event loop: every other callback and task waited for it."),
    SLOW_CALLBACK("slow-callback",
            "A callback or task step ran longer than the slow threshold, delaying everything else on its loop."),
    LOOP_STALL("loop-stall",
            "A callback was still running past the slow threshold: the loop was stuck in it."),
    NEVER_AWAITED("never-awaited",
            "A coroutine was created and dropped without being awaited or run as a task: its work never happened."),
    LOST_EXCEPTION("lost-exception",
            "A future or task failed and nobody retrieved its exception: the error was lost.");

    /** {@link #BLOCKING_CALL}'s id as a constant: the default of {@code @LoopdiagCheck(failOn)} and {@code --fail-on}. */
    public static final String BLOCKING_CALL_ID = "blocking-call";

    private static final List<Kind> ALL = List.of(values());

    private final String id;
    private final String description;

    Kind(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** The kind's word: {@code slow-callback}. */
    public String id() {
        return id;
    }

    /** One sentence saying what a finding of this kind means, for SARIF rules and docs. */
    public String description() {
        return description;
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
