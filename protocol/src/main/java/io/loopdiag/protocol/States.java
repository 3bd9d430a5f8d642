package io.loopdiag.protocol;

/** The states a dump gives loops and tasks ({@link Fields#STATE}). */
public final class States {
    /**
     * A loop running on its thread (a foreign loop: running a unit of work; a Reactor or named
     * thread, which has none: runnable); a task holding the baton.
     */
    public static final String RUNNING = "running";
    /** A loop that is open and not running (a foreign loop: between units of work, or its thread not runnable). */
    public static final String IDLE = "idle";
    /** A loop that is closed. */
    public static final String CLOSED = "closed";
    /** A task not stepped yet. */
    public static final String NEW = "new";
    /** A task parked at an await, waiting to be stepped. */
    public static final String SUSPENDED = "suspended";

    private States() {
    }
}
