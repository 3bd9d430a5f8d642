package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.IoWait;
import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * The reading half of a stream connection, or a subprocess's output (asyncio's {@code StreamReader}).
 * A reader callback on the loop moves bytes from the socket (or pipe) into a buffer; when the buffer holds more than the limit,
 * the loop stops watching the socket (the peer then feels back-pressure through TCP) until a read
 * takes the buffer back under it. The suspending methods may be called only inside a task of the
 * reader's loop, and by one task at a time. On a TLS connection the callback reads plaintext from
 * a {@link TlsChannel} instead of the socket, and behaves the same.
 */
public final class StreamReader {
    /** The default buffer limit, asyncio's: past twice this many bytes, reading pauses. */
    public static final int DEFAULT_LIMIT = 64 * 1024;
    /** The most one reader callback takes from the socket: one read per readiness, like asyncio's max_size. */
    private static final int MAX_READ_PER_CALLBACK = 256 * 1024;

    private final EventLoop loop;
    private final SelectableChannel channel;
    /** Where the bytes come from: the socket itself, or its TLS session. */
    private final ReadableByteChannel source;
    /** The TLS session, or null on plain TCP. */
    private final TlsChannel tls;
    private final String peer;
    private final int limit;
    private final ByteQueue buffer = new ByteQueue();
    private boolean eof;
    private boolean paused;
    private IOException failure;
    /** The future a task awaits for more data (or EOF, or a failure), or null if none waits. */
    private Future<Void> waiter;

    /** A reader of {@code channel}: a socket, or a pipe's end. */
    <C extends SelectableChannel & ReadableByteChannel> StreamReader(EventLoop loop, C channel, String peer, int limit) {
        this(loop, channel, channel, null, peer, limit);
    }

    /** A reader of {@code tls}; the loop watches {@code channel}, its socket. */
    StreamReader(EventLoop loop, SocketChannel channel, TlsChannel tls, String peer, int limit) {
        this(loop, channel, tls, tls, peer, limit);
    }

    private StreamReader(EventLoop loop, SelectableChannel channel, ReadableByteChannel source, TlsChannel tls, String peer,
                         int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
        this.loop = loop;
        this.channel = channel;
        this.source = source;
        this.tls = tls;
        this.peer = peer;
        this.limit = limit;
        watch();
    }

    /**
     * Reads one line: the bytes up to and including the next {@code '\n'}, or what is left at EOF
     * (an empty array once nothing is). Throws {@link LimitOverrunException} if no newline appears
     * within the limit.
     */
    public byte[] readLine() throws Exception {
        int searched = 0;
        while (true) {
            int newline = buffer.indexOf((byte) '\n', searched);
            if (newline >= 0) {
                return take(newline + 1);
            }
            searched = buffer.size();
            if (searched > limit) {
                throw new LimitOverrunException("no newline in the first " + searched
                        + " bytes from " + peer + " (limit " + limit + ")", searched);
            }
            if (eof) {
                return take(buffer.size());
            }
            awaitData("readLine");
        }
    }

    /** {@link #readLine()} decoded as UTF-8, the newline included; empty at EOF. */
    public String readLineUtf8() throws Exception {
        return new String(readLine(), StandardCharsets.UTF_8);
    }

