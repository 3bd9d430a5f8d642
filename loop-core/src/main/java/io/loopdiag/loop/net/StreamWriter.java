package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.IoWait;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import javax.net.ssl.SSLSession;

/**
 * The writing half of a stream connection, or a subprocess's input (asyncio's {@code StreamWriter}
 * with its transport).
 * {@link #write} never suspends: it writes what the socket takes at once and buffers the rest,
 * which a writer callback on the loop sends as the socket drains. {@link #drain} is the
 * back-pressure point: it suspends while the buffer is above the high-water mark, until the
 * callback has taken it down to the low-water mark. Loop thread or a task of the loop only.
 *
 * <p>On a TLS connection the buffer holds plaintext and a {@link TlsChannel} wraps it as the
 * socket takes it; the writer callback stays until the last ciphertext is out, and {@link #close}
 * sends close_notify before closing the socket.
 */
public final class StreamWriter {
    /** Above this many buffered bytes, {@link #drain} suspends (asyncio's default high-water mark). */
    public static final int HIGH_WATER_BYTES = 64 * 1024;
    /** ...until the buffer is back at or below this many (asyncio's default: a quarter of high water). */
    public static final int LOW_WATER_BYTES = HIGH_WATER_BYTES / 4;

    // state values: OPEN; CLOSING (close() called, buffered bytes still being sent); CLOSED (channel closed)
    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;

    private final EventLoop loop;
    private final SelectableChannel channel;
    /** Where the bytes go: the socket itself, or its TLS session. */
    private final WritableByteChannel sink;
    /** The TLS session, or null on plain TCP. */
    private final TlsChannel tls;
    private final String peer;
    private final StreamReader reader; // null for a pipe
    private final ByteQueue buffer = new ByteQueue();
    private final Future<Void> closed;
    private int state = OPEN;
    private boolean writing; // true while the writer callback is registered
    private boolean eofPending; // writeEof() called while bytes were still buffered
    private final Backpressure backpressure;
    private IOException failure;

    /** A writer to {@code channel}: a socket, or a pipe's end ({@code reader} null). */
    <C extends SelectableChannel & WritableByteChannel> StreamWriter(EventLoop loop, C channel, String peer, StreamReader reader) {
        this(loop, channel, channel, null, peer, reader);
    }

    /** A writer to {@code tls}; the loop watches {@code channel}, its socket. */
    StreamWriter(EventLoop loop, SocketChannel channel, TlsChannel tls, String peer, StreamReader reader) {
        this(loop, channel, tls, tls, peer, reader);
    }

    private StreamWriter(EventLoop loop, SelectableChannel channel, WritableByteChannel sink, TlsChannel tls, String peer,
                         StreamReader reader) {
        this.loop = loop;
        this.channel = channel;
        this.sink = sink;
        this.tls = tls;
        this.peer = peer;
        this.reader = reader;
        this.closed = new IoWait("close", peer).future(loop);
        this.backpressure = new Backpressure(loop, "drain", peer);
        if (tls != null) {
            tls.onPendingOutput(this::startWriting);
        }
    }

    /** Queues {@code bytes} for sending: whatever the socket takes now is written at once. */
    public void write(byte[] bytes) throws IOException {
        write(bytes, 0, bytes.length);
    }

