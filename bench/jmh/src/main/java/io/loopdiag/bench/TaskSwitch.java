package io.loopdiag.bench;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Task;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * {@link #TASKS} tasks started together, each yielding to the loop {@link #SWITCHES} times
 * (loop-core: {@code sleep(Duration.ZERO)}, asyncio's {@code await asyncio.sleep(0)}; kotlinx:
 * {@code yield()}). Score: ns per switch.
 */
@State(Scope.Benchmark)
@Fork(jvmArgsAppend = Results.LOOP_CORE_SETUP)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TaskSwitch {
    static final int TASKS = 100;
    static final int SWITCHES = 10_000;

    private EventLoop loop;

    @Setup
    public void setUp() throws Exception {
        Results.attachAgentIfAsked();
        loop = new EventLoop();
    }

    @TearDown
    public void tearDown() {
        loop.close();
    }

    @Benchmark
    @OperationsPerInvocation(TASKS * SWITCHES)
    public int loopCore() throws Exception {
        return loop.runUntilComplete(Coroutine.of("main", () -> {
            List<Task<Integer>> tasks = new ArrayList<>(TASKS);
            for (int t = 0; t < TASKS; t++) {
                tasks.add(createTask("switcher", () -> {
                    for (int s = 0; s < SWITCHES; s++) {
                        sleep(Duration.ZERO);
                    }
                    return 1;
                }));
            }
            int done = 0;
            for (Task<Integer> task : tasks) {
                done += await(task);
            }
            return done;
        }));
    }

    @Benchmark
    @OperationsPerInvocation(TASKS * SWITCHES)
    public long kotlinx() {
        return io.loopdiag.bench.kotlinx.KotlinxWorkloads.taskSwitch(TASKS, SWITCHES);
    }
}
