package io.loopdiag.loop;

/**
 * What a task waiting for I/O waits on, as dumps show it ({@link Future}'s await subject): the
 * direction ({@code read}, {@code write}, {@code accept}, {@code connect}, {@code handshake} (TLS),
 * {@code drain}, {@code close}; {@code recvfrom} and {@code sendto} for a datagram endpoint's
 * receive and drain) and the channel, by its peer's address (or its own, for a server or a
 * datagram endpoint; the socket file's path for a Unix domain socket).
 */
public record IoWait(String direction, String channel) {
    /** {@code read /127.0.0.1:8080}: how a dump's description says it. */
    @Override
    public String toString() {
        return direction + " " + channel;
    }

    /** A pending future on {@code loop} whose awaiters wait for this I/O. */
    public <T> Future<T> future(EventLoop loop) {
        return new Future<>(loop, io.loopdiag.protocol.AwaitKinds.IO, toString(), this);
    }
}
