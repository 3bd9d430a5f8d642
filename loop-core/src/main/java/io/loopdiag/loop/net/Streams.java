package io.loopdiag.loop.net;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * asyncio's stream API: {@link #openConnection} and {@link #startServer} over TCP,
 * {@link #openUnixConnection} and {@link #startUnixServer} over a Unix domain socket, give each
 * connection a {@link StreamReader} and a {@link StreamWriter} on the running loop. TCP sockets get
 * {@code TCP_NODELAY}, as asyncio sets it: small writes go out at once.
 *
 * <p>The overloads with an {@link SSLContext} (asyncio's {@code ssl=}) speak TLS on the JDK's
 * {@code SSLEngine}, without blocking the loop, and give the same reader and writer. As in asyncio:
 * closing sends close_notify (without waiting for the peer's), the peer's close_notify is EOF, and
 * so is a peer closing TCP without one (a truncation is not reported); there is no
 * {@link StreamWriter#writeEof}. The engine's delegated tasks (certificate checks, key agreement)
 * run inline on the loop's thread, so each handshake holds the loop for their time: less with EC
 * keys than with RSA ones.
 */
public final class Streams {
    private Streams() {
    }

    /** Serves one connection: runs in a task of its own, and the connection is closed when it returns. */
    @FunctionalInterface
    public interface Handler {
        void handle(StreamReader reader, StreamWriter writer) throws Exception;
    }

    /** The two halves of a connection. */
    public record Connection(StreamReader reader, StreamWriter writer) {
    }

    /**
     * Connects to {@code host:port} and returns the connection's reader and writer. Inside a task.
     * The host is resolved on the calling task (a name lookup may block: pass an address).
     */
    public static Connection openConnection(String host, int port) throws Exception {
        EventLoop loop = Async.loop();
        SocketChannel channel = connectTcp(host, port);
        try {
            return wrap(loop, channel, StreamReader.DEFAULT_LIMIT);
        } catch (Throwable t) {
            channel.close();
            throw t;
        }
    }

    /** A non-blocking socket connected to {@code host:port}, with {@code TCP_NODELAY}; inside a task. */
    private static SocketChannel connectTcp(String host, int port) throws Exception {
        InetSocketAddress address = new InetSocketAddress(host, port);
        SocketChannel channel = SocketChannel.open();
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Sockets.connect(channel, address);
            return channel;
        } catch (Throwable t) {
            channel.close();
            throw t;
        }
    }

    /**
     * Listens on {@code host:port} (port 0: any free port) and runs {@code handler} as a new task,
     * named {@code conn /PEER}, for each accepted connection. Inside a task, or on the loop's thread.
     */
    public static Server startServer(Handler handler, String host, int port) throws IOException {
        return startServer(Async.loop(), handler, host, port);
    }

    /** Like {@link #startServer(Handler, String, int)} on {@code loop}, callable also before the loop runs. */
    public static Server startServer(EventLoop loop, Handler handler, String host, int port) throws IOException {
        return Server.start(loop, handler, new InetSocketAddress(host, port));
    }

    /**
     * Connects to the Unix domain socket at {@code path} and returns the connection's reader and
     * writer. Inside a task. Fails with an {@link IOException} naming the path if nothing listens
     * there. The connection's label in dumps and task names is the path.
     */
    public static Connection openUnixConnection(Path path) throws Exception {
        EventLoop loop = Async.loop();
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.configureBlocking(false);
            Sockets.connect(channel, UnixDomainSocketAddress.of(path));
            return wrap(loop, channel, StreamReader.DEFAULT_LIMIT);
        } catch (Throwable t) {
            channel.close();
            throw t;
        }
    }

    /**
     * Listens on a Unix domain socket at {@code path} and runs {@code handler} as a new task, named
     * {@code conn PATH}, for each accepted connection. A socket file left at {@code path} by a
     * server that is gone is replaced (asyncio's rule); any other file there makes this fail. The
     * server deletes its socket file when closed. Inside a task, or on the loop's thread.
     */
    public static Server startUnixServer(Handler handler, Path path) throws IOException {
        return startUnixServer(Async.loop(), handler, path);
    }

    /** Like {@link #startUnixServer(Handler, Path)} on {@code loop}, callable also before the loop runs. */
    public static Server startUnixServer(EventLoop loop, Handler handler, Path path) throws IOException {
        return Server.start(loop, handler, UnixDomainSocketAddress.of(path));
    }

    // ---- TLS ----------------------------------------------------------------------------------------

    /** How long a TLS handshake may take before the connection is aborted (asyncio's {@code ssl_handshake_timeout}). */
    public static final Duration TLS_HANDSHAKE_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Like {@link #openConnection(String, int)}, then a TLS handshake with {@code tls}, as asyncio's
     * {@code open_connection(host, port, ssl=tls)}: {@code host} is sent as SNI (unless it is an IP
     * literal) and the server's certificate must match it. While the handshake runs, the task waits
     * on I/O {@code handshake /PEER}. Throws {@link javax.net.ssl.SSLHandshakeException} naming the
     * peer if the handshake fails, {@link java.net.SocketTimeoutException} after
     * {@link #TLS_HANDSHAKE_TIMEOUT}.
     */
    public static Connection openConnection(String host, int port, SSLContext tls) throws Exception {
        return openConnection(host, port, tls, TLS_HANDSHAKE_TIMEOUT);
    }

    /** Like {@link #openConnection(String, int, SSLContext)} with a handshake timeout of its own. */
    public static Connection openConnection(String host, int port, SSLContext tls, Duration handshakeTimeout)
            throws Exception {
        Objects.requireNonNull(tls, "tls");
        TlsChannel.checkHandshakeTimeout(handshakeTimeout);
        EventLoop loop = Async.loop();
        SocketChannel channel = connectTcp(host, port);
        try {
            String peer = String.valueOf(channel.getRemoteAddress());
            TlsChannel session = TlsChannel.client(channel, peer, tls, host, port, handshakeTimeout);
            return wrap(loop, channel, session, peer, StreamReader.DEFAULT_LIMIT);
        } catch (Throwable t) {
            channel.close();
            throw t;
        }
    }

    /**
     * Like {@link #startServer(Handler, String, int)}, speaking TLS with {@code tls} (asyncio's
     * {@code start_server(..., ssl=tls)}). Each connection's task (named {@code conn /PEER}) runs
     * the handshake, waiting on I/O {@code handshake /PEER}, before it calls {@code handler}. A
     * connection whose handshake fails or takes longer than {@link #TLS_HANDSHAKE_TIMEOUT} is closed
     * and logged at DEBUG, as asyncio drops it (an OSError, not the exception handler's business);
     * an unexpected (non-I/O) exception goes to the loop's exception handler.
     */
    public static Server startServer(Handler handler, String host, int port, SSLContext tls) throws IOException {
        return startServer(Async.loop(), handler, host, port, tls);
    }

    /** Like {@link #startServer(Handler, String, int, SSLContext)} on {@code loop}, callable also before the loop runs. */
    public static Server startServer(EventLoop loop, Handler handler, String host, int port, SSLContext tls)
            throws IOException {
        return startServer(loop, handler, host, port, tls, TLS_HANDSHAKE_TIMEOUT);
    }

    /** Like {@link #startServer(EventLoop, Handler, String, int, SSLContext)} with a handshake timeout of its own. */
    public static Server startServer(EventLoop loop, Handler handler, String host, int port, SSLContext tls,
                                     Duration handshakeTimeout) throws IOException {
        Objects.requireNonNull(tls, "tls");
        TlsChannel.checkHandshakeTimeout(handshakeTimeout);
        return Server.start(loop, handler, new InetSocketAddress(host, port), tls, handshakeTimeout);
    }

    /** A reader and a writer on a connected non-blocking {@code channel}'s TLS session {@code tls}; reading starts at once. */
    static Connection wrap(EventLoop loop, SocketChannel channel, TlsChannel tls, String peer, int limit) {
        StreamReader reader = new StreamReader(loop, channel, tls, peer, limit);
        return new Connection(reader, new StreamWriter(loop, channel, tls, peer, reader));
    }

    /** A reader and a writer on a connected non-blocking {@code channel}; reading starts at once. */
    static Connection wrap(EventLoop loop, SocketChannel channel, int limit) throws IOException {
        String peer = Sockets.describe(channel);
        StreamReader reader = new StreamReader(loop, channel, peer, limit);
        return new Connection(reader, new StreamWriter(loop, channel, peer, reader));
    }
}
