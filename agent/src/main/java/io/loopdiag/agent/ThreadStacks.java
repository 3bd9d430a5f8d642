package io.loopdiag.agent;

import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.Set;

/**
 * The stacks the dump walks: the JDK's own thread snapshot ({@code jdk.internal.vm.ThreadSnapshot},
 * JDK 25+, what {@code jcmd Thread.dump_to_file} reads), opened to the agent through
 * {@link Instrumentation#redefineModule}, or {@link Thread#getStackTrace} where the JDK has none.
 * The two give the same frames; the snapshot walks a parked virtual thread in the VM, where
 * {@code getStackTrace} runs the JDK's stack walker in Java, which the JIT compiles on a dump's
 * first 100,000 walks: 0.24 s of CPU a first dump saves (docs/decisions.md). It names no class of
 * loop-core's, which a JVM may not have.
 */
final class ThreadStacks {
    private static final String PACKAGE = "jdk.internal.vm";
    /** {@code (Thread) Object}: the thread's snapshot, null once it has ended; null when the JDK has none. */
    private static volatile MethodHandle snapshot;
    /** {@code (Object) StackTraceElement[]}: a snapshot's stack. */
    private static volatile MethodHandle stackOf;

    private ThreadStacks() {
    }

    /** Opens the JDK's thread snapshot to the agent; where that fails, the dump walks with {@link Thread#getStackTrace}. */
    static void open(Instrumentation instrumentation) {
        try {
            Module agent = ThreadStacks.class.getModule();
            instrumentation.redefineModule(Object.class.getModule(), Set.of(), Map.of(), Map.of(PACKAGE, Set.of(agent)),
                    Set.of(), Map.of());
        } catch (RuntimeException refused) {
            return;
        }
        lookUp();
    }

    /** Finds the JDK's thread snapshot, once its package is open to the agent. */
    static void lookUp() {
        try {
            Class<?> type = Class.forName(PACKAGE + ".ThreadSnapshot");
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
            MethodHandle of = lookup.findStatic(type, "of", MethodType.methodType(type, Thread.class));
            MethodHandle stack = lookup.findVirtual(type, "stackTrace", MethodType.methodType(StackTraceElement[].class));
            stackOf = stack.asType(MethodType.methodType(StackTraceElement[].class, Object.class));
            snapshot = of.asType(MethodType.methodType(Object.class, Thread.class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError absent) {
            snapshot = null; // JDK 21 to 24, or a JDK that changed it
        }
    }

    /** Whether the dump reads the JDK's thread snapshot. */
    static boolean snapshots() {
        return snapshot != null;
    }

    /** {@code thread}'s stack, innermost frame first; empty once it has ended. */
    static StackTraceElement[] of(Thread thread) {
        MethodHandle taken = snapshot;
        if (taken != null) {
            try {
                Object snap = taken.invokeExact(thread);
                return snap == null ? new StackTraceElement[0] : (StackTraceElement[]) stackOf.invokeExact(snap);
            } catch (Throwable unsupported) { // the VM's UnsupportedOperationException: from now on, the JDK's walk
                snapshot = null;
            }
        }
        return thread.getStackTrace();
    }
}
