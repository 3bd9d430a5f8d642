package io.loopdiag.programs;

import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * {@value #TASKS} tasks submitted one after the other to a Netty 4.2 NIO loop with no channel
 * ({@code wakeups-loop-N-1}): each wakes the loop, whose I/O handler runs a batch that finds no
 * I/O before the task runs. Then prints {@code units N}, the loop's {@code Units} as the agent's
 * bean shows it once it has settled (the same in two reads a roll of the numbers apart), and
 * {@code netty-wakeups done}.
 */
public final class NettyWakeUps {
    public static final int TASKS = 300;
    /** Longer than the agent's roll of its numbers, once a second. */
    private static final long SETTLED_MILLIS = 1_200;
    private static final long GIVE_UP_MILLIS = 30_000;

    private NettyWakeUps() {
    }

    public static void main(String[] args) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("wakeups-loop"), NioIoHandler.newFactory());
        EventLoop loop = group.next();
        try {
            String name = loop.submit(() -> Thread.currentThread().getName()).get();
            for (int i = 1; i < TASKS; i++) {
                loop.submit(() -> { }).sync();
            }
            System.out.println("units " + settledUnits(new ObjectName("io.loopdiag:type=Loop,name=" + ObjectName.quote(name))));
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        System.out.println("netty-wakeups done");
    }

    /** The bean's Units once two reads {@link #SETTLED_MILLIS} apart agree, or -1 if that never happens. */
    private static long settledUnits(ObjectName bean) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GIVE_UP_MILLIS);
        long last = -1;
        while (System.nanoTime() < giveUp) {
            Thread.sleep(SETTLED_MILLIS);
            long now = server.isRegistered(bean) ? (Long) server.getAttribute(bean, "Units") : -1;
            if (now >= 0 && now == last) {
                return now;
            }
            last = now;
        }
        return -1;
    }
}
