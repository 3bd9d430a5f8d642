package io.loopdiag.cli;

/** The command's exit codes, in one place; {@code --help} lists them. */
public final class ExitCodes {
    /** Success, nothing found. */
    public static final int OK = 0;
    /** Findings, or the operation failed. */
    public static final int FINDINGS_OR_FAILURE = 1;
    /** Bad usage: unknown verb or option, bad argument. */
    public static final int USAGE = 2;

    private ExitCodes() {
    }
}
