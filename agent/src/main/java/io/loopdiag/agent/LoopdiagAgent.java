package io.loopdiag.agent;

import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points. Loaded by the system class loader when the JVM starts with
 * {@code -javaagent:loopdiag-agent.jar[=options]}, or when a running JVM loads the agent.
 *
 * <p>Today it installs once, checks its options and starts the {@link Watchdog} (slow callbacks
 * and loop stalls); the first line it prints says what it does not detect yet.
 */
public final class LoopdiagAgent {
    private static boolean installed;

    private LoopdiagAgent() {
    }

    public static void premain(String options, Instrumentation instrumentation) {
        install(options, instrumentation);
    }

    public static void agentmain(String options, Instrumentation instrumentation) {
        install(options, instrumentation);
    }

    /** Installs the agent once; a second call says so and changes nothing. */
    static synchronized void install(String options, Instrumentation instrumentation) {
        if (installed) {
            System.err.println("loopdiag: agent already installed; ignoring the second load");
            return;
        }
        AgentOptions parsed;
        try {
            parsed = AgentOptions.parse(options);
        } catch (IllegalArgumentException e) {
            // Never take the application down: say what is wrong and stay out of the way.
            System.err.println("loopdiag: " + e.getMessage() + "; the agent is not installed");
            return;
        }
        installed = true;
        boolean watching = startWatchdog(parsed);
        System.err.println("loopdiag: agent " + version() + " loaded (slow=" + parsed.slow().toMillis() + "ms"
                + (watching ? "; watching loops for slow callbacks and stalls" : "; no loop-core in this JVM to watch")
                + "; blocking calls, never-awaited coroutines and lost exceptions are not detected yet)");
    }

    /** Starts the watchdog if the application has loop-core; false if it has none. */
    private static boolean startWatchdog(AgentOptions options) {
        try {
            Class.forName("io.loopdiag.loop.EventLoop", false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
        Report report = options.report() != null ? new Report(options.report(), null, options, System.err) : null;
        Detections detections = new Detections(report != null ? report::changed : () -> { });
        if (report != null) {
            report.attach(detections);
            report.start();
        }
        Watchdog watchdog = Watchdog.start(options.slow().toNanos(), options.logToStderr() ? System.err : null, detections);
        // One hook, in order: what was still running at exit is closed first, then the report is written.
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                watchdog.closeAll();
                if (report != null) {
                    report.write();
                }
            }, "loopdiag-exit"));
        } catch (IllegalStateException exiting) {
            // Loaded while the JVM shuts down: nothing is left to watch.
        }
        return true;
    }

    private static String version() {
        String version = LoopdiagAgent.class.getPackage().getImplementationVersion();
        return version != null ? version : "(development)";
    }
}
