package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.IoWait;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayDeque;

/**
 * A UDP socket on the event loop (asyncio's datagram transport), made by {@link Datagrams#open}.
 * Loop thread or a task of the loop only; {@link #receive} and {@link #drain} suspend, inside a task.
 *
 * <p><b>Receiving.</b> While the endpoint is open, a reader callback on the loop takes each
 * datagram as it arrives, whether or not a task is receiving (asyncio's transport does the same),
 * into a queue of at most {@link Datagrams.Options#queueLimit()} datagrams; {@link #receive} takes
 * the oldest, or waits for one. When the queue is full, an arriving datagram is dropped and counted
 * ({@link #droppedCount()}), as the kernel drops datagrams arriving at a full socket buffer: a slow
 * receiver loses the newest datagrams and never slows the senders.
 *
 * <p><b>Sending.</b> {@link #send} never suspends: the datagram goes to the socket at once or, if
 * the socket's buffer is full, into a send buffer that a writer callback empties in order as the
 * socket drains (asyncio's {@code sendto}). {@link #drain} is the back-pressure point, like
 * {@link StreamWriter#drain}.
 *
 * <p><b>Errors.</b> An error the system reports for a send or a receive (an ICMP port unreachable
 * on a connected endpoint, a datagram too large, a broadcast without {@code allowBroadcast}) does
 * not close the endpoint and is not thrown by {@link #send}: as asyncio hands it to
 * {@code error_received}, it joins the receive queue in order of arrival, and the {@link #receive}
 * that reaches it throws an {@link IOException} with the system's exception as its cause. A
 * datagram whose send failed is dropped. Misuse (a closed endpoint, a wrong or missing address) is
 * thrown at once.
 */
public final class DatagramEndpoint implements AutoCloseable {
    /** Room for the largest UDP payload: 65,507 bytes over IPv4, 65,527 over IPv6 without jumbograms. */
    private static final int MAX_DATAGRAM_BYTES = 65_536;
    /**
     * At most this many datagrams per reader callback: a burst costs one select rather than one per
     * datagram (a select costs about twenty callbacks), and a flood on one endpoint cannot hold the loop.
     */
    private static final int MAX_RECEIVES_PER_CALLBACK = 32;

    // state values: OPEN; CLOSING (close() called, buffered datagrams still being sent); CLOSED (channel closed)
    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;

    /** Sends one datagram whole, or nothing if the socket's buffer is full; the position moves to the limit if sent. */
    @FunctionalInterface
    interface SendCall {
        void send(DatagramChannel channel, ByteBuffer datagram, SocketAddress target) throws IOException;
    }

    /** A system error of a send or a receive, queued for {@link #receive}; {@code what} says which, for the message. */
    private record Failure(String what, IOException cause) {
    }

    /** A datagram in the send buffer; {@code target} is null on a connected endpoint. */
    private record Outgoing(byte[] data, SocketAddress target) {
    }

    private final EventLoop loop;
    private final DatagramChannel channel;
    private final SocketAddress localAddress;
    private final SocketAddress remoteAddress;
    /** The local address as dumps and messages show it, like {@code /127.0.0.1:5353}. */
    private final String label;
    private final int queueLimit;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(MAX_DATAGRAM_BYTES);
    /** What {@link #receive} takes, in order of arrival: each a {@link Datagram} or a {@link Failure}. */
    private final ArrayDeque<Object> received = new ArrayDeque<>();
    private final ArrayDeque<Outgoing> sendBuffer = new ArrayDeque<>();
    private int bufferedBytes;
    private long droppedCount;
    private int state = OPEN;
    private boolean writing; // true while the writer callback is registered
    private final Backpressure backpressure;
    private Future<Void> receiveWaiter;
    /**
     * The socket's own send; a test in this package stands in a socket whose buffer is full, which
     * a loopback socket never is (the kernel hands a loopback datagram on, or drops it, at once).
     */
    SendCall sendCall = DatagramEndpoint::sendNow;

    /** An endpoint on {@code channel}: non-blocking, bound, and connected or not; receiving starts at once. */
    DatagramEndpoint(EventLoop loop, DatagramChannel channel, int queueLimit) throws IOException {
        this.loop = loop;
        this.channel = channel;
        this.localAddress = channel.getLocalAddress();
        this.remoteAddress = channel.getRemoteAddress();
        this.label = String.valueOf(localAddress);
        this.queueLimit = queueLimit;
        this.backpressure = new Backpressure(loop, "sendto", label);
        loop.addReader(channel, this::onReadable);
    }

