package io.loopdiag.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The floor under loop-core's task switch: two virtual threads passing a baton back and forth
 * with {@code LockSupport.park}/{@code unpark}, on one carrier (the JDK's own scheduler with
 * parallelism 1), and nothing else. A task's {@code sleep(0)} is one such hand-off when the
 * loop's next handle steps another task (the task hands the baton straight to it), two otherwise
 * (task to loop, loop to task), plus the loop's bookkeeping. Score: ns per hand-off.
 *
 * <p>{@link #startJoin} is the floor under a create + await the same way: a virtual thread starts
 * another, which returns at once, and joins it. Score: ns per start and join.
 */
@State(Scope.Benchmark)
@Fork(jvmArgsAppend = "-Djdk.virtualThreadScheduler.parallelism=1")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HandOff {
    static final int N = 1_000_000;
    /** As many as {@code CreateAwait} creates and awaits. */
    static final int STARTS = 200_000;

    /** The thread allowed to run; the other parks until it is its turn. */
    private volatile Thread holder;

    @Benchmark
    @OperationsPerInvocation(N)
    public Thread plain() throws InterruptedException {
        Thread[] pair = new Thread[2];
        pair[0] = Thread.ofVirtual().unstarted(() -> pass(pair[1], true));
        pair[1] = Thread.ofVirtual().unstarted(() -> pass(pair[0], false));
        holder = pair[0];
        pair[0].start();
        pair[1].start();
        pair[0].join();
        pair[1].join();
        return holder;
    }

    @Benchmark
    @OperationsPerInvocation(STARTS)
    public long startJoin() throws InterruptedException {
        long[] joined = {0};
        Thread starter = Thread.ofVirtual().start(() -> {
            try {
                for (int i = 0; i < STARTS; i++) {
                    Thread.ofVirtual().start(HandOff::nothing).join();
                    joined[0]++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        starter.join();
        return joined[0];
    }

    private static void nothing() {
    }

    /** N/2 turns each: waits for the baton, hands it to {@code other}. The first thread starts holding it. */
    private void pass(Thread other, boolean first) {
        Thread me = Thread.currentThread();
        for (int turn = 0; turn < N / 2; turn++) {
            while (holder != me) {
                LockSupport.park(this);
            }
            holder = other;
            LockSupport.unpark(other);
        }
        if (!first) {
            return;
        }
        while (holder != me) { // the last hand-off back: the second thread ends holding nothing
            LockSupport.park(this);
        }
    }
}
