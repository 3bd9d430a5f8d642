package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A silent write failure: a price feed on Netty ({@code lines}, {@code text}, {@code feed}) keeps
 * its subscribers' channels after they close, and its {@code feed} handler publishes each update
 * with {@code writeAndFlush}, with no listener, never looking at the returned future. Its own
 * clients: a subscriber that subscribes and leaves, then a publisher that sends
 * {@value #UPDATES} updates, each written to the closed channel, each write failing with nobody
 * told.
 *
 * <p>The first failed future becomes garbage when the second replaces it in
 * {@code FeedHandler.lastDelivery}, which keeps the second one reachable until exit. The scenario
 * then runs the collector twice before the loop shuts down, so that a detector that reports
 * collected failed futures sees the first. Stderr: Netty's version, then one line on what was
 * written.
 */
final class NettyLostWrite {
    static final String NAME = "netty-lost-write";
    static final String DESCRIPTION = "Netty feed that writes to a closed channel and never looks at the write's future";
    /** The one event loop's thread is {@code netty-lost-write-loop-1}. */
    static final String LOOP = NAME + "-loop";
    static final int UPDATES = 2;
    private static final int MAX_LINE_BYTES = 1024;
    private static final long COLLECTION_PAUSE_MILLIS = 100;

    private NettyLostWrite() {
    }

    static int main(String[] args) throws Exception {
        NettyScenario.requireTransportOnly(args, NAME);
        NettyScenario.announce(NAME);
        EventLoopGroup loop = NettyScenario.loops(LOOP, 1);
        try {
            FeedHandler feed = new FeedHandler();
            int port = NettyScenario.port(NettyScenario.serve(loop, loop, channel -> channel.pipeline()
                    .addLast("lines", new LineBasedFrameDecoder(MAX_LINE_BYTES))
                    .addLast("text", new StringDecoder(UTF_8))
                    .addLast("feed", feed)));
            subscribeAndLeave(port);
            Channel gone = feed.subscribers.get(0);
            if (!gone.closeFuture().await(5_000) || gone.isOpen()) {
                throw new IllegalStateException("the subscriber's channel is still open on the server");
            }
            publish(port);
            NettyScenario.say(NAME, UPDATES + " updates written to a subscriber's closed channel; nothing looked at the writes");
            collectGarbage();
        } finally {
            NettyScenario.shutDown(loop);
        }
        return Main.done(NAME);
    }

    /** A subscriber: subscribes, reads the server's OK, and closes its connection. */
    private static void subscribeAndLeave(int port) throws IOException {
        try (LineClient subscriber = new LineClient(port)) {
            subscriber.expect("SUBSCRIBE", "OK subscribed");
        }
    }

    /** The publisher: sends each update and reads the server's OK. */
    private static void publish(int port) throws IOException {
        try (LineClient publisher = new LineClient(port)) {
            for (int i = 0; i < UPDATES; i++) {
                publisher.expect("PUBLISH EUR/USD 1.084" + i, "OK published");
            }
        }
    }

    /** Two collections, with a pause after each for reference processing (a Cleaner's thread, say). */
    private static void collectGarbage() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            System.gc();
            Thread.sleep(COLLECTION_PAUSE_MILLIS);
        }
    }

    /** A client of the feed, on a plain blocking socket: one command line, one answer line. */
    private static final class LineClient implements Closeable {
        private final Socket socket;
        private final BufferedReader in;

        LineClient(int port) throws IOException {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), UTF_8));
        }

        /** Sends {@code command} and fails unless the answer is {@code wanted}. */
        void expect(String command, String wanted) throws IOException {
            OutputStream out = socket.getOutputStream();
            out.write((command + "\n").getBytes(UTF_8));
            out.flush();
            String answer = in.readLine();
            if (!wanted.equals(answer)) {
                throw new IllegalStateException("the feed answered " + command + " with '" + answer + "', not '" + wanted + "'");
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /**
     * {@code SUBSCRIBE} adds the channel to the subscribers, {@code PUBLISH TEXT} sends TEXT to every
     * subscriber; each is answered with an OK line. One instance serves every channel, on the one loop.
     */
    @ChannelHandler.Sharable
    static final class FeedHandler extends SimpleChannelInboundHandler<String> {
        /** Never pruned: a subscriber that left stays here. Read by main too, hence thread-safe. */
        final List<Channel> subscribers = new CopyOnWriteArrayList<>();
        /** Written and never read: it keeps the last delivery's future, failed or not, reachable until exit. */
        private ChannelFuture lastDelivery;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, String line) {
            if (line.equals("SUBSCRIBE")) {
                subscribers.add(ctx.channel());
                reply(ctx, "OK subscribed");
            } else if (line.startsWith("PUBLISH ")) {
                publish(line.substring("PUBLISH ".length()));
                reply(ctx, "OK published");
            } else {
                reply(ctx, "ERROR unknown command");
            }
        }

        /** The bug: a write to a closed channel fails, and nothing here looks at the future that says so. */
        private void publish(String update) {
            for (Channel subscriber : subscribers) {
                lastDelivery = subscriber.writeAndFlush(Unpooled.copiedBuffer(update + "\n", UTF_8));
            }
        }

        /** The way to write: a failed reply closes the connection. */
        private static void reply(ChannelHandlerContext ctx, String line) {
            ctx.writeAndFlush(Unpooled.copiedBuffer(line + "\n", UTF_8)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
