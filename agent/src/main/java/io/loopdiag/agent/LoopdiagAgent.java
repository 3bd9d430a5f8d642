package io.loopdiag.agent;

import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points. Loaded by the system class loader when the JVM starts with
 * {@code -javaagent:loopdiag-agent.jar[=options]}, or when a running JVM loads the agent.
 *
 * <p>This is the skeleton the agent grows from: it installs once and says what it does not do
 * yet, so a user who adds it learns that from the first line it prints. The detections are the
 * work of the agent issue.
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
        System.err.println("loopdiag: agent " + version() + " loaded (slow=" + parsed.slow().toMillis() + "ms, blocking="
                + parsed.blocking().name().toLowerCase(java.util.Locale.ROOT) + "); detections are not implemented in this build");
    }

    private static String version() {
        String version = LoopdiagAgent.class.getPackage().getImplementationVersion();
        return version != null ? version : "(development)";
    }
}
