package io.loopdiag.loop.net;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;

/**
 * asyncio's {@code loop.create_datagram_endpoint}: {@link #open} makes a {@link DatagramEndpoint},
 * a UDP socket bound to a local address, connected to a remote one, or both, whose datagrams flow
 * on the loop. Opening never suspends (a UDP connect has no handshake), so it may be called on the
 * loop's thread or in a task, and on a given loop before it runs.
 */
public final class Datagrams {
    private Datagrams() {
    }

    /**
     * How an endpoint is opened; {@link #DEFAULTS} and the {@code with*} methods make one.
     *
     * @param allowBroadcast asyncio's {@code allow_broadcast}: {@code SO_BROADCAST}, so that datagrams
     *                       may be sent to a broadcast address
     * @param reusePort      asyncio's {@code reuse_port}: {@code SO_REUSEPORT}, so that several sockets
     *                       may bind the same address and the kernel spreads datagrams among them;
     *                       {@link UnsupportedOperationException} where the platform has no such option
     * @param queueLimit     how many received datagrams (and errors) wait for {@link DatagramEndpoint#receive}
     *                       at most; past it, arriving datagrams are dropped and counted
     */
    public record Options(boolean allowBroadcast, boolean reusePort, int queueLimit) {
        /** The default {@link #queueLimit}: a burst of this many datagrams waits for a busy receiver. */
        public static final int DEFAULT_QUEUE_LIMIT = 1024;
        /** Neither option set, the default queue limit. */
        public static final Options DEFAULTS = new Options(false, false, DEFAULT_QUEUE_LIMIT);

        public Options {
            if (queueLimit <= 0) {
                throw new IllegalArgumentException("queueLimit must be positive: " + queueLimit);
            }
        }

        public Options withAllowBroadcast(boolean allow) {
            return new Options(allow, reusePort, queueLimit);
        }

        public Options withReusePort(boolean reuse) {
            return new Options(allowBroadcast, reuse, queueLimit);
        }

        public Options withQueueLimit(int limit) {
            return new Options(allowBroadcast, reusePort, limit);
        }
    }

    /** {@link #open(EventLoop, SocketAddress, SocketAddress, Options)} on the running loop, with the default options. */
    public static DatagramEndpoint open(SocketAddress localAddress, SocketAddress remoteAddress) throws IOException {
        return open(Async.loop(), localAddress, remoteAddress, Options.DEFAULTS);
    }

    /** {@link #open(EventLoop, SocketAddress, SocketAddress, Options)} on the running loop. */
    public static DatagramEndpoint open(SocketAddress localAddress, SocketAddress remoteAddress, Options options)
            throws IOException {
        return open(Async.loop(), localAddress, remoteAddress, options);
    }

    /**
     * Opens a UDP endpoint on {@code loop}, receiving at once. {@code localAddress} (null: any
     * free port on every interface) is bound; {@code remoteAddress}, if not null, is connected: the
     * endpoint then sends only there and receives only from there, and the kernel reports an ICMP
     * port unreachable from it as an error to {@link DatagramEndpoint#receive}. Both null: bound to
     * any free port. The addresses must be resolved IP addresses; the socket is IPv4 when all
     * given are IPv4, IPv6 when all are IPv6, the JDK's default (dual-stack where available) otherwise.
     */
    public static DatagramEndpoint open(EventLoop loop, SocketAddress localAddress, SocketAddress remoteAddress,
                                        Options options) throws IOException {
        ProtocolFamily family = familyOf(localAddress, remoteAddress);
        DatagramChannel channel = family != null ? DatagramChannel.open(family) : DatagramChannel.open();
        try {
            channel.configureBlocking(false);
            if (options.allowBroadcast()) {
                channel.setOption(StandardSocketOptions.SO_BROADCAST, true);
            }
            if (options.reusePort()) {
                channel.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            }
            if (localAddress != null || remoteAddress == null) {
                channel.bind(localAddress);
            }
            if (remoteAddress != null) {
                try {
                    channel.connect(remoteAddress);
                } catch (IOException e) {
                    throw new IOException("connect to " + remoteAddress + " failed: " + e.getMessage(), e);
                }
            }
            return new DatagramEndpoint(loop, channel, options.queueLimit());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** IPv4 if every address given is, IPv6 if every one is, else null (the JDK's default socket). */
    private static ProtocolFamily familyOf(SocketAddress... addresses) {
        boolean anyV4 = false;
        boolean anyV6 = false;
        for (SocketAddress address : addresses) {
            if (address == null) {
                continue;
            }
            if (!(address instanceof InetSocketAddress inet)) {
                throw new IllegalArgumentException("not an IP socket address: " + address
                        + " (the JDK has no Unix domain datagram channels)");
            }
            if (inet.isUnresolved()) {
                throw new IllegalArgumentException("unresolved address: " + address);
            }
            anyV4 |= inet.getAddress() instanceof Inet4Address;
            anyV6 |= inet.getAddress() instanceof Inet6Address;
        }
        if (anyV4 == anyV6) {
            return null; // none given, or a mix (such as the IPv6 wildcard and an IPv4 peer)
        }
        return anyV4 ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6;
    }
}
