package io.loopdiag.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * The cost of the blocking-call check on a thread that runs no loop: a {@code LockSupport.park}
 * that returns at once (the thread gave itself the permit first), a call both tools watch, on the
 * benchmark thread. {@link #plain} runs without a tool or, in {@code bench/run}'s second pass,
 * with the agent; {@link WithBlockHound} with BlockHound installed, after proving that BlockHound
 * sees this call on this JDK. Score: ns per call; the figure is the difference from plain.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BlockingCheck {

    @Benchmark
    public void plain() {
        parkWithPermit();
    }

    static void parkWithPermit() {
        LockSupport.unpark(Thread.currentThread());
        LockSupport.park();
    }

    /** The same call with BlockHound installed (it needs its JVM flag on JDK 13+). */
    @State(Scope.Benchmark)
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    @Fork(jvmArgsAppend = {"-XX:+AllowRedefinitionToAddDeleteMethods", "-Djdk.attach.allowAttachSelf=true"})
    public static class WithBlockHound {
        private static final String NON_BLOCKING = "bench-non-blocking";

        @Setup
        public void install() throws InterruptedException {
            BlockHound.builder()
                    .nonBlockingThreadPredicate(others -> others.or(thread -> thread.getName().equals(NON_BLOCKING)))
                    .install();
            // A comparison with a tool that does not watch the call would measure nothing: prove it does.
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread probe = new Thread(() -> {
                try {
                    parkWithPermit();
                } catch (Throwable t) {
                    thrown.set(t);
                }
            }, NON_BLOCKING);
            probe.start();
            probe.join();
            if (!(thrown.get() instanceof BlockingOperationError)) {
                throw new IllegalStateException("BlockHound did not see LockSupport.park on a non-blocking thread: " + thrown.get());
            }
        }

        @Benchmark
        public void blockHound() {
            parkWithPermit();
        }
    }
}
