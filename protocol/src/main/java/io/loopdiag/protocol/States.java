package io.loopdiag.protocol;

/** The states a dump gives loops and tasks ({@link Fields#STATE}). */
public final class States {
    /** A loop running on its thread; a task holding the baton. */
    public static final String RUNNING = "running";
    /** A loop that is open and not running. */
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
