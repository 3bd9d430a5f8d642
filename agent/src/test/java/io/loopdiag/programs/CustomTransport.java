package io.loopdiag.programs;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A Netty 4.2 event loop on an I/O handler of its own, as a transport the agent does not know
 * (io_uring, a vendor's) would run: the agent must say it does not time its I/O, and still watch
 * its tasks. A task sleeps on the loop; prints {@code custom-transport done}.
 */
public final class CustomTransport {
    /** Waits for tasks as a transport waits for I/O, and has none. */
    static final class Handler implements IoHandler {
        private volatile Thread thread;

        @Override
        public int run(IoHandlerContext context) {
            thread = Thread.currentThread();
            if (context.canBlock()) {
                LockSupport.parkNanos(this, Math.min(context.delayNanos(System.nanoTime()), TimeUnit.MILLISECONDS.toNanos(10)));
            }
            return 0;
        }

        @Override
        public void wakeup() {
            Thread waiting = thread;
            if (waiting != null) {
                LockSupport.unpark(waiting);
            }
        }

        @Override
        public IoRegistration register(IoHandle handle) {
            throw new UnsupportedOperationException("no channels on this transport");
        }

        @Override
        public boolean isCompatible(Class<? extends IoHandle> handleType) {
            return false;
        }
    }

    private CustomTransport() {
    }

    public static void main(String[] args) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, executor -> new Handler());
        EventLoop loop = group.next();
        loop.submit(() -> {
            Thread.sleep(150);
            return null;
        }).sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        System.out.println("custom-transport done");
    }
}
