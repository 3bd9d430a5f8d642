package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code netty-stuck [--hold SECONDS]}: "every request waits, CPU idle". An HTTP server on Netty
 * ({@code codec}, {@code aggregator}, {@code orders}, {@code health}) whose {@code orders} handler
 * prices each order with a synchronous HttpURLConnection call to a backend, on the event loop. The
 * backend, a plain thread, answers after {@code --hold} seconds (1.5 by default). The server has
 * one event loop, so the {@value #HEALTH_CHECKS} {@code GET /health} sent meanwhile, each on a
 * connection of its own, wait for it.
 *
 * <p>Stderr: Netty's version; {@code netty-stuck: the loop is in the backend call for MS ms} once
 * the backend has the call (a cue for a live dump); then how long each health check waited. Exits
 * 1 if a health check did not wait at least half the hold.
 */
final class NettyStuck {
    static final String NAME = "netty-stuck";
    static final String DESCRIPTION = "Netty HTTP server whose order handler calls a slow backend on the loop; health checks wait (--hold S)";
    /** The one event loop's thread is {@code netty-stuck-loop-1}. */
    static final String LOOP = NAME + "-loop";
    static final int HEALTH_CHECKS = 3;
    private static final long DEFAULT_HOLD_MILLIS = 1500;

    private NettyStuck() {
    }

    static int main(String[] args) throws Exception {
        long holdMillis = holdMillis(NettyScenario.transportFrom(args));
        NettyScenario.announce(NAME);
        ExecutorService clients = Executors.newThreadPerTaskExecutor(
                Thread.ofPlatform().name("client-", 1).daemon(true).factory());
        EventLoopGroup loop = NettyScenario.loops(LOOP, 1);
        try (PriceBackend backend = PriceBackend.start(holdMillis)) {
            int port = NettyScenario.port(NettyScenario.serve(loop, loop, channel -> channel.pipeline()
                    .addLast("codec", new HttpServerCodec())
                    .addLast("aggregator", new HttpObjectAggregator(NettyScenario.MAX_REQUEST_BYTES))
                    .addLast("orders", new OrderHandler(backend.url()))
                    .addLast("health", new HealthHandler())));
            placeAnOrderAndCheckHealthMeanwhile(port, backend, holdMillis, clients);
        } finally {
            NettyScenario.shutDown(loop);
            clients.shutdownNow();
        }
        return Main.done(NAME);
    }

    /** {@code --hold SECONDS}, a decimal number above 0 and at most 3600; the default without it. */
    private static long holdMillis(String[] args) {
        if (args.length == 0) {
            return DEFAULT_HOLD_MILLIS;
        }
        if (!args[0].equals("--hold") || args.length > 2) {
            String unknown = args[0].equals("--hold") ? args[2] : args[0];
            throw new IllegalArgumentException("unknown argument '" + unknown + "' (usage: " + NAME + " [--hold SECONDS] " + NettyScenario.TRANSPORT_USAGE + ")");
        }
        String value = args.length == 2 ? args[1] : null;
        long millis = value != null && value.matches("\\d{1,4}(\\.\\d{1,3})?") ? Math.round(Double.parseDouble(value) * 1000) : -1;
        if (millis <= 0 || millis > 3_600_000) {
            throw new IllegalArgumentException("--hold needs a number of seconds above 0 and at most 3600, got "
                    + (value == null ? "nothing" : "'" + value + "'"));
        }
        return millis;
    }

    private static void placeAnOrderAndCheckHealthMeanwhile(int port, PriceBackend backend, long holdMillis,
            ExecutorService clients) throws Exception {
        CompletableFuture<HttpConnection.Answer> order = CompletableFuture.supplyAsync(() -> call(port, "POST", "/orders", "sku=4711"), clients);
        backend.awaitCall();
        NettyScenario.say(NAME, "the loop is in the backend call for " + holdMillis + " ms");
        List<CompletableFuture<Long>> checks = new ArrayList<>();
        for (int i = 0; i < HEALTH_CHECKS; i++) {
            checks.add(CompletableFuture.supplyAsync(() -> timedHealthCheck(port), clients));
        }
        List<Long> waits = checks.stream().map(CompletableFuture::join).toList();
        HttpConnection.Answer placed = order.join();
        if (placed.status() != HttpResponseStatus.CREATED.code()) {
            throw new IllegalStateException("POST /orders was answered " + placed.status() + " " + placed.body());
        }
        NettyScenario.say(NAME, HEALTH_CHECKS + " GET /health on other connections waited "
                + waits.stream().map(String::valueOf).collect(Collectors.joining(", ")) + " ms for the loop");
        if (waits.stream().anyMatch(millis -> millis < holdMillis / 2)) {
            throw new IllegalStateException("a health check was answered in less than half the hold: the loop was not held");
        }
    }

    /** One health check on a new connection: the milliseconds from sending it to its answer. */
    private static long timedHealthCheck(int port) {
        long start = System.nanoTime();
        HttpConnection.Answer answer = call(port, "GET", "/health", null);
        if (answer.status() != HttpResponseStatus.OK.code()) {
            throw new IllegalStateException("GET /health was answered " + answer.status());
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static HttpConnection.Answer call(int port, String method, String path, String body) {
        try (HttpConnection connection = new HttpConnection(port)) {
            return connection.send(method, path, body);
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + " failed", e);
        }
    }

    /**
     * {@code POST /orders}: prices the order with the backend and answers 201. Every other request
     * goes on to the next handler. One instance per connection.
     */
    static final class OrderHandler extends ChannelInboundHandlerAdapter {
        private final String backendUrl;

        OrderHandler(String backendUrl) {
            this.backendUrl = backendUrl;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws IOException {
            if (!(msg instanceof FullHttpRequest request) || !request.method().equals(HttpMethod.POST)
                    || !request.uri().equals("/orders")) {
                ctx.fireChannelRead(msg);
                return;
            }
            try {
                String price = fetchPrice(request.content().toString(UTF_8));
                NettyScenario.answer(ctx, request, HttpResponseStatus.CREATED, "order placed at " + price + "\n");
            } finally {
                request.release();
            }
        }

        /** The bug: a blocking HTTP call on the event loop; every channel of the loop waits for the backend. */
        private String fetchPrice(String order) throws IOException {
            HttpURLConnection backend = (HttpURLConnection) URI.create(backendUrl + "?" + order).toURL().openConnection();
            try (InputStream answer = backend.getInputStream()) { // connects, sends, and waits for the answer
                return new String(answer.readAllBytes(), US_ASCII);
            } finally {
                backend.disconnect();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Answers {@code GET /health} with 200, anything else with 404. */
    static final class HealthHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean health = request.method().equals(HttpMethod.GET) && request.uri().equals("/health");
            NettyScenario.answer(ctx, request, health ? HttpResponseStatus.OK : HttpResponseStatus.NOT_FOUND,
                    health ? "ok\n" : "no such page\n");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /**
     * The slow backend: a server on a platform thread, {@code price-backend}, that reads each
     * request's head, waits the hold and answers with a price, one connection after another.
     */
    static final class PriceBackend implements Closeable {
        private static final byte[] ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
                + "Connection: close\r\n\r\n42.50").getBytes(US_ASCII);
        private final ServerSocket server;
        private final long holdMillis;
        private final CountDownLatch called = new CountDownLatch(1);

        private PriceBackend(ServerSocket server, long holdMillis) {
            this.server = server;
            this.holdMillis = holdMillis;
        }

        static PriceBackend start(long holdMillis) throws IOException {
            PriceBackend backend = new PriceBackend(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), holdMillis);
            Thread.ofPlatform().name("price-backend").daemon(true).start(backend::serve);
            return backend;
        }

        String url() {
            InetSocketAddress address = (InetSocketAddress) server.getLocalSocketAddress();
            return "http://" + address.getAddress().getHostAddress() + ":" + address.getPort() + "/price";
        }

        /** Returns once the backend has read a request, so the loop is waiting for its answer. */
        void awaitCall() throws InterruptedException {
            if (!called.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the order never reached the backend");
            }
        }

        private void serve() {
            while (true) {
                try (Socket connection = server.accept()) {
                    readHead(connection.getInputStream());
                    called.countDown();
                    Thread.sleep(holdMillis);
                    connection.getOutputStream().write(ANSWER);
                } catch (SocketException e) {
                    if (server.isClosed()) {
                        return; // the scenario is done with us
                    }
                    throw new IllegalStateException("the price backend failed", e);
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException("the price backend failed", e);
                }
            }
        }

        /** Reads up to the empty line that ends a request's head (the backend's requests have no body). */
        private static void readHead(InputStream in) throws IOException {
            int matched = 0; // how much of CR LF CR LF was just read
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("the request ended inside its head");
                }
                matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
