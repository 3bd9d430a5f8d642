package io.loopdiag.bench;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;

import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
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
 * In one task, {@link #N} times: create a task that returns 1 and await it (asyncio's
 * {@code await create_task(one())}; kotlinx: {@code async { 1 }.await()}). Score: ns per
 * create and await.
 */
@State(Scope.Benchmark)
@Fork(jvmArgsAppend = Results.LOOP_CORE_SETUP)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CreateAwait {
    static final int N = 200_000;

    private EventLoop loop;

    @Setup
    public void setUp() throws Exception {
        Results.attachAgentIfAsked();
        loop = new EventLoop();
        loop.setEagerTasks(Boolean.getBoolean("loopdiag.bench.eager")); // bench/run's "eager" variant
    }

    @TearDown
    public void tearDown() {
        loop.close();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long loopCore() throws Exception {
        return loop.runUntilComplete(Coroutine.of("main", () -> {
            long sum = 0;
            for (int i = 0; i < N; i++) {
                sum += await(createTask("one", () -> 1));
            }
            return sum;
        }));
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long kotlinx() {
        return io.loopdiag.bench.kotlinx.KotlinxWorkloads.createAwait(N);
    }
}
