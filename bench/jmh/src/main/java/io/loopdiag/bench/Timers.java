package io.loopdiag.bench;

import io.loopdiag.loop.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link #N} timers with deadlines drawn uniformly from [0, 10 ms) (a fixed seed), scheduled
 * from the loop; timed from the first schedule to the last callback (loop-core: {@code
 * callLater}; Netty: {@code schedule}; kotlinx: {@code delay}). Score: ns per timer.
 */
@State(Scope.Benchmark)
@Fork(jvmArgsAppend = Results.LOOP_CORE_SETUP)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Timers {
    static final int N = 100_000;
    static final long SPAN_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    static final long SEED = 42;

    private final long[] delaysNanos = new long[N];
    private EventLoop loop;
    private NioEventLoopGroup netty;
    private io.netty.channel.EventLoop nettyLoop;
    private int remaining;
    private CompletableFuture<Integer> nettyDone;
    private final Runnable loopCoreFired = this::loopCoreFired;
    private final Runnable nettyFired = this::nettyFired;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < N; i++) {
            delaysNanos[i] = random.nextLong(SPAN_NANOS);
        }
        loop = new EventLoop();
        netty = new NioEventLoopGroup(1);
        nettyLoop = netty.next();
    }

    @TearDown
    public void tearDown() throws InterruptedException {
        loop.close();
        netty.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int loopCore() {
        remaining = N;
        loop.callSoon(() -> {
            for (long delay : delaysNanos) {
                loop.callLater(Duration.ofNanos(delay), loopCoreFired);
            }
        });
        loop.runForever();
        return remaining;
    }

    private void loopCoreFired() {
        if (--remaining == 0) {
            loop.stop();
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int netty() {
        remaining = N;
        nettyDone = new CompletableFuture<>();
        nettyLoop.execute(() -> {
            for (long delay : delaysNanos) {
                nettyLoop.schedule(nettyFired, delay, TimeUnit.NANOSECONDS);
            }
        });
        return nettyDone.join();
    }

    private void nettyFired() {
        if (--remaining == 0) {
            nettyDone.complete(remaining);
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long kotlinx() {
        return io.loopdiag.bench.kotlinx.KotlinxWorkloads.timers(N, SEED);
    }
}
