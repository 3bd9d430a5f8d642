package io.loopdiag.bench.network;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.io.PrintStream;

/**
 * {@code netty-http [--port N] [--workers W] [--blockhound off|log|throw]}: the Netty peer of
 * loop-core's {@code http-server}, the idiomatic way: {@link HttpServerCodec} parses requests and encodes a {@link FullHttpResponse} per request.
 * The answer is byte for byte the one loop-core sends; {@code Connection: close} closes after it.
 */
final class NettyHttpServer {
    static final String NAME = "http-server";

    // Header names in the exact case of the shared answer (HttpHeaderNames' constants are lower case).
    private static final AsciiString CONTENT_TYPE = AsciiString.cached("Content-Type");
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("Content-Length");
    private static final AsciiString CONNECTION = AsciiString.cached("Connection");
    private static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain");
    private static final AsciiString KEEP_ALIVE = AsciiString.cached("keep-alive");
    private static final byte[] BODY = "Hello, World!".getBytes(US_ASCII);
    private static final AsciiString BODY_LENGTH = AsciiString.cached(Integer.toString(BODY.length));

    private NettyHttpServer() {
    }

    static int run(Options options, PrintStream out, PrintStream err) throws Exception {
        HelloHandler hello = new HelloHandler();
        return NettyServer.serve(NAME, options, channel -> channel.pipeline().addLast(new HttpServerCodec(), hello), out, err);
    }

    /**
     * Answers each request as the codec decodes it, without flushing; the answers of one read
     * burst are flushed together in {@code channelReadComplete}, as loop-core writes the answers of
     * one read at once. The body is a read-only view of one shared direct buffer that is never
     * released, so an answer costs no copy of it. Stateless: one instance serves every channel.
     */
    @ChannelHandler.Sharable
    static final class HelloHandler extends SimpleChannelInboundHandler<HttpObject> {
        private static final ByteBuf SHARED_BODY =
                Unpooled.unreleasableBuffer(Unpooled.directBuffer(BODY.length).writeBytes(BODY)).asReadOnly();
        // The answer's headers are constants known to be valid: no per-answer validation.
        private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
        private static final HttpHeadersFactory TRAILERS = DefaultHttpHeadersFactory.trailersFactory().withValidation(false);

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (!(msg instanceof HttpRequest request)) {
                return; // the request's content parts: nothing to answer (SimpleChannelInboundHandler releases them)
            }
            if (request.decoderResult().isFailure()) {
                ctx.close();
                return;
            }
            FullHttpResponse response = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, HttpResponseStatus.OK, SHARED_BODY.duplicate(), HEADERS, TRAILERS);
            response.headers()
                    .set(CONTENT_TYPE, TEXT_PLAIN)
                    .set(CONTENT_LENGTH, BODY_LENGTH)
                    .set(CONNECTION, KEEP_ALIVE);
            if (request.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)) {
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.write(response);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
