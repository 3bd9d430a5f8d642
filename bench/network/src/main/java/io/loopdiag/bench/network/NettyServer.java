package io.loopdiag.bench.network;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * What the two Netty peers share: the usual fast NIO setup (one boss thread accepting, a worker
 * event loop per core, {@code TCP_NODELAY} like loop-core's sockets, the pooled allocator by
 * default), bound to 127.0.0.1, printing {@code NAME listening on 127.0.0.1:PORT} once bound and
 * serving until killed.
 */
final class NettyServer {
    static final String HOST = "127.0.0.1";
    /** Like loop-core's Server: bursts of a hundred connections at once are the benchmark's normal start. */
    private static final int BACKLOG = 1024;

    private NettyServer() {
    }

    /** The options both peers take. */
    static final String[] OPTIONS = {"port", "workers", "blockhound"};

    /**
     * Binds to {@code --port} (0: any), with {@code --workers} worker event loops (default: one per
     * core), prints the listening line on {@code out}, and blocks until the server channel closes
     * (never, unless killed). {@code --blockhound log|throw} installs BlockHound first and proves
     * it sees the workers' calls ({@link BlockHoundSupport}); its lines go to {@code err}.
     */
    static int serve(String name, Options options, Consumer<SocketChannel> pipeline, PrintStream out, PrintStream err)
            throws Exception {
        int port = options.integer("port", 0, 0, 65535);
        int workerThreads = options.integer("workers", Runtime.getRuntime().availableProcessors(), 1, 1024);
        BlockHoundSupport.Mode blockHound = BlockHoundSupport.mode(options.string("blockhound", "off"));
        BlockHoundSupport.install(blockHound, err);
        EventLoopGroup boss = new NioEventLoopGroup(1);
        EventLoopGroup workers = new NioEventLoopGroup(workerThreads);
        try {
            BlockHoundSupport.prove(blockHound, workers, err);
            Channel server = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, BACKLOG)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel channel) {
                            pipeline.accept(channel);
                        }
                    })
                    .bind(HOST, port).sync().channel();
            out.println(name + " listening on " + HOST + ":" + ((InetSocketAddress) server.localAddress()).getPort());
            out.flush();
            server.closeFuture().sync();
            return Main.EXIT_OK;
        } finally {
            boss.shutdownGracefully();
            workers.shutdownGracefully();
        }
    }
}
