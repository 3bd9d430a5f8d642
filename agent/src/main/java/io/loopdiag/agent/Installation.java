package io.loopdiag.agent;

import io.loopdiag.agent.boot.BlockingGate;
import java.io.PrintStream;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;

/**
 * Starts the agent's parts in order: the detectors, the bootstrap classes, the instrumentation of
 * loop-core and of the JDK's blocking methods, a self-check of that instrumentation, then the
 * watchdog and the exit hook. Loaded only after {@link LoopdiagAgent} has accepted the options.
 */
final class Installation {
    private static final String LOOP_CLASS = "io.loopdiag.loop.EventLoop";

    private Installation() {
    }

    /** Starts everything; returns what the agent watches, for its first line. */
    static String start(AgentOptions options, Instrumentation instrumentation) throws Exception {
        Class<?> loopClass;
        try {
            loopClass = Class.forName(LOOP_CLASS, false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError absent) {
            Occurrences.watching("the loopdiag agent found no loop-core in this JVM to watch");
            return "no loop-core in this JVM to watch";
        }
        PrintStream log = options.logToStderr() ? System.err : null;
        Report report = options.report() != null ? new Report(options.report(), options, System.err) : null;
        Detections detections = new Detections(log, report != null ? report::changed : () -> { });
        NeverAwaited coroutines = new NeverAwaited(detections);
        LostExceptions failures = new LostExceptions(detections);
        if (report != null) {
            report.show(detections);
            report.start();
        }

        boolean blocking = options.blocking() != AgentOptions.Blocking.OFF;
        BlockingCalls calls = new BlockingCalls(detections, options);
        BlockingGate.install(calls, loopClass);
        LoopHooks.start(coroutines, failures);

        Map<String, AsmVisitorWrapper> advice = new LinkedHashMap<>(LoopHooks.advice());
        if (blocking) {
            BlockingHooks.byClass().forEach((className, hooks) -> {
                List<AsmVisitorWrapper> wrappers = new ArrayList<>();
                for (BlockingHooks.Hook hook : hooks) {
                    wrappers.add(Advice.to(hook.advice(), BlockingHooks.Exit.class).on(hook.matcher()));
                }
                advice.put(className, new AsmVisitorWrapper.Compound(wrappers));
                preload(className); // so that the self-check below sees it instrumented now
            });
        }
        Weaver weaver = new Weaver(advice);
        weaver.install(instrumentation);

        List<String> problems = new ArrayList<>();
        weaver.failed.forEach((type, error) -> problems.add(type + " could not be instrumented (" + error + ")"));
        if (blocking) {
            problems.addAll(selfCheck(calls, weaver));
        }
        for (String problem : problems) {
            System.err.println("loopdiag: self-check: " + problem);
        }

        ControlServer.start(detections);
        Occurrences.watching(null);
        DetectionEvents.warmUp();
        Watchdog watchdog = Watchdog.start(options.slow().toNanos(), detections, () -> {
            CreationSites.refill();
            coroutines.pollCollected();
            failures.pollCollected();
        });
        try {
            // One hook, in order: what still runs at exit is closed, what was never awaited or
            // retrieved is reported, then the report is written.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                watchdog.closeAll();
                coroutines.exiting();
                failures.exiting();
                if (report != null) {
                    report.write();
                }
            }, "loopdiag-exit"));
        } catch (IllegalStateException exiting) {
            // Loaded while the JVM shuts down: nothing is left to watch.
        }
        return "slow=" + options.slow().toMillis() + "ms, blocking=" + options.blocking().name().toLowerCase(java.util.Locale.ROOT)
                + "; watching loops for slow callbacks, stalls, " + (blocking ? "blocking calls, " : "")
                + "never-awaited coroutines and lost exceptions" + (problems.isEmpty() ? "" : "; " + problems.size() + " self-check problem(s) above");
    }

    private static void preload(String className) {
        try {
            Class.forName(className, false, null);
        } catch (ClassNotFoundException | LinkageError absent) {
            // Not in this JDK: the self-check names the rows that are missing.
        }
    }

    /**
     * Checks that every blocking method of the table is instrumented: the classes were
     * transformed, the methods exist in this JDK, and three calls made on a thread marked as a
     * loop's reach the listener. Returns what is wrong, one line each.
     */
    private static List<String> selfCheck(BlockingCalls calls, Weaver weaver) throws InterruptedException {
        List<String> problems = new ArrayList<>();
        for (String row : BlockingHooks.missing(null)) {
            problems.add(row + " is not in this JDK (" + Runtime.version() + "); calls to it are not detected");
        }
        for (String className : BlockingHooks.byClass().keySet()) {
            if (!weaver.woven.contains(className) && !weaver.failed.containsKey(className)) {
                problems.add(className + " was not instrumented; blocking calls through it are not detected");
            }
        }
        Set<String> seen = ConcurrentHashMap.newKeySet();
        Object monitor = new Object();
        Thread probe = new Thread(() -> {
            BlockingGate.markLoopThread();
            try {
                Thread.sleep(1);
                LockSupport.parkNanos(monitor, 1_000);
                synchronized (monitor) {
                    monitor.wait(1);
                }
            } catch (InterruptedException ignored) {
                // The check below says what was not seen.
            } finally {
                BlockingGate.unmarkLoopThread();
            }
        }, "loopdiag-self-check");
        calls.probeWith(probe, seen);
        probe.setDaemon(true);
        probe.start();
        probe.join(TimeUnit.SECONDS.toMillis(5));
        calls.probeWith(null, null);
        for (String expected : List.of("java.lang.Thread.sleep(long)",
                "java.util.concurrent.locks.LockSupport.parkNanos(java.lang.Object,long)", "java.lang.Object.wait(long)")) {
            if (!seen.contains(expected)) {
                problems.add(expected + " on a loop thread did not reach the agent (seen: " + seen + ")");
            }
        }
        return problems;
    }
}
