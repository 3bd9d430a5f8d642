package io.loopdiag.loop.net;

import io.loopdiag.loop.CancelledException;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.ExceptionContext;
import io.loopdiag.loop.Task;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * A listening socket whose connections are served by tasks (asyncio's {@code Server}), made by
 * {@link Streams#startServer}. A reader callback on the listening socket accepts connections;
 * {@link #close} stops accepting and leaves the connections already served alone. A TLS server's
 * connection tasks run the handshake before the handler. Loop thread or a task of the loop only,
 * except {@link #port()}.
 */
public final class Server implements AutoCloseable {
    /** The kernel's queue of connections not yet accepted; asyncio's default is 100, and bursts of a thousand clients are normal. */
    private static final int BACKLOG = 1024;
    /** At most this many accepts per reader callback, so that a flood of connections cannot starve the loop. */
    private static final int MAX_ACCEPTS_PER_CALLBACK = 100;
    /** After an accept fails (typically too many open files), wait this long before accepting again (asyncio's delay). */
    private static final Duration ACCEPT_RETRY_DELAY = Duration.ofSeconds(1);

    private final EventLoop loop;
    private final Streams.Handler handler;
    private final ServerSocketChannel channel;
    private final InetSocketAddress address;
    /** The TLS context connections are served with, or null for plain TCP. */
    private final SSLContext tls;
    private final Duration tlsHandshakeTimeout;
    private boolean serving;

    private Server(EventLoop loop, Streams.Handler handler, ServerSocketChannel channel, SSLContext tls,
                   Duration tlsHandshakeTimeout) throws IOException {
        this.loop = loop;
        this.handler = handler;
        this.channel = channel;
        this.address = (InetSocketAddress) channel.getLocalAddress();
        this.tls = tls;
        this.tlsHandshakeTimeout = tlsHandshakeTimeout;
    }

    static Server start(EventLoop loop, Streams.Handler handler, SocketAddress bindTo) throws IOException {
        return start(loop, handler, bindTo, null, null);
    }

    /** A server whose connections speak TLS with {@code tls}, or plain TCP if it is null. */
    static Server start(EventLoop loop, Streams.Handler handler, SocketAddress bindTo, SSLContext tls,
                        Duration tlsHandshakeTimeout) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(bindTo, BACKLOG);
            Server server = new Server(loop, handler, channel, tls, tlsHandshakeTimeout);
            server.startAccepting();
            return server;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The port listened on: the one given, or the one the system chose for port 0. Any thread. */
    public int port() {
        return address.getPort();
    }

    /** The address listened on. Any thread. */
    public InetSocketAddress address() {
        return address;
    }

    public boolean isServing() {
        return serving;
    }

    /** Stops listening and closes the listening socket; open connections are not touched. Idempotent. */
    @Override
    public void close() {
        if (!channel.isOpen()) {
            return;
        }
        serving = false;
        loop.removeReader(channel);
        try {
            channel.close();
        } catch (IOException ignored) {
            // The descriptor is released either way.
        }
    }

    private void startAccepting() {
        serving = true;
        loop.addReader(channel, this::acceptConnections);
    }

    /** The reader callback: accept until none is waiting, at most {@link #MAX_ACCEPTS_PER_CALLBACK}. */
    private void acceptConnections() {
        for (int i = 0; i < MAX_ACCEPTS_PER_CALLBACK; i++) {
            SocketChannel accepted;
            try {
                accepted = channel.accept();
            } catch (IOException e) {
                pauseAccepting(e);
                return;
            }
            if (accepted == null) {
                return;
            }
            serve(accepted);
        }
    }

    private void pauseAccepting(IOException cause) {
        loop.callExceptionHandler(new ExceptionContext("accept on " + address + " failed; accepting again in "
                + ACCEPT_RETRY_DELAY.toMillis() + " ms", cause, null, null, null));
        loop.removeReader(channel);
        loop.callLater(ACCEPT_RETRY_DELAY, () -> {
            if (serving && channel.isOpen()) {
                loop.addReader(channel, this::acceptConnections);
            }
        });
    }

    private void serve(SocketChannel accepted) {
        Streams.Connection connection;
        try {
            accepted.configureBlocking(false);
            accepted.setOption(StandardSocketOptions.TCP_NODELAY, true);
            if (tls != null) {
                serveTls(accepted, String.valueOf(accepted.getRemoteAddress()));
                return;
            }
            connection = Streams.wrap(loop, accepted, StreamReader.DEFAULT_LIMIT);
        } catch (IOException e) {
            // The peer went away before we could set the socket up: nothing to serve.
            closeQuietly(accepted);
            return;
        }
        loop.createTask("conn " + connection.writer().peer(), () -> runHandler(connection));
    }

    /** A connection's task: the handler, its failure reported, then the connection closed. */
    private Void runHandler(Streams.Connection connection) {
        StreamWriter writer = connection.writer();
        try {
            handler.handle(connection.reader(), writer);
        } catch (Exception e) {
            if (e instanceof CancelledException cancelled) {
                throw cancelled;
            }
            // Nobody awaits a connection's task: report its failure as asyncio reports
            // an exception in client_connected_cb.
            loop.callExceptionHandler(new ExceptionContext("Unhandled exception in the handler of "
                    + writer.peer(), e, null, Task.current(), Task.current()));
        } finally {
            writer.close();
        }
        return null;
    }

    /**
     * A TLS connection's task: the handshake, then the handler. A failed handshake closes the
     * connection; as asyncio, which logs an OSError there only in debug mode, it is logged at
     * DEBUG, and only an unexpected exception goes to the exception handler.
     */
    private void serveTls(SocketChannel accepted, String peer) {
        loop.createTask("conn " + peer, () -> {
            TlsChannel session;
            try {
                session = TlsChannel.server(accepted, peer, tls, tlsHandshakeTimeout);
            } catch (Exception e) {
                closeQuietly(accepted);
                if (e instanceof CancelledException cancelled) {
                    throw cancelled;
                }
                if (e instanceof IOException) {
                    System.getLogger("io.loopdiag.loop").log(System.Logger.Level.DEBUG,
                            "TLS handshake with " + peer + " failed; connection closed", e);
                } else {
                    loop.callExceptionHandler(new ExceptionContext("TLS handshake with " + peer + " failed",
                            e, null, Task.current(), Task.current()));
                }
                return null;
            }
            return runHandler(Streams.wrap(loop, accepted, session, peer, StreamReader.DEFAULT_LIMIT));
        });
    }

    private static void closeQuietly(SocketChannel socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
    }

    @Override
    public String toString() {
        return "Server[" + address + (serving ? ", serving" : ", closed") + "]";
    }
}
