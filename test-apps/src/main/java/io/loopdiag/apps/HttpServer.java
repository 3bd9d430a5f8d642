package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;
import static java.nio.charset.StandardCharsets.US_ASCII;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.net.Server;
import io.loopdiag.loop.net.StreamReader;
import io.loopdiag.loop.net.StreamWriter;
import io.loopdiag.loop.net.Streams;
import java.io.IOException;
import java.util.Arrays;

/**
 * {@code http-server [--port N]}: the plaintext "hello" of HTTP benchmarks on 127.0.0.1, one task
 * per connection like {@link EchoServer}, serving until killed. It prints
 * {@code http-server listening on 127.0.0.1:PORT} once it accepts connections.
 *
 * <p>Every request, whatever its method and path, is answered with {@link #RESPONSE}. A request
 * ends at its empty line ({@code \r\n\r\n}), plus the body its {@code Content-Length} announces;
 * requests may come pipelined several per read or split across reads, and the answers to all the
 * requests completed by one read go out in one write. {@code Connection: close} closes the
 * connection after its answer; a chunked body or an oversized header cannot be framed by this
 * little parser, so such a request gets a 4xx answer and the connection closes.
 */
final class HttpServer {
    static final String NAME = "http-server";
    static final String DESCRIPTION = "HTTP/1.1 hello on 127.0.0.1 (--port N, 0 for any), keep-alive, pipelining, one task per connection";
    private static final String HOST = "127.0.0.1";
    private static final int READ_CHUNK_BYTES = 64 * 1024;

    /** The one answer, byte for byte (the same as the Netty, asyncio and Node peers of the benchmark). */
    static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\n"
            + "Content-Type: text/plain\r\n"
            + "Content-Length: 13\r\n"
            + "Connection: keep-alive\r\n"
            + "\r\n"
            + "Hello, World!").getBytes(US_ASCII);
    /** The last answer on a connection whose request could not be framed. */
    private static final byte[] HEADER_TOO_LARGE = ("HTTP/1.1 431 Request Header Fields Too Large\r\n"
            + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(US_ASCII);
    private static final byte[] NOT_IMPLEMENTED = ("HTTP/1.1 501 Not Implemented\r\n"
            + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(US_ASCII);

    private HttpServer() {
    }

    static int main(String[] args) throws Exception {
        int port = parsePort(args);
        EventLoop.run(() -> {
            Server server = Streams.startServer(HttpServer::serve, HOST, port);
            System.out.println(NAME + " listening on " + HOST + ":" + server.port());
            System.out.flush();
            await(Async.loop().createFuture()); // serve until the process is killed
            return null;
        });
        return Main.EXIT_OK;
    }

    /**
     * One connection: answers every complete request of each read in one write, until EOF or a
     * close. A connection the client resets (as wrk does with requests in flight when it stops)
     * ends quietly, as in any HTTP server: it is no failure of the server's.
     */
    static void serve(StreamReader reader, StreamWriter writer) throws Exception {
        try {
            answer(reader, writer);
        } catch (IOException connectionLost) {
            // the reader or writer already closed the socket; Server closes the writer again, harmlessly
        }
    }

    private static void answer(StreamReader reader, StreamWriter writer) throws Exception {
        RequestScanner requests = new RequestScanner();
        byte[] answers = new byte[RESPONSE.length * 16]; // grown for deeper pipelines, reused across reads
        byte[] chunk;
        while ((chunk = reader.read(READ_CHUNK_BYTES)).length > 0) {
            int complete = requests.scan(chunk);
            if (complete > 0) {
                int length = complete * RESPONSE.length;
                if (answers.length < length) {
                    answers = new byte[length];
                }
                for (int i = 0; i < complete; i++) {
                    System.arraycopy(RESPONSE, 0, answers, i * RESPONSE.length, RESPONSE.length);
                }
                writer.write(answers, 0, length);
            }
            switch (requests.verdict()) {
                case KEEP_ALIVE -> writer.drain();
                case CLOSE -> {
                    return; // the connection's task ends: Server closes the writer once the answers are sent
                }
                case HEADER_TOO_LARGE -> {
                    writer.write(HEADER_TOO_LARGE);
                    return;
                }
                case UNFRAMEABLE -> {
                    writer.write(NOT_IMPLEMENTED);
                    return;
                }
            }
        }
    }

    /** What the connection does after the requests scanned so far. */
    enum Verdict { KEEP_ALIVE, CLOSE, HEADER_TOO_LARGE, UNFRAMEABLE }

    /**
     * Finds where requests end in a byte stream fed one read at a time, looking only at the header
     * lines that matter for framing ({@code Connection}, {@code Content-Length},
     * {@code Transfer-Encoding}). A line split across reads is kept until its end arrives. One
     * connection's, used by its task only.
     */
    static final class RequestScanner {
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
         * Scans the next bytes of the stream; returns how many requests they complete, up to and
         * including the first one that ends the connection (later bytes are ignored from then on).
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

    private static int parsePort(String[] args) {
        int port = 0;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                try {
                    port = Integer.parseInt(args[++i]);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--port needs a number, got '" + args[i] + "'");
                }
                if (port < 0 || port > 65535) {
                    throw new IllegalArgumentException("--port must be 0..65535, got " + port);
                }
            } else {
                throw new IllegalArgumentException("unknown argument '" + args[i] + "' (usage: " + NAME + " [--port N])");
            }
        }
        return port;
    }
}
