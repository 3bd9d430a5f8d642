package io.loopdiag.apps;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Netty with nothing to report: an echo server ({@code echo}) and an HTTP server ({@code codec},
 * {@code aggregator}, {@code hello}) on one boss loop and two worker loops, named by Netty's
 * defaults, under load from {@value #CONNECTIONS} echo and {@value #CONNECTIONS} HTTP connections
 * of {@value #ROUND_TRIPS} round trips each. Every write has a listener, no handler blocks or
 * spins, and every client reads all its answers before it closes, so no write meets a closed
 * channel. Fails (exit 1) if an echo or an answer is wrong. Stderr: Netty's version only.
 */
final class NettyHealthy {
    static final String NAME = "netty-healthy";
    static final String DESCRIPTION = "Netty echo and HTTP servers under load from 8 connections, 4000 round trips: nothing to report";
    static final int CONNECTIONS = 4;
    static final int ROUND_TRIPS = 500;
    private static final int MESSAGE_BYTES = 64;
    private static final String HELLO = "Hello, World!\n";

    private NettyHealthy() {
    }

    static int main(String[] args) throws Exception {
        NettyScenario.requireTransportOnly(args, NAME);
        NettyScenario.announce(NAME);
        ExecutorService clients = Executors.newThreadPerTaskExecutor(
                Thread.ofPlatform().name("client-", 1).daemon(true).factory());
        EventLoopGroup boss = NettyScenario.defaultLoops(1);
        EventLoopGroup workers = NettyScenario.defaultLoops(2);
        try {
            EchoHandler echo = new EchoHandler();
            int echoPort = NettyScenario.port(NettyScenario.serve(boss, workers,
                    channel -> channel.pipeline().addLast("echo", echo)));
            int httpPort = NettyScenario.port(NettyScenario.serve(boss, workers, channel -> channel.pipeline()
                    .addLast("codec", new HttpServerCodec())
                    .addLast("aggregator", new HttpObjectAggregator(NettyScenario.MAX_REQUEST_BYTES))
                    .addLast("hello", new HelloHandler())));
            List<CompletableFuture<Void>> load = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                int client = i;
                load.add(CompletableFuture.runAsync(() -> echoClient(echoPort, client), clients));
                load.add(CompletableFuture.runAsync(() -> httpClient(httpPort, client), clients));
            }
            CompletableFuture.allOf(load.toArray(CompletableFuture[]::new)).join(); // the first failure fails the scenario
        } finally {
            NettyScenario.shutDown(boss, workers);
            clients.shutdownNow();
        }
        return Main.done(NAME);
    }

    /** One echo connection: sends each message, reads its echo and checks every byte; then ends it cleanly. */
    private static void echoClient(int port, int client) {
        Random random = new Random(client);
        byte[] message = new byte[MESSAGE_BYTES];
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setTcpNoDelay(true);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            for (int i = 0; i < ROUND_TRIPS; i++) {
                random.nextBytes(message);
                out.write(message);
                if (!Arrays.equals(message, in.readNBytes(MESSAGE_BYTES))) {
                    throw new IllegalStateException("echo client " + client + ": message " + i + " came back different");
                }
            }
            socket.shutdownOutput();
            if (in.read() != -1) {
                throw new IllegalStateException("echo client " + client + ": the server sent more than it was sent");
            }
        } catch (IOException e) {
            throw new IllegalStateException("echo client " + client + " failed", e);
        }
    }

    /** One keep-alive HTTP connection: {@value #ROUND_TRIPS} GET /hello, each answer checked. */
    private static void httpClient(int port, int client) {
        try (HttpConnection connection = new HttpConnection(port)) {
            for (int i = 0; i < ROUND_TRIPS; i++) {
                HttpConnection.Answer answer = connection.send("GET", "/hello", null);
                if (answer.status() != HttpResponseStatus.OK.code() || !answer.body().equals(HELLO)) {
                    throw new IllegalStateException("http client " + client + ": request " + i + " was answered "
                            + answer.status() + " " + answer.body());
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("http client " + client + " failed", e);
        }
    }

    /** Writes back what it reads, flushing once per read burst; a failed write closes the connection. */
    @ChannelHandler.Sharable
    static final class EchoHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
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

    /** {@code GET /hello}: 200 with a greeting; 404 otherwise. */
    static final class HelloHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean hello = request.method().equals(HttpMethod.GET) && request.uri().equals("/hello");
            NettyScenario.answer(ctx, request, hello ? HttpResponseStatus.OK : HttpResponseStatus.NOT_FOUND,
                    hello ? HELLO : "no such page\n");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
