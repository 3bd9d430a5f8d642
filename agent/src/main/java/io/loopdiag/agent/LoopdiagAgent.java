package io.loopdiag.agent;

import io.loopdiag.protocol.Text;
import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points. Loaded by the system class loader when the JVM starts with
 * {@code -javaagent:loopdiag-agent.jar[=options]} ({@code premain}), or when {@code loopdiag
 * attach} loads the agent into a running JVM ({@code agentmain}); both call one idempotent
 * {@link #install}. Nothing here may take the application down: a bad option or a failed start
 * is one line on stderr, and the application runs on without the agent.
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
            String unwritable = parsed.report() != null ? Report.whyNotWritable(parsed.report()) : null;
            if (unwritable != null) {
                throw new IllegalArgumentException("bad agent options '" + Text.excerpt(options)
                        + "': option 'report' " + Text.printable(unwritable));
            }
        } catch (IllegalArgumentException e) {
            System.err.println("loopdiag: " + e.getMessage() + "; the agent is not installed");
            if (options != null) {
                Report.writeRefusal(options, e.getMessage());
            }
            return;
        }
        installed = true;
        try {
            // First of all: the classes that name the boot classes must find the injected ones.
            BootClasses.inject(instrumentation);
            System.err.println("loopdiag: agent " + version() + " loaded (" + Installation.start(parsed, instrumentation) + ")");
        } catch (Throwable failure) {
            Occurrences.watching("the loopdiag agent could not start (" + failure + ")");
            System.err.println("loopdiag: the agent could not start (" + failure + "); the application runs without it");
        }
    }

    static String version() {
        String version = LoopdiagAgent.class.getPackage().getImplementationVersion();
        return version != null ? version : "(development)";
    }
}
