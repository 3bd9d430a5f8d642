package io.loopdiag.bench.network;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.PrintStream;

/** {@code netty-echo [--port N] [--workers W] [--blockhound off|log|throw]}: the Netty peer of loop-core's {@code echo-server}. */
final class NettyEchoServer {
    static final String NAME = "echo-server";

    private NettyEchoServer() {
    }

    static int run(Options options, PrintStream out, PrintStream err) throws Exception {
        EchoHandler handler = new EchoHandler();
        return NettyServer.serve(NAME, options, channel -> channel.pipeline().addLast(handler), out, err);
    }

    /**
     * Writes each received buffer back as it is (its ownership passes to the write, which releases
     * it), and flushes once per read burst rather than per buffer: the writes of one
     * {@code channelRead} burst leave in one syscall. Stateless, so one instance serves every channel.
     */
    @ChannelHandler.Sharable
    static final class EchoHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a reset by the load client at the end of a run is normal: nothing to report
        }
    }
}