    /** Reads exactly {@code n} bytes; throws {@link IncompleteReadException} if the stream ends first. */
    public byte[] readExactly(int n) throws Exception {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative: " + n);
        }
        while (buffer.size() < n) {
            if (eof) {
                throw new IncompleteReadException(take(buffer.size()), n);
            }
            awaitData("readExactly");
        }
        return take(n);
    }

    /**
     * Reads at most {@code max} bytes once some are available; empty at EOF. A negative
     * {@code max} reads everything up to EOF.
     */
    public byte[] read(int max) throws Exception {
        if (max == 0) {
            return new byte[0];
        }
        if (max < 0) {
            while (!eof) {
                awaitData("read");
            }
            return take(buffer.size());
        }
        while (buffer.isEmpty() && !eof) {
            awaitData("read");
        }
        return take(Math.min(max, buffer.size()));
    }

    /** True once the stream has ended and every byte before the end was read. */
    public boolean atEof() {
        return eof && buffer.isEmpty();
    }

    /** Bytes received and not read yet. */
    public int bufferedBytes() {
        return buffer.size();
    }

    /** True while the loop does not watch the socket because the buffer is over the limit. */
    public boolean isReadingPaused() {
        return paused;
    }

    /** The limit given at creation; reading pauses past twice this many buffered bytes. */
    public int limit() {
        return limit;
    }

    // ---- the loop side --------------------------------------------------------------------------

    /**
     * The reader callback: one read from the socket, then wake the waiting task. On TLS, reads
     * again while the session holds bytes it took from the socket (plaintext past what the buffer
     * took, whole records): the socket will not signal those again.
     */
    private void onReadable() {
        if (eof || paused) {
            return; // a drain scheduled by watch() that came too late
        }
        int read;
        try {
            read = buffer.readFrom(source, MAX_READ_PER_CALLBACK);
            while (tls != null && read > 0 && tls.hasBufferedInput() && buffer.size() <= 2 * limit) {
                read = buffer.readFrom(source, MAX_READ_PER_CALLBACK);
            }
        } catch (IOException e) {
            connectionLost(new IOException("recv from " + peer + " failed: " + e.getMessage(), e));
            return;
        }
        if (read < 0) {
            connectionLost(null);
            return;
        }
        if (buffer.size() > 2 * limit && !paused) {
            paused = true;
            loop.removeReader(channel);
        }
        wakeWaiter();
    }

    /**
     * Ends the stream: the socket is no longer read; waiting and later reads see EOF, or
     * {@code cause} once the buffered bytes are read. Called at EOF, on a failure, and when the
     * connection is closed. A pipe's end is closed here: nothing else owns it.
     */
    void connectionLost(IOException cause) {
        if (!eof) {
            eof = true;
            if (failure == null) {
                failure = cause;
            }
            loop.removeReader(channel);
            if (channel instanceof Pipe.SourceChannel pipe) {
                try {
                    pipe.close();
                } catch (IOException ignored) {
                    // the descriptor is released either way
                }
            }
        }
        wakeWaiter();
    }

    private void wakeWaiter() {
        Future<Void> waiting = waiter;
        if (waiting != null && !waiting.isDone()) {
            waiting.setResult(null);
        }
    }

    /** Watches the socket, and reads at once what a TLS session already holds (the socket will not signal it). */
    private void watch() {
        loop.addReader(channel, this::onReadable);
        if (tls != null && tls.hasBufferedInput()) {
            loop.callSoon(this::onReadable);
        }
    }

    // ---- the task side --------------------------------------------------------------------------

    private byte[] take(int n) {
        byte[] bytes = buffer.take(n);
        maybeResume();
        return bytes;
    }

    private void maybeResume() {
        if (paused && !eof && buffer.size() <= limit) {
            paused = false;
            watch();
        }
    }

    /** Suspends until more bytes, EOF or a failure arrive; throws the failure of a lost connection. */
    private void awaitData(String caller) throws Exception {
        if (failure != null) {
            throw failure;
        }
        if (waiter != null) {
            throw new IllegalStateException(caller + "() called while another task is already waiting for data from " + peer);
        }
        if (paused) {
            // The caller needs more than the buffer holds: read past the limit (asyncio does the same).
            paused = false;
            watch();
        }
        Future<Void> data = new IoWait("read", peer).future(loop);
        waiter = data;
        try {
            await(data);
        } finally {
            waiter = null;
        }
        if (failure != null && buffer.isEmpty()) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "StreamReader[" + peer + ", " + buffer.size() + " bytes" + (eof ? ", eof" : "")
                + (paused ? ", paused" : "") + "]";
    }
}
