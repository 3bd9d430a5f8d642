package io.loopdiag.bench;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One HTTP/1.1 keep-alive request through Netty's {@link HttpServerCodec} and a hello handler that
 * writes a {@link FullHttpResponse} and flushes at the read's end, as {@code netty-http} of
 * {@code bench/network} does, in an {@link EmbeddedChannel} on the benchmark's thread: a request's
 * pipeline work without the sockets and the scheduling that make the whole-server figures vary.
 * With the agent it prices what the agent adds to a request's pipeline (the advice on the write
 * promise's completion and on the promise methods Netty calls); {@code CallbackChain.netty} prices
 * what it adds to a unit of work. Score: ns per request.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class NettyRequest {
    private static final byte[] REQUEST = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(US_ASCII);
    private static final byte[] BODY = "Hello, World!".getBytes(US_ASCII);

    private EmbeddedChannel channel;

    @Setup
    public void setUp() {
        channel = new EmbeddedChannel(new HttpServerCodec(), new Hello());
        if (netty() == 0) {
            throw new IllegalStateException("the hello handler did not answer");
        }
    }

    @TearDown
    public void tearDown() {
        channel.finishAndReleaseAll();
    }

    /** One request in, its answer's bytes out; returns their count. */
    @Benchmark
    public int netty() {
        channel.writeInbound(Unpooled.wrappedBuffer(REQUEST));
        int bytes = 0;
        for (Object out; (out = channel.readOutbound()) != null; ) {
            ByteBuf buf = (ByteBuf) out;
            bytes += buf.readableBytes();
            buf.release();
        }
        return bytes;
    }

    private static final class Hello extends SimpleChannelInboundHandler<HttpObject> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (msg instanceof HttpRequest) {
                FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(BODY));
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain").setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.length);
                ctx.write(response);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }
}
