package io.loopdiag.loop.net;

import io.loopdiag.protocol.AwaitKinds;
import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.CancelledException;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SocketsTest {
    private final EventLoop loop = new EventLoop();
    private final List<java.nio.channels.Channel> channels = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        for (java.nio.channels.Channel channel : channels) {
            channel.close();
        }
        loop.close();
    }

    private ServerSocketChannel listen() throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        channels.add(server);
        server.configureBlocking(false);
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        return server;
    }

    private SocketChannel newClient() throws IOException {
        SocketChannel client = SocketChannel.open();
        channels.add(client);
        client.configureBlocking(false);
        return client;
    }

    /** A connected pair over loopback: [client, accepted]. Inside a task. */
    private SocketChannel[] connectedPair() throws Exception {
        ServerSocketChannel server = listen();
        Task<SocketChannel> accepting = Async.createTask("accept", () -> Sockets.accept(server));
        SocketChannel client = newClient();
        Sockets.connect(client, server.getLocalAddress());
        SocketChannel accepted = await(accepting);
        channels.add(accepted);
        return new SocketChannel[] {client, accepted};
    }

    @Test
    void acceptWaitsForAConnectionAndConnectCompletesIt() throws Exception {
        boolean[] acceptWasPending = {false};
        SocketChannel accepted = loop.runUntilComplete(Coroutine.of("main", () -> {
            ServerSocketChannel server = listen();
            Task<SocketChannel> accepting = Async.createTask("accept", () -> Sockets.accept(server));
            sleep(Duration.ZERO);
            sleep(Duration.ZERO);
            acceptWasPending[0] = !accepting.isDone() && accepting.awaiting() != null
                    && accepting.awaiting().awaitLabel().equals("accept " + server.getLocalAddress());
            SocketChannel client = newClient();
            Sockets.connect(client, server.getLocalAddress());
            assertTrue(client.isConnected());
            SocketChannel result = await(accepting);
            channels.add(result);
            assertEquals(client.getLocalAddress(), result.getRemoteAddress());
            return result;
        }));
        assertTrue(acceptWasPending[0], "accept should suspend on an io future labelled with the listening address");
        assertFalse(accepted.isBlocking(), "accepted channels are non-blocking");
    }

    @Test
    void recvReturnsWhatWasSentAndMinusOneAtEof() throws Exception {
        loop.runUntilComplete(Coroutine.of("main", () -> {
            SocketChannel[] pair = connectedPair();
            Sockets.sendAll(pair[0], ByteBuffer.wrap("hello".getBytes()));
            pair[0].shutdownOutput();
            ByteBuffer received = ByteBuffer.allocate(16);
            int total = 0;
            int n;
            while ((n = Sockets.recv(pair[1], received)) > 0) {
                total += n;
            }
            assertEquals(-1, n);
            assertEquals(5, total);
            assertEquals("hello", new String(received.array(), 0, total));
            assertEquals(-1, Sockets.recv(pair[1], ByteBuffer.allocate(1)), "EOF stays EOF");
            return null;
        }));
    }

    @Test
    void recvIntoAFullBufferReturnsZeroWithoutWaiting() throws Exception {
        int read = loop.runUntilComplete(Coroutine.of("main", () -> {
            SocketChannel[] pair = connectedPair();
            return Sockets.recv(pair[1], ByteBuffer.allocate(0));
        }));
        assertEquals(0, read);
    }

    @Test
    void sendAllDeliversEveryByteOfABufferLargerThanTheSocketBuffers() throws Exception {
        byte[] sent = new byte[8 << 20];
        new Random(42).nextBytes(sent);
        byte[] received = loop.runUntilComplete(Coroutine.of("main", () -> {
            SocketChannel[] pair = connectedPair();
            Task<Void> sender = Async.createTask("sender", () -> {
                Sockets.sendAll(pair[0], ByteBuffer.wrap(sent));
                pair[0].shutdownOutput();
                return null;
            });
            ByteBuffer into = ByteBuffer.allocate(sent.length + 1);
            while (Sockets.recv(pair[1], into) >= 0) {
                // until EOF
            }
            await(sender);
            return java.util.Arrays.copyOf(into.array(), into.position());
        }));
        assertArrayEquals(sent, received);
    }

    @Test
    void aTaskWaitingInRecvAwaitsAnIoFutureLabelledWithThePeer() throws Exception {
        loop.runUntilComplete(Coroutine.of("main", () -> {
            SocketChannel[] pair = connectedPair();
            Task<Integer> reading = Async.createTask("reader", () -> Sockets.recv(pair[1], ByteBuffer.allocate(8)));
            sleep(Duration.ZERO);
            sleep(Duration.ZERO);
            Future<?> awaited = reading.awaiting();
            assertEquals(AwaitKinds.IO, awaited.awaitKind());
            assertEquals("read " + pair[1].getRemoteAddress(), awaited.awaitLabel());
            Sockets.sendAll(pair[0], ByteBuffer.wrap(new byte[] {1, 2, 3}));
            assertEquals(3, await(reading));
            return null;
        }));
    }

    @Test
    void cancellingATaskWaitingInRecvRemovesTheReader() throws Exception {
        loop.runUntilComplete(Coroutine.of("main", () -> {
            SocketChannel[] pair = connectedPair();
            Task<Integer> reading = Async.createTask("reader", () -> Sockets.recv(pair[1], ByteBuffer.allocate(8)));
            sleep(Duration.ZERO);
            sleep(Duration.ZERO);
            assertTrue(reading.isSuspended(), "the reader task should be waiting for data");
            reading.cancel();
            CancelledException cancelled = assertThrows(CancelledException.class, () -> await(reading));
            assertTrue(reading.isCancelled(), String.valueOf(cancelled));
            // removeReader answers whether a reader was still registered: the cancelled recv removed its own.
            assertFalse(loop.removeReader(pair[1]), "the cancelled recv left its reader on the loop");
            // The channel is usable again by another task.
            Sockets.sendAll(pair[0], ByteBuffer.wrap(new byte[] {7}));
            ByteBuffer one = ByteBuffer.allocate(1);
            assertEquals(1, Sockets.recv(pair[1], one));
            assertEquals(7, one.get(0));
            return null;
        }));
    }

    @Test
    void connectToAPortNobodyListensOnFailsWithConnectException() throws Exception {
        int freePort;
        try (ServerSocketChannel probe = ServerSocketChannel.open()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            freePort = ((InetSocketAddress) probe.getLocalAddress()).getPort();
        }
        IOException failure = assertThrows(IOException.class, () -> loop.runUntilComplete(Coroutine.of("main", () -> {
            Sockets.connect(newClient(), new InetSocketAddress("127.0.0.1", freePort));
            return null;
        })));
        assertInstanceOf(ConnectException.class, failure.getCause(), String.valueOf(failure));
        assertTrue(failure.getMessage().contains("127.0.0.1:" + freePort), failure.getMessage());
    }

    @Test
    void recvOnAClosedChannelFailsWithAnIoException() throws Exception {
        IOException failure = assertThrows(IOException.class, () -> loop.runUntilComplete(Coroutine.of("main", () -> {
            SocketChannel[] pair = connectedPair();
            pair[1].close();
            return Sockets.recv(pair[1], ByteBuffer.allocate(1));
        })));
        assertSame(java.nio.channels.ClosedChannelException.class, failure.getCause().getClass());
    }
}
