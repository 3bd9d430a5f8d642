package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.util.Arrays;

/**
 * Finds where HTTP/1.1 requests end in one connection's bytes, fed one read at a time, for
 * {@link HttpServer}: since every request gets the same answer, it parses no request line, only the
 * header lines that frame a request ({@code Connection}, {@code Content-Length},
 * {@code Transfer-Encoding}). One connection's, used by its task only.
 */
final class HttpRequestFramer {
    /** What the connection does after the requests scanned so far. */
    enum Verdict {
        /** Read on. */
        KEEP_ALIVE,
        /**
         * The last request counted asked for {@code Connection: close}: answer it, then close. Only
         * that closes, whatever the HTTP version, since the one answer says {@code Connection: keep-alive}.
         */
        CLOSE,
        /** A request line or header line, or a header section, over {@link #MAX_HEADER_BYTES}: refuse (431). */
        HEADER_TOO_LARGE,
        /** A body whose end cannot be found here ({@code Transfer-Encoding}, a bad {@code Content-Length}): refuse (501). */
        UNFRAMEABLE
    }

    /** A longer request line or header line, or a longer header section, is refused (431). */
    static final int MAX_HEADER_BYTES = 16 * 1024;
    private static final byte[] CONNECTION = "connection:".getBytes(US_ASCII);
    private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(US_ASCII);
    private static final byte[] TRANSFER_ENCODING = "transfer-encoding:".getBytes(US_ASCII);

    /** The start of a line that began in an earlier read: its bytes so far. */
    private byte[] partialLine = new byte[256];
    private int partialLength;
    /** Lines seen in the current request (0: between requests, where stray empty lines are skipped). */
    private int lines;
    private int headerBytes;
    private boolean closeRequested;
    private long contentLength;
    /** Bytes of the current request's body still to skip. */
    private long bodyRemaining;
    private Verdict verdict = Verdict.KEEP_ALIVE;

    /**
     * Scans the next bytes of the stream, cut anywhere (a line or a body may go on in the next
     * read); returns how many requests they complete. Once {@link #verdict()} is no longer
     * {@code KEEP_ALIVE} (after the request that asked to close, or at one refused, which is not
     * counted), the bytes after it and any later ones are ignored.
     */
    int scan(byte[] bytes) {
        if (verdict != Verdict.KEEP_ALIVE) {
            return 0;
        }
        int complete = 0;
        int position = 0;
        while (position < bytes.length) {
            if (bodyRemaining > 0) {
                int skipped = (int) Math.min(bodyRemaining, bytes.length - position);
                bodyRemaining -= skipped;
                position += skipped;
                if (bodyRemaining == 0) {
                    complete++;
                    if (closeRequested) {
                        verdict = Verdict.CLOSE;
                        return complete;
                    }
                    startNextRequest();
                }
                continue;
            }
            int newline = indexOf(bytes, (byte) '\n', position);
            if (newline < 0) {
                keepPartial(bytes, position, bytes.length);
                break;
            }
            boolean ended;
            if (partialLength == 0) {
                ended = line(bytes, position, newline);
            } else {
                keepPartial(bytes, position, newline);
                ended = verdict == Verdict.KEEP_ALIVE && line(partialLine, 0, partialLength);
                partialLength = 0;
            }
            position = newline + 1;
            if (verdict != Verdict.KEEP_ALIVE) {
                return complete;
            }
            if (ended) {
                if (contentLength > 0) {
                    bodyRemaining = contentLength;
                    continue;
                }
                complete++;
                if (closeRequested) {
                    verdict = Verdict.CLOSE;
                    return complete;
                }
                startNextRequest();
            }
        }
        return complete;
    }

    Verdict verdict() {
        return verdict;
    }

    /**
     * True if the bytes scanned so far stop inside a request: if the stream ends now, that request
     * was cut short, and it is never counted.
     */
    boolean midRequest() {
        return lines > 0 || partialLength > 0;
    }

    private void startNextRequest() {
        lines = 0;
        headerBytes = 0;
        closeRequested = false;
        contentLength = 0;
    }

    /** One line without its {@code \n}; returns true if it is the empty line that ends a request's header. */
    private boolean line(byte[] bytes, int from, int to) {
        if (to > from && bytes[to - 1] == '\r') {
            to--;
        }
        if (to == from) {
            return lines > 0; // an empty line before a request line is skipped (RFC 9112, 2.2)
        }
        lines++;
        headerBytes += to - from + 2;
        if (headerBytes > MAX_HEADER_BYTES) {
            verdict = Verdict.HEADER_TOO_LARGE;
        } else if (lines > 1) {
            header(bytes, from, to);
        }
        return false;
    }

    private void header(byte[] bytes, int from, int to) {
        if (startsWithIgnoreCase(bytes, from, to, CONNECTION)) {
            closeRequested |= hasToken(bytes, from + CONNECTION.length, to, "close");
        } else if (startsWithIgnoreCase(bytes, from, to, CONTENT_LENGTH)) {
            String value = new String(bytes, from + CONTENT_LENGTH.length, to - from - CONTENT_LENGTH.length, US_ASCII).strip();
            try {
                contentLength = Long.parseLong(value);
            } catch (NumberFormatException e) {
                contentLength = -1;
            }
            if (contentLength < 0) {
                verdict = Verdict.UNFRAMEABLE;
            }
        } else if (startsWithIgnoreCase(bytes, from, to, TRANSFER_ENCODING)) {
            verdict = Verdict.UNFRAMEABLE; // chunked bodies are not parsed here
        }
    }

    private void keepPartial(byte[] bytes, int from, int to) {
        int length = to - from;
        if (partialLength + length > MAX_HEADER_BYTES) {
            verdict = Verdict.HEADER_TOO_LARGE;
            return;
        }
        if (partialLine.length < partialLength + length) {
            partialLine = Arrays.copyOf(partialLine, Math.max(partialLine.length * 2, partialLength + length));
        }
        System.arraycopy(bytes, from, partialLine, partialLength, length);
        partialLength += length;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static boolean startsWithIgnoreCase(byte[] bytes, int from, int to, byte[] lowerCasePrefix) {
        if (to - from < lowerCasePrefix.length) {
            return false;
        }
        for (int i = 0; i < lowerCasePrefix.length; i++) {
            if (lowerCase(bytes[from + i]) != lowerCasePrefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** True if the comma-separated header value in {@code bytes[from, to)} holds {@code token}, ignoring case. */
    private static boolean hasToken(byte[] bytes, int from, int to, String token) {
        for (String part : new String(bytes, from, to - from, US_ASCII).split(",")) {
            if (part.strip().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }

    private static byte lowerCase(byte b) {
        return b >= 'A' && b <= 'Z' ? (byte) (b + ('a' - 'A')) : b;
    }
}
