package io.loopdiag.cli;

/** Why a verb cannot do what it was asked, in one line a user can act on, with the exit code it means. */
final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    final int exitCode;

    Failure(String message, int exitCode) {
        super(message);
        this.exitCode = exitCode;
    }

    /** A failure of the operation (exit 1). */
    Failure(String message) {
        this(message, ExitCodes.FINDINGS_OR_FAILURE);
    }
}
