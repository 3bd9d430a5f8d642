package io.loopdiag.loop;

/** A future was asked for a result it does not have yet, or was completed twice. */
public class InvalidStateException extends IllegalStateException {
    public InvalidStateException(String message) {
        super(message);
    }
}
