package io.loopdiag.loop.net;

import java.io.IOException;

/**
 * Thrown by {@link StreamReader#readLine} when no newline appears within the reader's limit; the
 * buffered bytes stay in the reader (asyncio's {@code LimitOverrunError}).
 */
public class LimitOverrunException extends IOException {
    private final int consumed;

    public LimitOverrunException(String message, int consumed) {
        super(message);
        this.consumed = consumed;
    }

    /** How many bytes are buffered without a newline among them. */
    public int consumed() {
        return consumed;
    }
}
