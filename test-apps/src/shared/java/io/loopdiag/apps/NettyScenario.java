package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
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
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What the Netty scenarios share: their first line on stderr (the Netty version they run on),
 * event loop groups with named threads, a server on 127.0.0.1, and a correct HTTP answer. Only
 * API that Netty 4.1 and 4.2 both have: the same sources build test-apps.jar on 4.2 and
 * test-apps-netty41.jar on 4.1.
 */
final class NettyScenario {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** Larger than any request the scenarios' own clients send. */
    static final int MAX_REQUEST_BYTES = 64 * 1024;

    private NettyScenario() {
    }

    /** The version of the netty-common on the class path, such as {@code 4.2.18.Final}. */
    static String nettyVersion() {
        // With a class loader given, Version does not initialise PlatformDependent, whose use of
        // sun.misc.Unsafe makes JDK 24+ print a warning under Netty 4.1: that comes after this line.
        Version common = Version.identify(NettyScenario.class.getClassLoader()).get("netty-common");
        return common == null ? "unknown" : common.artifactVersion();
    }

    /** A Netty scenario's first line, on stderr: {@code NAME: Netty VERSION}. */
    static void announce(String name) {
        System.err.println(name + ": Netty " + nettyVersion());
        System.err.flush();
    }

    /** A line on stderr after the first: {@code NAME: what}. */
    static void say(String name, String what) {
        System.err.println(name + ": " + what);
        System.err.flush();
    }

    /**
     * A group of {@code threads} NIO event loops whose threads are {@code name-1}, {@code name-2}...
     * NioEventLoopGroup is deprecated in 4.2 (for MultiThreadIoEventLoopGroup, which 4.1 lacks) but
     * works the same in both lines.
     */
    @SuppressWarnings("deprecation")
    static EventLoopGroup loops(String name, int threads) {
        AtomicInteger next = new AtomicInteger();
        // FastThreadLocalThread, as Netty's own DefaultThreadFactory makes: its FastThreadLocals are fastest there
        ThreadFactory factory = task -> new FastThreadLocalThread(task, name + "-" + next.incrementAndGet());
        return new NioEventLoopGroup(threads, factory);
    }

    /** Netty's defaults: {@code threads} loops named by DefaultThreadFactory ({@code nioEventLoopGroup-N-M}). */
    @SuppressWarnings("deprecation")
    static EventLoopGroup defaultLoops(int threads) {
        return new NioEventLoopGroup(threads);
    }

    /**
     * A server on 127.0.0.1, any free port, accepting on {@code boss} and serving each connection
     * on {@code workers} (which may be the same group), with the pipeline {@code pipeline} builds.
     */
    static Channel serve(EventLoopGroup boss, EventLoopGroup workers, Consumer<SocketChannel> pipeline)
            throws InterruptedException {
        return new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
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