    /**
     * Takes the oldest datagram received, waiting for one if none is queued. Throws the
     * {@link IOException} of a system error that arrived before it (see the class comment), or one
     * saying the endpoint is closed once the datagrams received before {@link #close} are taken.
     * One task at a time.
     */
    public Datagram receive() throws Exception {
        loop.checkThread();
        while (true) {
            Object next = received.poll();
            if (next instanceof Datagram datagram) {
                return datagram;
            }
            if (next instanceof Failure failure) {
                throw new IOException(failure.what + " failed: " + describe(failure.cause), failure.cause);
            }
            if (state != OPEN) {
                throw new IOException("cannot receive on " + label + ": the endpoint is closed");
            }
            if (receiveWaiter != null) {
                throw new IllegalStateException("receive() called while another task is already receiving on " + label);
            }
            Future<Void> arrived = new IoWait("recvfrom", label).future(loop);
            receiveWaiter = arrived;
            try {
                await(arrived);
            } finally {
                receiveWaiter = null;
            }
        }
    }

    /** Sends {@code data} to the connected remote address. */
    public void send(byte[] data) throws IOException {
        send(ByteBuffer.wrap(data), null);
    }

    /** Sends {@code data} to {@code target}, which may be null on a connected endpoint. */
    public void send(byte[] data, SocketAddress target) throws IOException {
        send(ByteBuffer.wrap(data), target);
    }

    /**
     * Sends the remaining bytes of {@code data} as one datagram to {@code target} (null, or the
     * remote address, on a connected endpoint), at once or from the send buffer later; never
     * suspends. The buffer's position moves to its limit. Throws {@link IOException} if the
     * endpoint is closed, {@link IllegalArgumentException} for a target a connected endpoint
     * cannot send to or a missing one.
     */
    public void send(ByteBuffer data, SocketAddress target) throws IOException {
        loop.checkThread();
        if (state != OPEN) {
            throw new IOException("cannot send from " + label + ": the endpoint is closed");
        }
        SocketAddress to = destination(target);
        ByteBuffer datagram = data.slice();
        data.position(data.limit());
        if (sendBuffer.isEmpty()) {
            try {
                sendCall.send(channel, datagram, to);
            } catch (IOException e) {
                queue(new Failure(sendWhat(to), e));
                return;
            }
            // An empty datagram cannot tell sent from would-block (both return 0): it counts as sent.
            if (!datagram.hasRemaining()) {
                return;
            }
        }
        byte[] copy = new byte[datagram.remaining()];
        datagram.get(copy);
        sendBuffer.add(new Outgoing(copy, to));
        bufferedBytes += copy.length;
        if (!writing) {
            writing = true;
            loop.addWriter(channel, this::onWritable);
        }
        backpressure.grew(bufferedBytes);
    }

    /**
     * Suspends while the send buffer is above the high-water mark, until the writer callback has
     * taken it down to the low-water mark (those of {@link StreamWriter#HIGH_WATER_BYTES streams});
     * returns at once otherwise. Inside a task, one at a time.
     */
    public void drain() throws Exception {
        loop.checkThread();
        backpressure.drain();
    }

    /**
     * Stops receiving at once (a waiting {@link #receive} throws) and closes the socket once the
     * buffered datagrams are sent, at once if none are. Idempotent.
     */
    @Override
    public void close() {
        loop.checkThread();
        if (state != OPEN) {
            return;
        }
        state = CLOSING;
        loop.removeReader(channel);
        wake(receiveWaiter);
        if (sendBuffer.isEmpty()) {
            closeChannel();
        }
    }

    /** True once {@link #close} was called (asyncio's {@code is_closing}). */
    public boolean isClosing() {
        return state != OPEN;
    }

    /** The bound address (asyncio's {@code get_extra_info("sockname")}); still known after close. */
    public SocketAddress localAddress() {
        return localAddress;
    }

