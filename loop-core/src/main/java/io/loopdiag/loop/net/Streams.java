package io.loopdiag.loop.net;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;

/**
 * asyncio's stream API: {@link #openConnection} and {@link #startServer} give each connection a
 * {@link StreamReader} and a {@link StreamWriter} on the running loop. Sockets get
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

    /** A reader and a writer on a connected non-blocking {@code channel}; reading starts at once. */
    static Connection wrap(EventLoop loop, SocketChannel channel, int limit) throws IOException {
        String peer = String.valueOf(channel.getRemoteAddress());
        StreamReader reader = new StreamReader(loop, channel, peer, limit);
        return new Connection(reader, new StreamWriter(loop, channel, peer, reader));
    }
}
