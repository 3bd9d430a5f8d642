package io.loopdiag.loop.net;

import io.loopdiag.protocol.AwaitKinds;
import static io.loopdiag.loop.Async.await;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.IoWait;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Awaitable operations on non-blocking channels (asyncio's {@code loop.sock_*}). Each tries the
 * operation at once and, only if it would block, watches the channel on the running loop and
 * suspends the calling task on a future of kind {@link AwaitKinds#IO}; the watch is removed when
 * the operation ends, fails or the task is cancelled. Call them inside a task; at most one task may
 * wait to read, and one to write, on a channel at a time, and a channel wrapped in a
 * {@link StreamReader} must not be used here: the loop holds one reader and one writer per channel.
 */
public final class Sockets {
    private Sockets() {
    }

    /** Accepts one connection, non-blocking, and returns it. */
    public static SocketChannel accept(ServerSocketChannel server) throws Exception {
        while (true) {
            SocketChannel accepted;
            try {
                accepted = server.accept();
            } catch (IOException e) {
                throw failed("accept on", server, e);
            }
            if (accepted != null) {
                accepted.configureBlocking(false);
                return accepted;
            }
            awaitReady(server, true, new IoWait("accept", describe(server)));
        }
    }

    /**
     * Reads into {@code buffer} once data is available: returns the number of bytes read (0 only
     * if {@code buffer} has no room), or -1 at end of stream.
     */
    public static int recv(SocketChannel channel, ByteBuffer buffer) throws Exception {
        if (!buffer.hasRemaining()) {
            return 0;
        }
        while (true) {
            int read;
            try {
                read = channel.read(buffer);
            } catch (IOException e) {
                throw failed("recv from", channel, e);
            }
            if (read != 0) {
                return read;
            }
            awaitReady(channel, true, new IoWait("read", describe(channel)));
        }
    }

    /** Writes every remaining byte of {@code buffer}, suspending whenever the socket's buffer is full. */
    public static void sendAll(SocketChannel channel, ByteBuffer buffer) throws Exception {
        while (true) {
            try {
                channel.write(buffer);
            } catch (IOException e) {
                throw failed("send to", channel, e);
            }
            if (!buffer.hasRemaining()) {
                return;
            }
            awaitReady(channel, false, new IoWait("write", describe(channel)));
        }
    }

    /** Connects {@code channel} (non-blocking, not yet connected) to {@code address}. */
    public static void connect(SocketChannel channel, SocketAddress address) throws Exception {
        try {
            if (channel.connect(address)) {
                return;
            }
        } catch (IOException e) {
            throw new IOException("connect to " + address + " failed: " + e.getMessage(), e);
        }
        while (true) {
            // The loop watches for OP_CONNECT while the connection is pending.
            awaitReady(channel, false, new IoWait("connect", String.valueOf(address)));
            try {
                if (channel.finishConnect()) {
                    return;
                }
            } catch (IOException e) {
                throw new IOException("connect to " + address + " failed: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Suspends the current task until {@code channel} is readable ({@code reading}) or writable,
     * or until the task is cancelled; the loop stops watching the channel either way.
     */
    static void awaitReady(SelectableChannel channel, boolean reading, IoWait wait) throws Exception {
        EventLoop loop = Async.loop();
        Future<Void> ready = wait.future(loop);
        Runnable wake = () -> {
            if (!ready.isDone()) {
                ready.setResult(null);
            }
        };
        try {
            if (reading) {
                loop.addReader(channel, wake);
            } else {
                loop.addWriter(channel, wake);
            }
        } catch (UncheckedIOException closed) {
            throw closed.getCause();
        }
        try {
            await(ready);
        } finally {
            if (reading) {
                loop.removeReader(channel);
            } else {
                loop.removeWriter(channel);
            }
        }
    }

    /**
     * The peer of a connected socket, or else its local address, as labels and messages show it. A
     * Unix domain socket's peer is usually unnamed (a client rarely binds its socket to a path), so
     * a connection accepted by a Unix server is shown by the server's path.
     */
    static String describe(NetworkChannel channel) {
        try {
            SocketAddress address = channel instanceof SocketChannel socket && socket.isConnected()
                    ? socket.getRemoteAddress() : null;
            if (address == null || isUnnamed(address)) {
                address = channel.getLocalAddress();
            }
            return String.valueOf(address);
        } catch (IOException e) {
            return "<closed>";
        }
    }

    private static boolean isUnnamed(SocketAddress address) {
        return address instanceof UnixDomainSocketAddress unix && unix.getPath().toString().isEmpty();
    }

    private static IOException failed(String what, NetworkChannel channel, IOException cause) {
        return new IOException(what + " " + describe(channel) + " failed: " + cause.getMessage(), cause);
    }
}
