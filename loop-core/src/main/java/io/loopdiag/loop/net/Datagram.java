package io.loopdiag.loop.net;

import java.net.SocketAddress;
import java.util.Arrays;

/**
 * One datagram a {@link DatagramEndpoint} received: its bytes, which are the receiver's to keep,
 * and the address it came from. Two datagrams are equal when their bytes and senders are.
 */
public record Datagram(byte[] data, SocketAddress sender) {
    @Override
    public boolean equals(Object other) {
        return other instanceof Datagram that && Arrays.equals(data, that.data) && sender.equals(that.sender);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(data) + sender.hashCode();
    }

    @Override
    public String toString() {
        return "Datagram[" + data.length + " bytes from " + sender + "]";
    }
}
