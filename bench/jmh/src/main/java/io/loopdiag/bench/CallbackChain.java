package io.loopdiag.bench;

import io.loopdiag.loop.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
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
 * A callback that schedules the next one from inside itself, {@link #N} times: the loop's bare
 * dispatch cost. loop-core: {@code execute} ({@code callSoon} apart); Netty: {@code execute} on its NIO event loop;
 * kotlinx: a dispatch on a single-thread dispatcher. Score: ns per callback.
 */
@State(Scope.Benchmark)
@Fork(jvmArgsAppend = Results.LOOP_CORE_SETUP)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CallbackChain {
    static final int N = 1_000_000;

    private EventLoop loop;
    private final Runnable loopCoreStep = this::loopCoreStep;
    private final Runnable loopCoreCallSoonStep = this::loopCoreCallSoonStep;
    private int remaining;

    private NioEventLoopGroup netty;
    private io.netty.channel.EventLoop nettyLoop;
    private final Runnable nettyStep = this::nettyStep;
    private CompletableFuture<Integer> nettyDone;

    @Setup
    public void setUp() {
        loop = new EventLoop();
        netty = new NioEventLoopGroup(1);
        nettyLoop = netty.next();
    }

    @TearDown
    public void tearDown() throws InterruptedException {
        loop.close();
        netty.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    /** {@code execute}, as Netty's chain: a callback nobody can cancel, queued without a handle. */
    @Benchmark
    @OperationsPerInvocation(N)
    public int loopCore() {
        remaining = N;
        loop.execute(loopCoreStep);
        loop.runForever();
        return remaining;
    }

    private void loopCoreStep() {
        if (--remaining > 0) {
            loop.execute(loopCoreStep);
        } else {
            loop.stop();
        }
    }

    /** {@code callSoon}, asyncio's: each callback gets a {@link io.loopdiag.loop.Handle} that can cancel it. */
    @Benchmark
    @OperationsPerInvocation(N)
    public int loopCoreCallSoon() {
        remaining = N;
        loop.callSoon(loopCoreCallSoonStep);
        loop.runForever();
        return remaining;
    }

    private void loopCoreCallSoonStep() {
        if (--remaining > 0) {
            loop.callSoon(loopCoreCallSoonStep);
        } else {
            loop.stop();
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int netty() {
        remaining = N;
        nettyDone = new CompletableFuture<>();
        nettyLoop.execute(nettyStep);
        return nettyDone.join();
    }

    private void nettyStep() {
        if (--remaining > 0) {
            nettyLoop.execute(nettyStep);
        } else {
            nettyDone.complete(remaining);
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long kotlinx() {
        return io.loopdiag.bench.kotlinx.KotlinxWorkloads.callbackChain(N);
    }
}
