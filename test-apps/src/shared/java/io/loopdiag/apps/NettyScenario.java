package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.Version;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What the Netty scenarios share: their first line on stderr (the Netty version and transport they
 * run on), event loop groups with named threads on NIO or, with {@code --transport epoll}, on
 * Linux's native epoll, a server on 127.0.0.1, and a correct HTTP answer. Only API that Netty 4.1
 * and 4.2 both have: the same sources build test-apps.jar on 4.2 and test-apps-netty41.jar on 4.1.
 */
final class NettyScenario {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** Larger than any request the scenarios' own clients send. */
    static final int MAX_REQUEST_BYTES = 64 * 1024;
    /** The option every Netty scenario takes, and its usage. */
    static final String TRANSPORT_OPTION = "--transport";
    static final String TRANSPORT_USAGE = "[--transport nio|epoll]";

    /** The event loops' I/O: the JDK's selector, or Netty's native epoll (netty-transport-native-epoll). */
    enum Transport { NIO, EPOLL }

    /** The transport of this JVM's scenario, set by {@link #transportFrom} before its loops start. */
    private static Transport transport = Transport.NIO;

    private NettyScenario() {
    }

    /**
     * Takes {@code --transport nio|epoll} out of {@code args} (NIO without it) and returns the rest.
     * Epoll where the native transport cannot load (not Linux, no native library) is a usage error.
     */
    static String[] transportFrom(String[] args) {
        int at = Arrays.asList(args).indexOf(TRANSPORT_OPTION);
        transport = Transport.NIO;
        if (at < 0) {
            return args;
        }
        String value = at + 1 < args.length ? args[at + 1] : "";
        transport = switch (value) {
            case "nio" -> Transport.NIO;
            case "epoll" -> Transport.EPOLL;
            default -> throw new IllegalArgumentException(TRANSPORT_OPTION + " needs nio or epoll, got "
                    + (value.isEmpty() ? "nothing" : "'" + value + "'"));
        };
        if (transport == Transport.EPOLL && !Epoll.isAvailable()) {
            throw new IllegalArgumentException("the epoll transport is not available here: " + Epoll.unavailabilityCause());
        }
        String[] rest = new String[args.length - 2];
        System.arraycopy(args, 0, rest, 0, at);
        System.arraycopy(args, at + 2, rest, at, args.length - at - 2);
        return rest;
    }

    /** For scenarios whose only argument is {@code [--transport nio|epoll]}: sets the transport, or throws (exit 2). */
    static void requireTransportOnly(String[] args, String name) {
        String[] rest = transportFrom(args);
        if (rest.length > 0) {
            throw new IllegalArgumentException("unknown argument '" + rest[0] + "' (usage: " + name + " " + TRANSPORT_USAGE + ")");
        }
    }

    /** The version of the netty-common on the class path, such as {@code 4.2.18.Final}. */
    static String nettyVersion() {
        // With a class loader given, Version does not initialise PlatformDependent, whose use of
        // sun.misc.Unsafe makes JDK 24+ print a warning under Netty 4.1: that comes after this line.
        Version common = Version.identify(NettyScenario.class.getClassLoader()).get("netty-common");
        return common == null ? "unknown" : common.artifactVersion();
    }

    /** A Netty scenario's first line, on stderr: {@code NAME: Netty VERSION}, and {@code on epoll} with that transport. */
    static void announce(String name) {
        System.err.println(name + ": Netty " + nettyVersion() + (transport == Transport.EPOLL ? " on epoll" : ""));
        System.err.flush();
    }

    /** A line on stderr after the first: {@code NAME: what}. */
    static void say(String name, String what) {
        System.err.println(name + ": " + what);
        System.err.flush();
    }

    /**
     * A group of {@code threads} event loops of the transport whose threads are {@code name-1},
     * {@code name-2}... NioEventLoopGroup and EpollEventLoopGroup are deprecated in 4.2 (for
     * MultiThreadIoEventLoopGroup, which 4.1 lacks) but work the same in both lines.
     */
    @SuppressWarnings("deprecation")
    static EventLoopGroup loops(String name, int threads) {
        AtomicInteger next = new AtomicInteger();
        // FastThreadLocalThread, as Netty's own DefaultThreadFactory makes: its FastThreadLocals are fastest there
        ThreadFactory factory = task -> new FastThreadLocalThread(task, name + "-" + next.incrementAndGet());
        return transport == Transport.EPOLL ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
    }

    /** Netty's defaults: {@code threads} loops named by DefaultThreadFactory ({@code nioEventLoopGroup-N-M}, {@code epollEventLoopGroup-N-M}). */
    @SuppressWarnings("deprecation")
    static EventLoopGroup defaultLoops(int threads) {
        return transport == Transport.EPOLL ? new EpollEventLoopGroup(threads) : new NioEventLoopGroup(threads);
    }

    /**
     * A server on 127.0.0.1, any free port, accepting on {@code boss} and serving each connection
     * on {@code workers} (which may be the same group), with the pipeline {@code pipeline} builds.
     */
    static Channel serve(EventLoopGroup boss, EventLoopGroup workers, Consumer<SocketChannel> pipeline)
            throws InterruptedException {
        Class<? extends ServerChannel> type = transport == Transport.EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        return new ServerBootstrap()
                .group(boss, workers)
                .channel(type)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        pipeline.accept(channel);
                    }
                })
                .bind(LOOPBACK, 0).sync().channel();
    }

    static int port(Channel server) {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Shuts the groups down at once (no quiet period) and waits until their threads have ended. */
    static void shutDown(EventLoopGroup... groups) {
        for (EventLoopGroup group : groups) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS);
        }
        for (EventLoopGroup group : groups) {
            group.terminationFuture().syncUninterruptibly();
        }
    }

    /**
     * Answers {@code request} with {@code status} and a text body, keeping the connection open if the
     * request asks for it and closing it otherwise; a failed write closes the connection. The way a
     * handler should write: the write's future has a listener.
     */
    static void answer(ChannelHandlerContext ctx, FullHttpRequest request, HttpResponseStatus status, String body) {
        FullHttpResponse response = new DefaultFullHttpResponse(request.protocolVersion(), status,
                Unpooled.copiedBuffer(body, UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN);
        HttpUtil.setContentLength(response, response.content().readableBytes());
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keepAlive);
        ctx.writeAndFlush(response).addListener(keepAlive ? ChannelFutureListener.CLOSE_ON_FAILURE : ChannelFutureListener.CLOSE);
    }
}
