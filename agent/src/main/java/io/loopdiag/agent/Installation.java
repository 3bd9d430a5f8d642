package io.loopdiag.agent;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.protocol.LoopCoreHooks;
import java.io.PrintStream;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Starts the agent's parts, one named step each, in the order {@link #start} lists them: the
 * findings and the report, the detectors, the blocking check, the weaving of every hook, the
 * self-check of that weaving, the control socket, the watchdog and the exit hook. Loaded only
 * after {@link LoopdiagAgent} has accepted the options and put the bootstrap classes in place.
 */
final class Installation {
    private final AgentOptions options;
    private final Instrumentation instrumentation;
    private final boolean blocking;
    private final SelfCheck selfCheck = new SelfCheck(System.err);

    private Installation(AgentOptions options, Instrumentation instrumentation) {
        this.options = options;
        this.instrumentation = instrumentation;
        this.blocking = options.blocking() != AgentOptions.Blocking.OFF;
    }

    /** Starts everything; returns what the agent watches, for its first line. */
    static String start(AgentOptions options, Instrumentation instrumentation) throws Exception {
        return new Installation(options, instrumentation).start();
    }

    private String start() throws Exception {
        Class<?> loopClass = loopCore();
        Report report = options.report() != null ? new Report(options.report(), options, System.err, loopClass != null) : null;
        Findings findings = findings(report);
        ForeignLoops foreignLoops = new ForeignLoops(options.threads(), selfCheck, report != null ? report::changed : () -> { }, findings);
        BlockingCalls calls = blockingCheck(findings, loopClass, foreignLoops);
        NeverAwaited coroutines = null;
        LostExceptions failures = null;
        if (loopClass != null) {
            coroutines = new NeverAwaited(findings);
            failures = new LostExceptions(findings);
            LoopHooks.start(coroutines, failures, blocking ? calls : null);
        }
        List<Hook> hooks = hooks(loopClass != null);
        Weaver weaver = weave(hooks);
        foreignLoops.weaver(weaver);
        AwtLoops.open(instrumentation);
        ThreadStacks.open(instrumentation);
        ForeignLoops.adoptRunning();
        if (loopClass != null && blocking) {
            LoopHooks.adoptRunningLoops();
        }
        checkHooks(weaver, hooks);
        if (blocking) {
            probeBlockingCheck(calls);
        }
        ControlServer.start(findings);
        Occurrences.watching(null);
        JfrEvents.warmUp();
        LoopHealth health = options.statistics() ? new LoopHealth() : null;
        Watchdog watchdog = watchdog(findings, loopClass != null, coroutines, failures, foreignLoops.promises(),
                blocking ? new MonitorWaits(findings, calls) : null, health);
        Dump.watch(watchdog, health, loopClass != null);
        if (health != null) {
            LoopBeans.start(health, findings, LoopdiagAgent.version(),
                    "slow=" + options.slow().toMillis() + "ms, blocking=" + options.blocking().id());
        }
        if (options.signal() != null) {
            SignalDump.install(options.signal(), options.dump(), findings);
        }
        onExit(watchdog, coroutines, failures, foreignLoops.promises(), report);
        int problems = selfCheck.problems().size();
        List<String> detections = new ArrayList<>(List.of("slow callbacks", "stalls"));
        if (blocking) {
            detections.add("blocking calls");
        }
        if (loopClass != null) {
            detections.add("never-awaited coroutines");
        }
        return "slow=" + options.slow().toMillis() + "ms, blocking=" + options.blocking().id() + "; watching "
                + (loopClass != null ? "loop-core, " : "") + "Netty, Vert.x, AWT and Reactor loops for "
                + String.join(", ", detections) + " and lost exceptions"
                + (problems == 0 ? "" : "; " + problems + " self-check problem(s) above");
    }

