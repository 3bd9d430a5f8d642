package io.loopdiag.programs;

import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Two sleeps in tasks on a Netty event loop ({@code modes-loop-N-1}), for the agent's
 * {@code blocking} and {@code allow} options there: prints, per sleep, {@code NAME returned} or
 * {@code NAME threw CLASS: MESSAGE}, then {@code netty-modes done}.
 */
public final class NettyModes {
    private NettyModes() {
    }

    public static void main(String[] args) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("modes-loop"), NioIoHandler.newFactory());
        EventLoop loop = group.next();
        try {
            loop.submit(() -> outcome("pause", NettyModes::pause)).sync();
            loop.submit(() -> outcome("allowedPause", NettyModes::allowedPause)).sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        System.out.println("netty-modes done");
    }

    interface Sleep {
        void run() throws InterruptedException;
    }

    private static void outcome(String name, Sleep sleep) {
        try {
            sleep.run();
            System.out.println(name + " returned");
        } catch (Throwable thrown) {
            System.out.println(name + " threw " + thrown);
        }
    }

    static void pause() throws InterruptedException {
        Thread.sleep(20);
    }

    static void allowedPause() throws InterruptedException {
        Thread.sleep(20);
    }
}
