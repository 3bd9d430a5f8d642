package io.loopdiag.protocol;

/**
 * The {@code schema} field of each JSON document loopdiag writes ({@link Fields#SCHEMA}). A change
 * that breaks a reader bumps the number; each has a JSON Schema file in {@code docs/schemas/}.
 */
public final class Schemas {
    /** The agent's report ({@code report=PATH}), read by {@code loopdiag check}. */
    public static final String REPORT = "loopdiag-report/1";
    /** The agent's answer to {@link Control#DUMP} and {@link Control#INFO}; {@code loopdiag dump --json}. */
    public static final String DUMP = "loopdiag-dump/1";
    /** {@code loopdiag ps --json}: a row per task and per loop. */
    public static final String PS = "loopdiag-ps/1";
    /** {@code loopdiag pstree --json}: per loop, the tasks, who waits on whom, and the cycles. */
    public static final String PSTREE = "loopdiag-pstree/1";
    /** {@code loopdiag hang --json}: what did not move across several dumps, and why. */
    public static final String HANG = "loopdiag-hang/1";
    /** {@code loopdiag list --json}. */
    public static final String LIST = "loopdiag-list/1";
    /** {@code loopdiag check --write-baseline}. */
    public static final String BASELINE = "loopdiag-baseline/1";

    private Schemas() {
    }
}
