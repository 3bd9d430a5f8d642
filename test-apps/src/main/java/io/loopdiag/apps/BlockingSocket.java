package io.loopdiag.apps;

import static io.loopdiag.apps.OtherThread.DELAY_MILLIS;
import static io.loopdiag.apps.OtherThread.TIMEOUT_MILLIS;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/**
 * Blocking TCP on 127.0.0.1 in a task: {@code ServerSocket.accept}, then {@code Socket.connect},
 * {@code OutputStream.write} and {@code InputStream.read} against a line-echo server run by a
 * platform thread; the same with a {@code SocketChannel} in blocking mode; and
 * {@code ServerSocketChannel.accept} in blocking mode. The line is far larger than the small
 * socket buffers and the server waits a little before reading it and before echoing it, so the
 * write and the read really wait. A loopback connect completes at once: it never waits.
 */
final class BlockingSocket {
    static final String NAME = "blocking-socket";
    static final String DESCRIPTION = "blocking accept, connect, read and write with java.net and java.nio in a task";
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** The line sent and echoed: far more than SMALL_BUFFER_BYTES, so that writing it waits for the server. */
    private static final int LINE_BYTES = 1 << 20;
    private static final int SMALL_BUFFER_BYTES = 8 * 1024;

    private BlockingSocket() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingSocket::operations);
        return Main.done(NAME);
    }

    private static void operations() throws IOException {
        serverSocketAccept();
        byte[] line = line();
        try (ServerSocket echo = startLineEcho()) {
            InetSocketAddress address = (InetSocketAddress) echo.getLocalSocketAddress();
            try (Socket socket = new Socket()) {
                socket.setSendBufferSize(SMALL_BUFFER_BYTES);
                socketConnect(socket, address);
                socketWrite(socket.getOutputStream(), line);
                checkEchoed(line, socketRead(socket.getInputStream()));
            }
            try (SocketChannel channel = SocketChannel.open()) {
                channel.setOption(StandardSocketOptions.SO_SNDBUF, SMALL_BUFFER_BYTES);
                socketChannelConnect(channel, address);
                socketChannelWrite(channel, line);
                checkEchoed(line, socketChannelRead(channel));
            }
        }
        serverSocketChannelAccept();
    }

    private static void serverSocketAccept() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, LOOPBACK)) {
            InetSocketAddress address = (InetSocketAddress) server.getLocalSocketAddress();
            OtherThread.after(() -> new Socket(address.getAddress(), address.getPort()).close());
            server.accept().close();
        }
    }

    private static void socketConnect(Socket socket, InetSocketAddress address) throws IOException {
        socket.connect(address, (int) TIMEOUT_MILLIS);
    }

    private static void socketWrite(OutputStream out, byte[] bytes) throws IOException {
        out.write(bytes);
    }

    private static byte[] socketRead(InputStream in) throws IOException {
        byte[] received = new byte[LINE_BYTES];
        for (int total = 0, n; total < received.length; total += n) {
            if ((n = in.read(received, total, received.length - total)) < 0) {
                throw new EOFException("the echo ended after " + total + " bytes");
            }
        }
        return received;
    }

    private static void socketChannelConnect(SocketChannel channel, InetSocketAddress address) throws IOException {
        channel.connect(address);
    }

    private static void socketChannelWrite(SocketChannel channel, byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    private static byte[] socketChannelRead(SocketChannel channel) throws IOException {
        ByteBuffer received = ByteBuffer.allocate(LINE_BYTES);
        while (received.hasRemaining()) {
            if (channel.read(received) < 0) {
                throw new EOFException("the echo ended after " + received.position() + " bytes");
            }
        }
        return received.array();
    }

    private static void serverSocketChannelAccept() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(LOOPBACK, 0), 1);
            InetSocketAddress address = (InetSocketAddress) server.getLocalAddress();
            OtherThread.after(() -> SocketChannel.open(address).close());
            server.accept().close();
        }
    }

    private static byte[] line() {
        byte[] line = new byte[LINE_BYTES];
        Arrays.fill(line, (byte) 'x');
        line[LINE_BYTES - 1] = '\n';
        return line;
    }

    private static void checkEchoed(byte[] sent, byte[] received) {
        if (!Arrays.equals(sent, received)) {
            throw new IllegalStateException("the line came back changed");
        }
    }

    /**
     * A server on a platform thread that, for each connection until it is closed, waits a little,
     * reads one line of LINE_BYTES, waits a little again and sends it back.
     */
    private static ServerSocket startLineEcho() throws IOException {
        ServerSocket server = new ServerSocket();
        try {
            server.setReceiveBufferSize(SMALL_BUFFER_BYTES); // accepted sockets inherit it
            server.bind(new InetSocketAddress(LOOPBACK, 0));
        } catch (IOException e) {
            server.close();
            throw e;
        }
        Thread.ofPlatform().name("line-echo").daemon(true).start(() -> echoLines(server));
        return server;
    }

    private static void echoLines(ServerSocket server) {
        while (true) {
            try (Socket connection = server.accept()) {
                Thread.sleep(DELAY_MILLIS);
                byte[] line = connection.getInputStream().readNBytes(LINE_BYTES);
                Thread.sleep(DELAY_MILLIS);
                connection.getOutputStream().write(line);
            } catch (SocketException e) {
                if (server.isClosed()) {
                    return; // the scenario is done with us
                }
                throw new IllegalStateException("the line-echo server failed", e);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("the line-echo server failed", e);
            }
        }
    }
}
