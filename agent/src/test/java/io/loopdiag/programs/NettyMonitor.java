package io.loopdiag.programs;

import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A task on a Netty event loop ({@code monitor-loop-N-1}, a platform thread) that waits to enter
 * a {@code synchronized} block whose monitor {@code price-refresher} holds for 200 ms once it sees
 * the loop wait; prints {@code netty-monitor done}.
 */
public final class NettyMonitor {
    /** The contended object: its class names it in the finding. */
    static final class PriceTable {
        int version;
    }

    private NettyMonitor() {
    }

    public static void main(String[] args) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("monitor-loop"), NioIoHandler.newFactory());
        EventLoop loop = group.next();
        try {
            PriceTable table = new PriceTable();
            AtomicBoolean holding = new AtomicBoolean();
            Thread loopThread = loop.submit(Thread::currentThread).get();
            Thread refresher = Thread.ofPlatform().name("price-refresher").start(() -> {
                synchronized (table) {
                    holding.set(true);
                    while (loopThread.getState() != Thread.State.BLOCKED) {
                        Thread.onSpinWait();
                    }
                    sleep(200);
                    table.version++;
                }
            });
            while (!holding.get()) {
                Thread.onSpinWait();
            }
            loop.submit(() -> readPrices(table)).sync();
            refresher.join();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        System.out.println("netty-monitor done");
    }

    private static int readPrices(PriceTable table) {
        synchronized (table) {
            return table.version;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
