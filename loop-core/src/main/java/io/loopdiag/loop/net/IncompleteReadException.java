package io.loopdiag.loop.net;

import java.io.EOFException;

/** Thrown by {@link StreamReader#readExactly} when the stream ends first; carries the bytes that did arrive. */
public class IncompleteReadException extends EOFException {
    private final transient byte[] partial;
    private final int expected;

    public IncompleteReadException(byte[] partial, int expected) {
        super(partial.length + " bytes read on a total of " + expected + " expected bytes");
        this.partial = partial;
        this.expected = expected;
    }

    /** The bytes read before the end of the stream. */
    public byte[] partial() {
        return partial.clone();
    }

    public int expected() {
        return expected;
    }
}
