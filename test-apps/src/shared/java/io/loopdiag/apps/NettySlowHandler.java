package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP server on Netty ({@code codec}, {@code aggregator}, {@code risk}) whose {@code risk}
 * handler spends {@value #BURN_MILLIS} ms of CPU on the event loop for each {@code POST /risk}: a
 * busy loop, no blocking call. Its own client sends {@value #REQUESTS} of them, one after another on
 * one connection. Stderr: Netty's version only.
 */
final class NettySlowHandler {
    static final String NAME = "netty-slow-handler";
    static final String DESCRIPTION = "Netty HTTP server whose handler burns 300 ms of CPU on the loop per request, 3 requests";
    /** The one event loop's thread is {@code netty-slow-handler-loop-1}. */
    static final String LOOP = NAME + "-loop";
    static final long BURN_MILLIS = 300;
    static final int REQUESTS = 3;

    private NettySlowHandler() {
    }

    static int main(String[] args) throws Exception {
        NettyScenario.requireTransportOnly(args, NAME);
        NettyScenario.announce(NAME);
        EventLoopGroup loop = NettyScenario.loops(LOOP, 1);
        try {
            int port = NettyScenario.port(NettyScenario.serve(loop, loop, channel -> channel.pipeline()
                    .addLast("codec", new HttpServerCodec())
                    .addLast("aggregator", new HttpObjectAggregator(NettyScenario.MAX_REQUEST_BYTES))
                    .addLast("risk", new RiskHandler())));
            try (HttpConnection connection = new HttpConnection(port)) {
                for (int i = 0; i < REQUESTS; i++) {
                    HttpConnection.Answer answer = connection.send("POST", "/risk", "portfolio-" + i);
                    if (answer.status() != HttpResponseStatus.OK.code()) {
                        throw new IllegalStateException("POST /risk was answered " + answer.status() + " " + answer.body());
                    }
                }
            }
        } finally {
            NettyScenario.shutDown(loop);
        }
        return Main.done(NAME);
    }

    /** {@code POST /risk}: scores the portfolio in the body and answers 200 with the score; 404 otherwise. */
    static final class RiskHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            if (!request.method().equals(HttpMethod.POST) || !request.uri().equals("/risk")) {
                NettyScenario.answer(ctx, request, HttpResponseStatus.NOT_FOUND, "no such page\n");
                return;
            }
            long score = scoreRisk(request.content().toString(UTF_8));
            NettyScenario.answer(ctx, request, HttpResponseStatus.OK, "risk " + Long.toHexString(score) + "\n");
        }

        /** The bug: {@value #BURN_MILLIS} ms of CPU on the event loop, which should run on a worker. */
        private static long scoreRisk(String portfolio) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BURN_MILLIS);
            long score = portfolio.hashCode();
            while (System.nanoTime() < end) {
                score = score * 31 + 17;
            }
            return score;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