    /** The connected address, or null if the endpoint is not connected (asyncio's {@code "peername"}). */
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** Datagrams (and errors) received and not yet taken by {@link #receive}. */
    public int queuedCount() {
        return received.size();
    }

    /** The most datagrams the receive queue holds; past it, arriving datagrams are dropped. */
    public int queueLimit() {
        return queueLimit;
    }

    /** Datagrams (and errors) dropped because the receive queue was full. */
    public long droppedCount() {
        return droppedCount;
    }

    /** Bytes of datagrams sent and not yet taken by the socket (asyncio's {@code get_write_buffer_size}). */
    public int bufferedBytes() {
        return bufferedBytes;
    }

    // ---- the loop side --------------------------------------------------------------------------

    /** The reader callback: queue each datagram waiting on the socket, at most {@link #MAX_RECEIVES_PER_CALLBACK}. */
    private void onReadable() {
        for (int i = 0; i < MAX_RECEIVES_PER_CALLBACK; i++) {
            receiveBuffer.clear();
            SocketAddress sender;
            try {
                sender = channel.receive(receiveBuffer);
            } catch (IOException e) {
                // Reading the error clears it; a datagram behind it makes the socket readable again.
                queue(new Failure("recvfrom on " + label, e));
                return;
            }
            if (sender == null) {
                return;
            }
            receiveBuffer.flip();
            byte[] data = new byte[receiveBuffer.remaining()];
            receiveBuffer.get(data);
            queue(new Datagram(data, sender));
        }
    }

    /** Adds a datagram or a failure to the receive queue, or drops it if the queue is full; wakes the receiver. */
    private void queue(Object item) {
        if (received.size() >= queueLimit) {
            droppedCount++;
            return;
        }
        received.add(item);
        wake(receiveWaiter);
    }

    /** The writer callback: send more of the buffer, and act once it is empty. */
    private void onWritable() {
        flush();
        if (sendBuffer.isEmpty()) {
            writing = false;
            loop.removeWriter(channel);
            if (state == CLOSING) {
                closeChannel();
            }
        }
    }

    /** Sends buffered datagrams, oldest first, until the buffer is empty or the socket's is full again. */
    private void flush() {
        Outgoing next;
        while ((next = sendBuffer.peek()) != null) {
            ByteBuffer datagram = ByteBuffer.wrap(next.data);
            try {
                sendCall.send(channel, datagram, next.target);
            } catch (IOException e) {
                queue(new Failure(sendWhat(next.target), e));
                datagram.position(datagram.limit()); // dropped, as asyncio drops it
            }
            if (datagram.hasRemaining()) {
                break;
            }
            sendBuffer.poll();
            bufferedBytes -= next.data.length;
        }
        backpressure.shrank(bufferedBytes);
    }

    private void closeChannel() {
        state = CLOSED;
        if (writing) {
            writing = false;
            loop.removeWriter(channel);
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing releases the descriptor even when it reports an error.
        }
    }

    private static void wake(Future<Void> waiter) {
        if (waiter != null && !waiter.isDone()) {
            waiter.setResult(null);
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

    /** Where a datagram for {@code target} goes: null for a connected endpoint's remote address. */
    private SocketAddress destination(SocketAddress target) {
        if (remoteAddress != null) {
            if (target != null && !target.equals(remoteAddress)) {
                throw new IllegalArgumentException("cannot send to " + target + " from " + label
                        + ": the endpoint is connected to " + remoteAddress);
            }
            return null;
        }
        if (target == null) {
            throw new IllegalArgumentException("no address to send to from " + label + ": the endpoint is not connected");
        }
        return target;
    }

    private String sendWhat(SocketAddress target) {
        return "sendto " + (target != null ? target : remoteAddress) + " from " + label;
    }

    private static void sendNow(DatagramChannel channel, ByteBuffer datagram, SocketAddress target) throws IOException {
        if (target == null) {
            channel.write(datagram);
        } else {
            channel.send(datagram, target);
        }
    }

    /** An exception's message, or its class for one without (such as {@code PortUnreachableException}). */
    private static String describe(IOException e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    @Override
    public String toString() {
        return "DatagramEndpoint[" + label + (remoteAddress != null ? " -> " + remoteAddress : "")
                + ", " + received.size() + " queued"
                + (bufferedBytes > 0 ? ", " + bufferedBytes + " bytes buffered" : "")
                + (state == CLOSING ? ", closing" : state == CLOSED ? ", closed" : "") + "]";
    }
}
