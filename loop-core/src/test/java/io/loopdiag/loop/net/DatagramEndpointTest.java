package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.CancelledException;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import io.loopdiag.protocol.AwaitKinds;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class DatagramEndpointTest {
    /** Loop iterations a test yields while waiting for loopback datagrams that are already on their way. */
    private static final int MAX_YIELDS = 100_000;
    private static final InetSocketAddress ANY_LOOPBACK_PORT = new InetSocketAddress("127.0.0.1", 0);

    private final EventLoop loop = new EventLoop();
    private final List<DatagramEndpoint> endpoints = new ArrayList<>();

    @AfterEach
    void close() {
        for (DatagramEndpoint endpoint : endpoints) {
            endpoint.close();
        }
        loop.close();
    }

    private DatagramEndpoint open(SocketAddress local, SocketAddress remote) throws IOException {
        return open(local, remote, Datagrams.Options.DEFAULTS);
    }

    private DatagramEndpoint open(SocketAddress local, SocketAddress remote, Datagrams.Options options) throws IOException {
        DatagramEndpoint endpoint = Datagrams.open(loop, local, remote, options);
        endpoints.add(endpoint);
        return endpoint;
    }

    private static String text(Datagram datagram) {
        return new String(datagram.data(), UTF_8);
    }

    /** Yields until {@code endpoint} has taken {@code count} datagrams off its socket (queued or dropped). Inside a task. */
    private static void awaitArrivals(DatagramEndpoint endpoint, int count) throws Exception {
        int yields = 0;
        while (endpoint.queuedCount() + endpoint.droppedCount() < count) {
            assertTrue(++yields < MAX_YIELDS, "datagrams never arrived: " + endpoint);
            sleep(Duration.ZERO);
        }
    }

    /**
     * Makes {@code sender}'s socket stand for one whose send buffer is full, which loopback never
     * has: a datagram stays in the endpoint's buffer until the returned flag is cleared.
     */
    private static AtomicBoolean fillSendBuffer(DatagramEndpoint sender) {
        AtomicBoolean full = new AtomicBoolean(true);
        DatagramEndpoint.SendCall real = sender.sendCall;
        sender.sendCall = (channel, datagram, target) -> {
            if (!full.get()) {
                real.send(channel, datagram, target);
            }
        };
        return full;
    }

    /** A UDP port on loopback that nothing is bound to (it was, a moment ago). */
    private static InetSocketAddress deadPort() throws IOException {
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.bind(ANY_LOOPBACK_PORT);
            return (InetSocketAddress) probe.getLocalAddress();
        }
    }

    @Test
    void aDatagramGoesToABoundEndpointAndTheAnswerComesBackToItsSender() throws Exception {
        DatagramEndpoint server = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint client = open(null, server.localAddress());
        assertEquals(server.localAddress(), client.remoteAddress());
        assertEquals(null, server.remoteAddress());
        Datagram answer = loop.runUntilComplete(Coroutine.of("client", () -> {
            Task<Void> serving = Async.createTask("server", () -> {
                Datagram request = server.receive();
                server.send(("pong to " + text(request)).getBytes(UTF_8), request.sender());
                return null;
            });
            client.send("ping".getBytes(UTF_8));
            Datagram reply = client.receive();
            await(serving);
            return reply;
        }));
        assertEquals(new Datagram("pong to ping".getBytes(UTF_8), server.localAddress()), answer);
    }

    @Test
    void manyDatagramsArriveWholeAndInOrder() throws Exception {
        int batches = 20;
        int perBatch = 50; // at most this many wait in the receiver's socket buffer at once: loopback drops none
        DatagramEndpoint receiver = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint sender = open(ANY_LOOPBACK_PORT, null);
        List<String> received = loop.runUntilComplete(Coroutine.of("sender", () -> {
            List<String> texts = new ArrayList<>();
            for (int batch = 0; batch < batches; batch++) {
                for (int i = 0; i < perBatch; i++) {
                    int n = batch * perBatch + i;
                    sender.send(ByteBuffer.wrap(("datagram " + n + " " + "x".repeat(n % 700)).getBytes(UTF_8)),
                            receiver.localAddress());
                }
                for (int i = 0; i < perBatch; i++) {
                    Datagram datagram = receiver.receive();
                    assertEquals(sender.localAddress(), datagram.sender());
                    texts.add(text(datagram));
                }
            }
            return texts;
        }));
        List<String> expected = new ArrayList<>();
        for (int n = 0; n < batches * perBatch; n++) {
            expected.add("datagram " + n + " " + "x".repeat(n % 700));
        }
        assertEquals(expected, received);
        assertEquals(0, receiver.droppedCount());
        assertEquals(0, sender.bufferedBytes(), "loopback takes every datagram at once");
    }

    @Test
    void aWaitingReceiveAwaitsARecvfromOnTheLocalAddressUntilADatagramArrives() throws Exception {
        DatagramEndpoint endpoint = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint sender = open(ANY_LOOPBACK_PORT, null);
        loop.runUntilComplete(Coroutine.of("main", () -> {
            Task<Datagram> receiving = Async.createTask("receiver", endpoint::receive);
            for (int i = 0; i < 100; i++) {
                sleep(Duration.ZERO);
            }
            assertFalse(receiving.isDone(), "receive returned with nothing sent");
            Future<?> awaited = receiving.awaiting();
            assertEquals(AwaitKinds.IO, awaited.awaitKind());
            assertEquals("recvfrom " + endpoint.localAddress(), awaited.awaitLabel());
            sender.send(new byte[] {42}, endpoint.localAddress());
            assertEquals(new Datagram(new byte[] {42}, sender.localAddress()), await(receiving));
            return null;
        }));
    }

    @Test
    void aCancelledReceiveLeavesNoWaiterBehind() throws Exception {
        DatagramEndpoint endpoint = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint sender = open(ANY_LOOPBACK_PORT, null);
        loop.runUntilComplete(Coroutine.of("main", () -> {
            Task<Datagram> receiving = Async.createTask("receiver", endpoint::receive);
            sleep(Duration.ZERO);
            sleep(Duration.ZERO);
            assertTrue(receiving.isSuspended(), "the receiver should be waiting");
            receiving.cancel();
            assertThrows(CancelledException.class, () -> await(receiving));
            // The next receive waits in its turn (it does not find another task "already
            // receiving"), and the datagram sent now goes to it, not to the cancelled one.
            Task<Datagram> next = Async.createTask("next receiver", endpoint::receive);
            sleep(Duration.ZERO);
            sleep(Duration.ZERO);
            assertTrue(next.isSuspended(), "the next receiver should be waiting: " + next);
            sender.send("after".getBytes(UTF_8), endpoint.localAddress());
            assertEquals("after", text(await(next)));
            assertEquals(0, endpoint.queuedCount());
            return null;
        }));
    }

    @Test
    void datagramsNobodyReceivesAreQueuedUpToTheLimitAndTheRestDroppedAndCounted() throws Exception {
        DatagramEndpoint endpoint = open(ANY_LOOPBACK_PORT, null, Datagrams.Options.DEFAULTS.withQueueLimit(3));
        DatagramEndpoint sender = open(ANY_LOOPBACK_PORT, null);
        List<String> received = loop.runUntilComplete(Coroutine.of("main", () -> {
            for (int i = 1; i <= 5; i++) {
                sender.send(("d" + i).getBytes(UTF_8), endpoint.localAddress());
            }
            awaitArrivals(endpoint, 5);
            assertEquals(3, endpoint.queuedCount());
            assertEquals(2, endpoint.droppedCount());
            List<String> texts = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                texts.add(text(endpoint.receive()));
            }
            return texts;
        }));
        assertEquals(List.of("d1", "d2", "d3"), received, "the oldest are kept, the newest dropped");
        assertEquals(3, endpoint.queueLimit());
    }

    @Test
    void aPortUnreachableOnAConnectedEndpointIsThrownByReceiveAndTheEndpointStaysOpen() throws Exception {
        InetSocketAddress dead = deadPort();
        DatagramEndpoint client = open(null, dead);
        IOException unreachable = loop.runUntilComplete(Coroutine.of("main", () -> {
            client.send("anyone?".getBytes(UTF_8)); // send does not throw: the ICMP answer comes later
            IOException thrown = assertThrows(IOException.class, client::receive);
            assertFalse(client.isClosing());
            // The endpoint still works: once something listens on that port, it gets the next datagram.
            DatagramEndpoint revived = open(dead, null);
            client.send("now?".getBytes(UTF_8));
            assertEquals(new Datagram("now?".getBytes(UTF_8), client.localAddress()), revived.receive());
            return thrown;
        }));
        assertInstanceOf(PortUnreachableException.class, unreachable.getCause(), String.valueOf(unreachable));
        assertEquals("recvfrom on " + client.localAddress() + " failed: PortUnreachableException", unreachable.getMessage());
    }

    @Test
    void sendsWaitInTheBufferWhileTheSocketIsFullThenGoOutInOrderAndDrainReturns() throws Exception {
        DatagramEndpoint receiver = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint sender = open(ANY_LOOPBACK_PORT, null);
        AtomicBoolean socketFull = fillSendBuffer(sender);
        int size = 25_000; // three of them are above the high-water mark, and fit the receiver's socket buffer
        List<byte[]> sent = List.of(filled(size, 'a'), filled(size, 'b'), filled(size, 'c'), filled(10, 'd'));
        List<Datagram> received = loop.runUntilComplete(Coroutine.of("main", () -> {
            sender.drain(); // nothing buffered: returns at once
            for (int i = 0; i < 3; i++) {
                ByteBuffer data = ByteBuffer.wrap(sent.get(i));
                sender.send(data, receiver.localAddress());
                assertFalse(data.hasRemaining(), "send takes the buffer's bytes");
            }
            assertEquals(3 * size, sender.bufferedBytes());
            Task<Void> draining = Async.createTask("drain", () -> {
                sender.drain();
                return null;
            });
            for (int i = 0; i < 100; i++) {
                sleep(Duration.ZERO);
            }
            assertFalse(draining.isDone(), "drain returned while nothing could be sent");
            assertEquals("sendto " + sender.localAddress(), draining.awaiting().awaitLabel());
            socketFull.set(false);
            // The socket would take this one now, but it must not overtake the three buffered before it.
            sender.send(sent.get(3), receiver.localAddress());
            assertEquals(3 * size + 10, sender.bufferedBytes());
            await(draining);
            assertEquals(0, sender.bufferedBytes());
            List<Datagram> datagrams = new ArrayList<>();
            for (int i = 0; i < sent.size(); i++) {
                datagrams.add(receiver.receive());
            }
            return datagrams;
        }));
        for (int i = 0; i < sent.size(); i++) {
            assertEquals(new Datagram(sent.get(i), sender.localAddress()), received.get(i), "datagram " + i);
        }
    }

    @Test
    void closeSendsTheBufferedDatagramsBeforeClosingTheSocket() throws Exception {
        DatagramEndpoint receiver = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint sender = open(ANY_LOOPBACK_PORT, null);
        AtomicBoolean socketFull = fillSendBuffer(sender);
        String last = loop.runUntilComplete(Coroutine.of("main", () -> {
            sender.send("last words".getBytes(UTF_8), receiver.localAddress());
            sender.close();
            assertTrue(sender.isClosing());
            assertThrows(IOException.class, () -> sender.send(new byte[1], receiver.localAddress()));
            socketFull.set(false);
            return text(receiver.receive());
        }));
        assertEquals("last words", last);
        assertEquals(0, sender.bufferedBytes());
    }

    @Test
    void aClosedEndpointRefusesToSendAndReceiveOnceItsQueueIsTaken() throws Exception {
        DatagramEndpoint endpoint = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint sender = open(ANY_LOOPBACK_PORT, null);
        SocketAddress local = endpoint.localAddress();
        loop.runUntilComplete(Coroutine.of("main", () -> {
            sender.send("before close".getBytes(UTF_8), local);
            awaitArrivals(endpoint, 1);
            endpoint.close();
            endpoint.close(); // idempotent
            assertTrue(endpoint.isClosing());
            assertEquals("before close", text(endpoint.receive()), "what arrived before close is still received");
            IOException receiving = assertThrows(IOException.class, endpoint::receive);
            assertEquals("cannot receive on " + local + ": the endpoint is closed", receiving.getMessage());
            IOException sending = assertThrows(IOException.class, () -> endpoint.send(new byte[1], local));
            assertEquals("cannot send from " + local + ": the endpoint is closed", sending.getMessage());
            assertEquals(local, endpoint.localAddress(), "still known after close");
            return null;
        }));
    }

    @Test
    void closingWakesAWaitingReceiveWithAnIoException() throws Exception {
        DatagramEndpoint endpoint = open(ANY_LOOPBACK_PORT, null);
        IOException thrown = loop.runUntilComplete(Coroutine.of("main", () -> {
            Task<Datagram> receiving = Async.createTask("receiver", endpoint::receive);
            sleep(Duration.ZERO);
            sleep(Duration.ZERO);
            assertTrue(receiving.isSuspended());
            endpoint.close();
            return assertThrows(IOException.class, () -> await(receiving));
        }));
        assertTrue(thrown.getMessage().endsWith("the endpoint is closed"), thrown.getMessage());
    }

    @Test
    void aConnectedEndpointSendsOnlyToItsPeerAndAnUnconnectedOneNeedsAnAddress() throws Exception {
        DatagramEndpoint server = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint other = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint client = open(null, server.localAddress());
        loop.runUntilComplete(Coroutine.of("main", () -> {
            IllegalArgumentException elsewhere = assertThrows(IllegalArgumentException.class,
                    () -> client.send(new byte[1], other.localAddress()));
            assertTrue(elsewhere.getMessage().contains("connected to " + server.localAddress()), elsewhere.getMessage());
            assertThrows(IllegalArgumentException.class, () -> server.send(new byte[1]));
            client.send(new byte[] {7}, server.localAddress()); // its own peer, named: allowed
            assertEquals(new Datagram(new byte[] {7}, client.localAddress()), server.receive());
            return null;
        }));
    }

    @Test
    void onlyAnEndpointThatAllowsBroadcastMaySendToABroadcastAddress() throws Exception {
        DatagramEndpoint listener = open(new InetSocketAddress("0.0.0.0", 0), null);
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        InetSocketAddress broadcast = new InetSocketAddress("127.255.255.255", port);
        DatagramEndpoint refused = open(ANY_LOOPBACK_PORT, null);
        DatagramEndpoint allowed = open(ANY_LOOPBACK_PORT, null, Datagrams.Options.DEFAULTS.withAllowBroadcast(true));
        loop.runUntilComplete(Coroutine.of("main", () -> {
            refused.send("no".getBytes(UTF_8), broadcast);
            IOException error = assertThrows(IOException.class, refused::receive, "the send's error comes to receive");
            assertInstanceOf(SocketException.class, error.getCause(), String.valueOf(error));
            assertTrue(error.getMessage().startsWith("sendto " + broadcast + " from " + refused.localAddress() + " failed: "),
                    error.getMessage());
            allowed.send("yes".getBytes(UTF_8), broadcast);
            assertEquals(new Datagram("yes".getBytes(UTF_8), allowed.localAddress()), listener.receive());
            return null;
        }));
    }

    @Test
    void reusePortLetsTwoEndpointsBindTheSameAddress() throws Exception {
        Datagrams.Options reuse = Datagrams.Options.DEFAULTS.withReusePort(true);
        DatagramEndpoint first = open(ANY_LOOPBACK_PORT, null, reuse);
        DatagramEndpoint second = open(first.localAddress(), null, reuse);
        assertEquals(first.localAddress(), second.localAddress());
        BindException taken = assertThrows(BindException.class, () -> open(first.localAddress(), null));
        assertTrue(taken.getMessage().contains("in use"), taken.getMessage());
    }

    private static byte[] filled(int size, char c) {
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, (byte) c);
        return bytes;
    }
}