    /** loop-core's loop class in the system class loader, where the application has it; null if it has none. */
    private static Class<?> loopCore() {
        try {
            return Class.forName(LoopCoreHooks.EVENT_LOOP, false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError absent) {
            return null;
        }
    }

    /** The store of findings, printing to stderr unless {@code log=off}; the report, if any, shows it from now on. */
    private Findings findings(Report report) {
        PrintStream log = options.logToStderr() ? System.err : null;
        Findings findings = new Findings(log, report != null ? report::changed : () -> { });
        if (report != null) {
            report.show(findings, selfCheck);
            report.start();
        }
        return findings;
    }

    /**
     * What turns a blocking call on a loop thread into a finding, and names the foreign loops'
     * threads, listening to the bootstrap side from now on.
     */
    private BlockingCalls blockingCheck(Findings findings, Class<?> loopClass, ForeignLoops foreignLoops) throws ClassNotFoundException {
        BlockingCalls calls = new BlockingCalls(findings, options, foreignLoops, loopClass != null);
        Class<?> batonBlocker = loopClass == null ? null : Class.forName(LoopCoreHooks.BATON_BLOCKER, false, loopClass.getClassLoader());
        BlockingCheck.install(calls, batonBlocker, loopClass == null ? null : LoopHooks.currentLoop());
        return calls;
    }

    /** loop-core's hooks if it is here, the foreign loops', and the JDK's blocking methods unless {@code blocking=off}. */
    private List<Hook> hooks(boolean loopCore) {
        List<Hook> hooks = new ArrayList<>(loopCore ? LoopHooks.hooks(blocking) : List.of());
        hooks.addAll(ForeignLoops.hooks(blocking));
        if (blocking) {
            hooks.addAll(BlockingHooks.HOOKS);
        }
        return hooks;
    }

    /**
     * Weaves {@code hooks} into the classes loaded now and into the others as they load: a class
     * the application never loads is never woven (docs/decisions.md, "The agent weaves a class
     * when the application loads it").
     */
    private Weaver weave(List<Hook> hooks) {
        Weaver weaver = new Weaver(hooks, selfCheck::unmatched);
        weaver.install(instrumentation);
        return weaver;
    }

    /**
     * Says which hooks are not in place: a class that could not be woven, or is not in this JVM at
     * all. A class that is here but not loaded yet is checked against its hooks when it loads.
     */
    private void checkHooks(Weaver weaver, List<Hook> hooks) {
        weaver.failed.forEach((type, error) -> selfCheck.problem(type + " could not be instrumented (" + error + ")"));
        for (Hook hook : hooks) {
            if (hook.check() == Hook.Check.ALWAYS && weaver.status(hook) == Weaver.Status.NOT_LOADED
                    && ClassLoader.getSystemResource(hook.className().replace('.', '/') + ".class") == null) {
                selfCheck.problem(hook.label() + ": " + hook.className() + " is not in this JVM (Java " + Runtime.version()
                        + "); " + hook.loss());
            }
        }
    }

    /**
     * Makes three real blocking calls on a thread marked as a loop's and checks that each reached
     * the agent through the whole path (advice, bootstrap check, listener), reporting nothing.
     */
    private void probeBlockingCheck(BlockingCalls calls) throws InterruptedException {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        Object monitor = new Object();
        Thread probe = new Thread(() -> {
            BlockingCheck.markLoopThread();
            try {
                Thread.sleep(1);
                LockSupport.parkNanos(monitor, 1_000);
                synchronized (monitor) {
                    monitor.wait(1);
                }
            } catch (InterruptedException ignored) {
                // The check below says what was not seen.
            } finally {
                BlockingCheck.unmarkLoopThread();
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
                selfCheck.problem(expected + " on a loop thread did not reach the agent (seen: " + seen + ")");
            }
        }
    }

    /**
     * Starts the watchdog over loop-core's loops (if it is here) and the foreign loops; once a
     * second it also refills the creation-site budget and reports what was collected.
     */
    private Watchdog watchdog(Findings findings, boolean loopCore, NeverAwaited coroutines, LostExceptions failures,
                              NettyPromises promises, MonitorWaits monitors, LoopHealth health) {
        Supplier<List<WatchedLoop>> loops = loopCore ? () -> {
            List<WatchedLoop> all = new ArrayList<>(LoopCoreUnits.watched(blocking));
            all.addAll(ForeignLoops.watched());
            return all;
        } : ForeignLoops::watched;
        return Watchdog.start(options.slow().toNanos(), findings, loops, () -> {
            promises.pollCollected();
            if (loopCore) {
                CreationSites.refill();
                coroutines.pollCollected();
                failures.pollCollected();
            }
        }, monitors, health);
    }

    /**
     * One exit hook, in order: what still runs at exit is closed, what was never awaited or
     * retrieved is reported, then the report is written.
     */
    private static void onExit(Watchdog watchdog, NeverAwaited coroutines, LostExceptions failures, NettyPromises promises,
                               Report report) {
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                watchdog.closeAll(System.nanoTime());
                if (coroutines != null) {
                    coroutines.exiting();
                    failures.exiting();
                }
                promises.exiting();
                if (report != null) {
                    report.writeAtExit();
                }
            }, "loopdiag-exit"));
        } catch (IllegalStateException exiting) {
            // Loaded while the JVM shuts down: nothing is left to watch.
        }
    }
}