    public void write(byte[] bytes, int offset, int length) throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (state != OPEN || eofPending) {
            throw new IOException("cannot write to " + peer + ": the writer is " + (state == OPEN ? "shut down" : "closed"));
        }
        if (length == 0) {
            return;
        }
        buffer.append(bytes, offset, length);
        if (!writing) {
            flush();
            if (!isAllSent() && failure == null) {
                startWriting();
            }
        }
        backpressure.grew(buffer.size());
    }

    /**
     * Suspends while the buffer is above the high-water mark, until it is down to the low-water
     * mark; returns at once otherwise. Throws the failure if the connection broke. Inside a task.
     */
    public void drain() throws Exception {
        if (failure != null) {
            throw failure;
        }
        backpressure.drain();
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Shuts down the sending side once the buffered bytes are sent; the peer reads EOF. Not on a
     * TLS connection ({@link #canWriteEof}), as in asyncio: throws UnsupportedOperationException.
     */
    public void writeEof() throws IOException {
        if (tls != null) {
            throw new UnsupportedOperationException("TLS connections have no half-close: " + peer);
        }
        if (state != OPEN || eofPending) {
            return;
        }
        eofPending = true;
        if (buffer.isEmpty()) {
            shutdownOutput();
        }
    }

    /** False on a TLS connection, where {@link #writeEof} is not supported (asyncio's {@code can_write_eof}). */
    public boolean canWriteEof() {
        return tls == null;
    }

    /**
     * Closes the connection once the buffered bytes are sent (at once if none are); on TLS, sends
     * close_notify first, without waiting for the peer's. The reader sees EOF; {@link #waitClosed}
     * returns when the socket is closed. Idempotent.
     */
    public void close() {
        if (state != OPEN) {
            return;
        }
        state = CLOSING;
        if (reader != null) {
            reader.connectionLost(null);
        }
        if (failure != null) {
            closeChannel();
        } else if (buffer.isEmpty()) {
            closeWhenSent();
        }
    }

    /** Suspends until the socket is closed; inside a task. */
    public void waitClosed() throws Exception {
        await(closed);
    }

    public boolean isClosing() {
        return state != OPEN;
    }

    /** Bytes written and not yet taken by the socket. */
    public int bufferedBytes() {
        return buffer.size();
    }

    /** The reader of the same connection; null for a subprocess's input. */
    public StreamReader reader() {
        return reader;
    }

    /**
     * The peer's address as labels show it, like {@code /127.0.0.1:8080}; for a Unix domain socket,
     * the path of the socket file.
     */
    public String peer() {
        return peer;
    }

    /**
     * The TLS session negotiated with the peer (asyncio's {@code get_extra_info("ssl_object")}),
     * or null on a plain TCP connection.
     */
    public SSLSession sslSession() {
        return tls == null ? null : tls.session();
    }

    /** The local address of the connection (asyncio's {@code get_extra_info("sockname")}); null for a pipe. */
    public SocketAddress localAddress() throws IOException {
        return channel instanceof NetworkChannel socket ? socket.getLocalAddress() : null;
    }

    // ---- the loop side --------------------------------------------------------------------------

    /** The writer callback: send more of the buffer, and act once it is empty or below low water. */
    private void onWritable() {
        flush();
        if (failure != null || !isAllSent()) {
            return;
        }
        writing = false;
        loop.removeWriter(channel);
        if (state == CLOSING) {
            closeWhenSent();
            return;
        }
        if (eofPending) {
            shutdownOutputQuietly();
        }
    }

    private void startWriting() {
        if (!writing && state != CLOSED) {
            writing = true;
            loop.addWriter(channel, this::onWritable);
        }
    }

    /** Nothing left for the socket: the buffer is empty and, on TLS, so is the ciphertext. */
    private boolean isAllSent() {
        return buffer.isEmpty() && (tls == null || !tls.hasPendingOutput());
    }

    /**
     * Closing with the buffer sent: on TLS, queues close_notify and keeps writing until it is out
     * (a failure to send it just closes); then closes the socket.
     */
    private void closeWhenSent() {
        if (tls != null && failure == null) {
            try {
                tls.closeOutbound();
            } catch (IOException e) {
                closeChannel();
                return;
            }
            if (tls.hasPendingOutput()) {
                startWriting();
                return;
            }
        }
        closeChannel();
    }

    /**
     * Writes as much of the buffer as the socket takes now, and on TLS the ciphertext that is
     * left; on failure, breaks the connection.
     */
    private void flush() {
        try {
            while (!buffer.isEmpty() && buffer.writeTo(sink) > 0) {
                // the socket took some: offer it the rest
            }
            if (tls != null && buffer.isEmpty()) {
                tls.flushOutput();
            }
        } catch (IOException e) {
            fail(new IOException("send to " + peer + " failed: " + e.getMessage(), e));
            return;
        }
        backpressure.shrank(buffer.size());
    }

    private void fail(IOException cause) {
        failure = cause;
        backpressure.release(cause);
        if (reader != null) {
            reader.connectionLost(cause);
        }
        closeChannel();
    }

    private void shutdownOutput() throws IOException {
        if (!(channel instanceof SocketChannel socket)) {
            closeChannel(); // a pipe has no half-close: closing it is its EOF
            return;
        }
        try {
            socket.shutdownOutput();
        } catch (IOException e) {
            fail(new IOException("shutdown of " + peer + " failed: " + e.getMessage(), e));
            throw failure;
        }
    }

    private void shutdownOutputQuietly() {
        try {
            shutdownOutput();
        } catch (IOException alreadyReported) {
            // fail() recorded it for the next write or drain
        }
    }

    private void closeChannel() {
        if (state == CLOSED) {
            return;
        }
        state = CLOSED;
        buffer.discard(buffer.size());
        if (writing) {
            writing = false;
            loop.removeWriter(channel);
        }
        if (reader != null) {
            reader.connectionLost(null);
        }
        backpressure.release(null); // nothing is left to send: a waiting drain returns (then throws any failure)
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing releases the descriptor even when it reports an error.
        }
        if (!closed.isDone()) {
            closed.setResult(null);
        }
    }

    @Override
    public String toString() {
        return "StreamWriter[" + peer + ", " + buffer.size() + " bytes buffered"
                + (state == CLOSING ? ", closing" : state == CLOSED ? ", closed" : "") + "]";
    }
}
