package example;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** An HTTP server on Netty that answers {@code GET /rate/CURRENCY} with the currency's rate in percent. */
public final class RateServer implements AutoCloseable {
    private final EventLoopGroup loop;
    private final Channel channel;

    private RateServer(EventLoopGroup loop, Channel channel) {
        this.loop = loop;
        this.channel = channel;
    }

    /** Starts the server on 127.0.0.1, any free port, with one event loop. */
    @SuppressWarnings("deprecation") // NioEventLoopGroup: deprecated in Netty 4.2, the way in 4.1
    public static RateServer start() throws InterruptedException {
        EventLoopGroup loop = new NioEventLoopGroup(1);
        Channel channel = new ServerBootstrap()
                .group(loop)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast("codec", new HttpServerCodec())
                                .addLast("aggregator", new HttpObjectAggregator(8192))
                                .addLast("rates", new RateHandler());
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
        return new RateServer(loop, channel);
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        loop.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** {@code GET /rate/CURRENCY}: looks the rate up and answers it; 404 for anything else. */
    static final class RateHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) throws Exception {
            // read now: the request is released when this method returns
            HttpVersion version = request.protocolVersion();
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (request.uri().startsWith("/rate/")) {
                fetchRate(ctx, version, keepAlive, request.uri().substring("/rate/".length()));
            } else {
                answer(ctx, version, keepAlive, HttpResponseStatus.NOT_FOUND, "no such page");
            }
        }

        /** The lookup takes 20 ms, as a remote rate service would; then the answer is written. */
        private static void fetchRate(ChannelHandlerContext ctx, HttpVersion version, boolean keepAlive, String currency)
                throws InterruptedException {
            String rate = currency.equals("GBP") ? "127" : "91";
            if (Boolean.getBoolean("example.block")) {
                Thread.sleep(20); // the bug: a blocking call, as an old HTTP client makes, stops the event loop
                answer(ctx, version, keepAlive, HttpResponseStatus.OK, rate);
            } else {
                // a timer: the loop serves other channels meanwhile
                ctx.executor().schedule(() -> answer(ctx, version, keepAlive, HttpResponseStatus.OK, rate), 20, TimeUnit.MILLISECONDS);
            }
        }

        private static void answer(ChannelHandlerContext ctx, HttpVersion version, boolean keepAlive,
                HttpResponseStatus status, String body) {
            FullHttpResponse response = new DefaultFullHttpResponse(version, status, Unpooled.copiedBuffer(body, UTF_8));
            HttpUtil.setContentLength(response, response.content().readableBytes());
            HttpUtil.setKeepAlive(response, keepAlive);
            ctx.writeAndFlush(response).addListener(keepAlive ? ChannelFutureListener.CLOSE_ON_FAILURE : ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
