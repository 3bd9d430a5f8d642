package io.loopdiag.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The cost of the blocking-call check on a thread that runs no loop: {@code Thread.sleep(0)} (a
 * yield, the cheapest call both tools watch) on the benchmark thread. {@link #plain} runs
 * without a tool or, in {@code bench/run}'s second pass, with the agent; {@link WithBlockHound}
 * with BlockHound installed. Score: ns per call; the figure is the difference from plain.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BlockingCheck {

    @Benchmark
    public void plain() throws InterruptedException {
        Thread.sleep(0);
    }

    /** The same call with BlockHound installed (it needs its JVM flag on JDK 13+). */
    @State(Scope.Benchmark)
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    @Fork(jvmArgsAppend = {"-XX:+AllowRedefinitionToAddDeleteMethods", "-Djdk.attach.allowAttachSelf=true"})
    public static class WithBlockHound {
        @Setup
        public void install() {
            reactor.blockhound.BlockHound.install();
        }

        @Benchmark
        public void blockHound() throws InterruptedException {
            Thread.sleep(0);
        }
    }
}
