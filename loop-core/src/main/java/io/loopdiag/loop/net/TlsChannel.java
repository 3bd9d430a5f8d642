package io.loopdiag.loop.net;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.IoWait;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * A TLS session over a connected non-blocking socket, on the JDK's {@link SSLEngine}: {@link #read}
 * unwraps ciphertext from the socket into plaintext and {@link #write} wraps plaintext into
 * ciphertext for it; neither blocks, and each returns 0 where the socket would. A
 * {@link StreamReader} and a {@link StreamWriter} use it where they would use the socket, and
 * register the socket itself with the loop. Loop thread or a task of the loop only.
 *
 * <p>Three buffers, each kept in fill mode (its bytes in {@code [0, position)}): {@code netIn},
 * ciphertext read and not yet unwrapped; {@code appIn}, plaintext unwrapped and not yet read;
 * {@code netOut}, ciphertext wrapped and not yet taken by the socket. Everything wrapped, by a
 * write, the handshake or an answer to the peer (a TLS 1.3 KeyUpdate), is appended to
 * {@code netOut} in the engine's order and leaves it in that order.
 *
 * <p>The engine's delegated tasks (certificate checks, key agreement) run inline, on the loop's
 * thread: each handshake holds the loop for their time (less with EC keys than with RSA ones), as
 * asyncio's OpenSSL handshakes hold its loop. Running them on a pool would add a thread hop per
 * handshake and a second thread touching the engine.
 *
 * <p>Buffers: about three TLS records (some 50 KB) per connection, allocated with it.
 */
final class TlsChannel implements ByteChannel {
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    /** A TLS record header: type, version (2 bytes), length (2 bytes). */
    private static final int RECORD_HEADER_BYTES = 5;

    private final SocketChannel socket;
    private final SSLEngine engine;
    private final String peer;
    private ByteBuffer netIn;
    private ByteBuffer appIn;
    private ByteBuffer netOut;
    /** The peer's close_notify was unwrapped, or the socket reached EOF: reads return -1 once appIn is empty. */
    private boolean inboundDone;
    /** Called when a read had to wrap an answer for the peer that the socket did not take at once. */
    private Runnable pendingOutputListener = () -> { };

    private TlsChannel(SocketChannel socket, SSLEngine engine, String peer) {
        this.socket = socket;
        this.engine = engine;
        this.peer = peer;
        SSLSession session = engine.getSession();
        this.netIn = ByteBuffer.allocate(session.getPacketBufferSize());
        this.appIn = ByteBuffer.allocate(session.getApplicationBufferSize());
        this.netOut = ByteBuffer.allocate(session.getPacketBufferSize());
    }

    /**
     * The client side of a TLS session with {@code host}, handshaken in the calling task. As
     * asyncio's default {@code server_hostname}, {@code host} is sent as SNI (unless it is an IP
     * literal) and the peer's certificate must match it (endpoint identification "HTTPS").
     */
    static TlsChannel client(SocketChannel socket, String peer, SSLContext context, String host, int port,
                              Duration handshakeTimeout) throws Exception {
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        if (!isIpLiteral(host)) {
            parameters.setServerNames(List.of(new SNIHostName(host)));
        }
        engine.setSSLParameters(parameters);
        TlsChannel tls = new TlsChannel(socket, engine, peer);
        tls.handshake(handshakeTimeout);
        return tls;
    }

    /** The server side of a TLS session on an accepted socket, handshaken in the calling task. */
    static TlsChannel server(SocketChannel socket, String peer, SSLContext context, Duration handshakeTimeout)
            throws Exception {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        TlsChannel tls = new TlsChannel(socket, engine, peer);
        tls.handshake(handshakeTimeout);
        return tls;
    }

    static Duration checkHandshakeTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the handshake timeout must be positive: " + timeout);
        }
        return timeout;
    }

    /** An IPv4 or IPv6 literal: SNI carries host names only (RFC 6066, section 3). */
    private static boolean isIpLiteral(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    SSLSession session() {
        return engine.getSession();
    }

    /** {@code listener} runs (on the loop) when a read wrapped an answer that still waits for the socket. */
    void onPendingOutput(Runnable listener) {
        pendingOutputListener = listener;
    }

    // ---- the handshake, in a task -----------------------------------------------------------------

    /**
     * Runs the handshake in the calling task, which suspends on {@code IoWait("handshake", peer)}
     * whenever the socket is not ready. Throws {@link SSLHandshakeException} naming the peer if the
     * handshake fails (the peer closing the connection included: asyncio's ConnectionResetError),
     * or {@link SocketTimeoutException} past {@code timeout} (asyncio's ConnectionAbortedError).
     */
    private void handshake(Duration timeout) throws Exception {
        try {
            Async.timeout(timeout, () -> {
                runHandshake();
                return null;
            });
        } catch (TimeoutException e) {
            SocketTimeoutException timedOut = new SocketTimeoutException("TLS handshake with " + peer
                    + " took longer than " + timeout.toMillis() + " ms: connection aborted");
            timedOut.initCause(e);
            throw timedOut;
        }
    }

    private void runHandshake() throws Exception {
        try {
            engine.beginHandshake();
            while (true) {
                switch (engine.getHandshakeStatus()) {
                    case NEED_TASK -> runDelegatedTasks();
                    case NEED_WRAP -> {
                        if (!wrapEngineMessage()) {
                            throw new EOFException("the session was closed");
                        }
                    }
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                        if (!unwrapBuffered()) {
                            receiveForHandshake();
                        } else if (inboundDone) {
                            throw new EOFException("the peer closed the session");
                        }
                    }
                    case FINISHED, NOT_HANDSHAKING -> {
                        while (!flushOutput()) {
                            awaitSocket(false);
                        }
                        return;
                    }
                }
            }
        } catch (IOException e) {
            sendCloseQuietly(); // after a failure the engine holds a fatal alert for the peer
            SSLHandshakeException failed = new SSLHandshakeException("TLS handshake with " + peer + " failed: "
                    + e.getMessage());
            failed.initCause(e);
            throw failed;
        }
    }

    /** Sends what the peer needs before it can answer, then reads more of its answer, suspending while there is none. */
    private void receiveForHandshake() throws Exception {
        if (!flushOutput()) {
            awaitSocket(false);
            return;
        }
        ensureNetInRoom();
        int read = socket.read(netIn);
        if (read < 0) {
            throw new EOFException("the peer closed the connection");
        }
        if (read == 0) {
            awaitSocket(true);
        }
    }

    private void awaitSocket(boolean reading) throws Exception {
        Sockets.awaitReady(socket, reading, new IoWait("handshake", peer));
    }

    // ---- the data path, on the loop --------------------------------------------------------------

    /**
     * Reads plaintext into {@code dst}: first what is unwrapped already, then records unwrapped from
     * buffered and newly read ciphertext, until {@code dst} is full or the socket has nothing more.
     * Returns the byte count, 0 if no plaintext is ready, -1 after the peer's close_notify or the
     * end of the TCP stream. As asyncio does, an end of the TCP stream without close_notify is a
     * plain EOF (a truncated record is dropped), not an error.
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        int start = dst.position();
        while (dst.hasRemaining()) {
            if (appIn.position() > 0) {
                moveAppInTo(dst);
            } else if (inboundDone) {
                break;
            } else if (unwrapBuffered()) {
                answerPeer();
            } else {
                ensureNetInRoom();
                int read = socket.read(netIn);
                if (read < 0) {
                    inboundDone = true;
                } else if (read == 0) {
                    break;
                }
            }
        }
        int moved = dst.position() - start;
        return moved > 0 ? moved : inboundDone && appIn.position() == 0 ? -1 : 0;
    }

    /**
     * True if a read would return something without the socket being readable: plaintext, a whole
     * record, or the end of the stream. The socket does not signal bytes already taken from it.
     */
    boolean hasBufferedInput() {
        return appIn.position() > 0 || inboundDone || holdsWholeRecord(netIn);
    }

    private static boolean holdsWholeRecord(ByteBuffer ciphertext) {
        int buffered = ciphertext.position();
        if (buffered < RECORD_HEADER_BYTES) {
            return false;
        }
        int length = (ciphertext.get(3) & 0xff) << 8 | (ciphertext.get(4) & 0xff);
        return buffered >= RECORD_HEADER_BYTES + length;
    }

    /**
     * Wraps as much of {@code src} as the socket takes now, a record at a time; returns the
     * plaintext bytes consumed, 0 while earlier ciphertext still waits for the socket. The
     * ciphertext of the last record may stay in {@code netOut}: see {@link #hasPendingOutput}.
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        int start = src.position();
        while (src.hasRemaining() && flushOutput()) {
            if (!wrap(src)) {
                break;
            }
        }
        return src.position() - start;
    }

    /** True while wrapped ciphertext waits for the socket to take it. */
    boolean hasPendingOutput() {
        return netOut.position() > 0;
    }

    /** Writes pending ciphertext to the socket as far as it takes it; true if none is left. */
    boolean flushOutput() throws IOException {
        if (netOut.position() == 0) {
            return true;
        }
        netOut.flip();
        try {
            while (netOut.hasRemaining() && socket.write(netOut) > 0) {
                // the socket took some: offer it the rest
            }
        } finally {
            netOut.compact();
        }
        return netOut.position() == 0;
    }

    /**
     * Queues close_notify after the pending ciphertext and offers it to the socket; idempotent.
     * Whatever the socket does not take now is left to {@link #flushOutput}.
     */
    void closeOutbound() throws IOException {
        engine.closeOutbound();
        while (!engine.isOutboundDone() && wrapEngineMessage()) {
            // one more message: an alert before close_notify, or close_notify itself
        }
        flushOutput();
    }

    private void sendCloseQuietly() {
        try {
            closeOutbound();
        } catch (IOException | RuntimeException ignored) {
            // Best effort: the connection is about to be closed anyway.
        }
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    /** Closes the socket at once; {@link StreamWriter} sends close_notify first through {@link #closeOutbound}. */
    @Override
    public void close() throws IOException {
        socket.close();
    }

    // ---- the engine --------------------------------------------------------------------------------

    /**
     * One unwrap of buffered ciphertext into {@code appIn}; false if it made no progress (no whole
     * record is buffered: more must be read). Sets {@link #inboundDone} on the peer's close_notify.
     */
    private boolean unwrapBuffered() throws SSLException {
        netIn.flip();
        SSLEngineResult result;
        try {
            result = engine.unwrap(netIn, appIn);
        } finally {
            netIn.compact();
        }
        switch (result.getStatus()) {
            case OK -> {
                // Nothing taken: the engine waits to wrap first (its caller answers that), not for more bytes.
                return result.bytesConsumed() > 0;
            }
            case CLOSED -> {
                inboundDone = true;
                return true;
            }
            case BUFFER_OVERFLOW -> {
                appIn = enlarge(appIn, engine.getSession().getApplicationBufferSize());
                return true;
            }
            case BUFFER_UNDERFLOW -> {
                int packetBytes = engine.getSession().getPacketBufferSize();
                if (netIn.capacity() < packetBytes) {
                    netIn = enlarge(netIn, packetBytes - netIn.position());
                }
                return false;
            }
            default -> throw new IllegalStateException("unknown SSLEngine status " + result.getStatus());
        }
    }

    /**
     * Wraps {@code src} once (a record at most) after the pending ciphertext; false if the engine
     * took and produced nothing (it waits for the peer, in a TLS 1.2 renegotiation).
     */
    private boolean wrap(ByteBuffer src) throws IOException {
        while (true) {
            SSLEngineResult result = engine.wrap(src, netOut);
            switch (result.getStatus()) {
                case OK -> {
                    if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                        runDelegatedTasks();
                    }
                    return result.bytesConsumed() > 0 || result.bytesProduced() > 0;
                }
                case BUFFER_OVERFLOW -> netOut = enlarge(netOut, engine.getSession().getPacketBufferSize());
                case CLOSED -> throw new SSLException("the TLS session with " + peer + " is closed");
                default -> throw new IllegalStateException("wrap returned " + result.getStatus());
            }
        }
    }

    /** Wraps a message the engine sends on its own (handshake, alert, close_notify); false if it had none. */
    private boolean wrapEngineMessage() throws SSLException {
        while (true) {
            SSLEngineResult result = engine.wrap(NOTHING, netOut);
            if (result.getStatus() != SSLEngineResult.Status.BUFFER_OVERFLOW) {
                return result.bytesProduced() > 0;
            }
            netOut = enlarge(netOut, engine.getSession().getPacketBufferSize());
        }
    }

    /**
     * After an unwrap on the data path: gives the engine what a post-handshake message asks for,
     * its delegated tasks or an answer (a TLS 1.3 KeyUpdate, a TLS 1.2 renegotiation), and sends
     * the answer or tells the writer to.
     */
    private void answerPeer() throws IOException {
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_TASK -> runDelegatedTasks();
                case NEED_WRAP -> {
                    if (!wrapEngineMessage()) {
                        return;
                    }
                    if (!flushOutput()) {
                        pendingOutputListener.run();
                    }
                }
                default -> {
                    return;
                }
            }
        }
    }

    private void runDelegatedTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    private void moveAppInTo(ByteBuffer dst) {
        appIn.flip();
        int count = Math.min(appIn.remaining(), dst.remaining());
        dst.put(dst.position(), appIn, appIn.position(), count);
        dst.position(dst.position() + count);
        appIn.position(appIn.position() + count);
        appIn.compact();
    }

    private void ensureNetInRoom() {
        if (!netIn.hasRemaining()) {
            netIn = enlarge(netIn, engine.getSession().getPacketBufferSize());
        }
    }

    /** A copy of {@code buffer} (fill mode) with room for at least {@code room} more bytes. */
    private static ByteBuffer enlarge(ByteBuffer buffer, int room) {
        if (buffer.remaining() >= room) {
            return buffer;
        }
        ByteBuffer grown = ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + room));
        buffer.flip();
        grown.put(buffer);
        return grown;
    }

    @Override
    public String toString() {
        return "TlsChannel[" + peer + ", " + engine.getSession().getProtocol() + "]";
    }
}
