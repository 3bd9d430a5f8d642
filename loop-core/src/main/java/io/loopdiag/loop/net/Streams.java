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

/**
 * asyncio's stream API: {@link #openConnection} and {@link #startServer} over TCP,
 * {@link #openUnixConnection} and {@link #startUnixServer} over a Unix domain socket, give each
 * connection a {@link StreamReader} and a {@link StreamWriter} on the running loop. TCP sockets get
 * {@code TCP_NODELAY}, as asyncio sets it: small writes go out at once.
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
        InetSocketAddress address = new InetSocketAddress(host, port);
        SocketChannel channel = SocketChannel.open();
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Sockets.connect(channel, address);
            return wrap(loop, channel, StreamReader.DEFAULT_LIMIT);
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

    /** A reader and a writer on a connected non-blocking {@code channel}; reading starts at once. */
    static Connection wrap(EventLoop loop, SocketChannel channel, int limit) throws IOException {
        String peer = Sockets.describe(channel);
        StreamReader reader = new StreamReader(loop, channel, peer, limit);
        return new Connection(reader, new StreamWriter(loop, channel, peer, reader));
    }
}
