package io.loopdiag.loop.net;

import io.loopdiag.loop.CancelledException;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.ExceptionContext;
import io.loopdiag.loop.Task;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * A listening socket whose connections are served by tasks (asyncio's {@code Server}), made by
 * {@link Streams#startServer} (TCP, plain or TLS) or {@link Streams#startUnixServer} (a Unix domain
 * socket). A reader callback on the listening socket accepts connections; {@link #close} stops
 * accepting and leaves the connections already served alone. A TLS server's connection tasks run
 * the handshake before the handler. Loop thread or a task of the loop only, except
 * {@link #address()}, {@link #port()} and {@link #path()}.
 */
public final class Server implements AutoCloseable {
    /** The kernel's queue of connections not yet accepted; asyncio's default is 100, and bursts of a thousand clients are normal. */
    private static final int BACKLOG = 1024;
    /** At most this many accepts per reader callback, so that a flood of connections cannot starve the loop. */
    private static final int MAX_ACCEPTS_PER_CALLBACK = 100;
    /** After an accept fails (typically too many open files), wait this long before accepting again (asyncio's delay). */
    private static final Duration ACCEPT_RETRY_DELAY = Duration.ofSeconds(1);
    /** The file type bits of a {@code unix:mode} attribute ({@code S_IFMT}), and their value for a socket ({@code S_IFSOCK}). */
    private static final int FILE_TYPE_MASK = 0170000;
    private static final int SOCKET_FILE_TYPE = 0140000;

    private final EventLoop loop;
    private final Streams.Handler handler;
    private final ServerSocketChannel channel;
    private final SocketAddress address;
    /** The socket file of a Unix server, or null for TCP. */
    private final Path path;
    /** The socket file's identity when bound (null if the file system has none), so that close deletes only that file. */
    private final Object socketFileKey;
    /** The TLS context connections are served with, or null for plain TCP. */
    private final SSLContext tls;
    private final Duration tlsHandshakeTimeout;
    private boolean serving;

    private Server(EventLoop loop, Streams.Handler handler, ServerSocketChannel channel, SSLContext tls,
                   Duration tlsHandshakeTimeout) throws IOException {
        this.loop = loop;
        this.handler = handler;
        this.channel = channel;
        this.address = channel.getLocalAddress();
        this.path = address instanceof UnixDomainSocketAddress unix ? unix.getPath() : null;
        this.socketFileKey = path != null ? fileKey(path) : null;
        this.tls = tls;
        this.tlsHandshakeTimeout = tlsHandshakeTimeout;
    }

    /** Listens on {@code bindTo}: an {@link InetSocketAddress} for TCP, a {@link UnixDomainSocketAddress} for a Unix domain socket. */
    static Server start(EventLoop loop, Streams.Handler handler, SocketAddress bindTo) throws IOException {
        return start(loop, handler, bindTo, null, null);
    }

    /** A server whose connections speak TLS with {@code tls}, or plain TCP if it is null. */
    static Server start(EventLoop loop, Streams.Handler handler, SocketAddress bindTo, SSLContext tls,
                        Duration tlsHandshakeTimeout) throws IOException {
        boolean unix = bindTo instanceof UnixDomainSocketAddress;
        if (unix) {
            removeStaleSocketFile(((UnixDomainSocketAddress) bindTo).getPath());
        }
        ServerSocketChannel channel = unix ? ServerSocketChannel.open(StandardProtocolFamily.UNIX) : ServerSocketChannel.open();
        try {
            channel.configureBlocking(false);
            if (!unix) {
                channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            }
            channel.bind(bindTo, BACKLOG);
            Server server = new Server(loop, handler, channel, tls, tlsHandshakeTimeout);
            server.startAccepting();
            return server;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * The TCP port listened on: the one given, or the one the system chose for port 0. Throws
     * {@link IllegalStateException} for a Unix server, which has a {@link #path()} instead. Any thread.
     */
    public int port() {
        if (!(address instanceof InetSocketAddress inet)) {
            throw new IllegalStateException(this + " listens on a Unix domain socket: it has a path, not a port");
        }
        return inet.getPort();
    }

    /**
     * The socket file a Unix server listens on. Throws {@link IllegalStateException} for a TCP
     * server, which has a {@link #port()} instead. Any thread.
     */
    public Path path() {
        if (path == null) {
            throw new IllegalStateException(this + " listens on TCP: it has a port, not a path");
        }
        return path;
    }

    /** The address listened on: an {@link InetSocketAddress} or a {@link UnixDomainSocketAddress}. Any thread. */
    public SocketAddress address() {
        return address;
    }

    public boolean isServing() {
        return serving;
    }

    /**
     * Stops listening and closes the listening socket; open connections are not touched. A Unix
     * server then deletes its socket file, unless another file has taken its place meanwhile (as
     * asyncio does since 3.13). Idempotent.
     */
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
        if (path != null) {
            deleteSocketFile();
        }
    }

    private void deleteSocketFile() {
        try {
            if (socketFileKey == null || Objects.equals(socketFileKey, fileKey(path))) {
                Files.deleteIfExists(path);
            }
        } catch (IOException gone) {
            // Already deleted, or not ours to delete: either way there is nothing left to clean up.
        }
    }

    /**
     * asyncio's {@code create_unix_server}: a socket file left at {@code path} (by a server that
     * exited without closing) is removed so that the bind can take its place. Any other kind of
     * file stays, and the bind fails on it.
     */
    private static void removeStaleSocketFile(Path path) throws IOException {
        if (!path.getFileSystem().supportedFileAttributeViews().contains("unix")) {
            return; // no file type bits to tell a socket by (Windows): the bind fails on any file there
        }
        int mode;
        try {
            mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException nothingThere) {
            return;
        }
        if ((mode & FILE_TYPE_MASK) == SOCKET_FILE_TYPE) {
            Files.deleteIfExists(path);
        }
    }

    private static Object fileKey(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
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
            if (path == null) {
                accepted.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
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
