package io.loopdiag.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;

/**
 * The agent jar's Premain-Class and Agent-Class, compiled for Java 8 so that every JVM can load
 * it: {@code JAVA_TOOL_OPTIONS} (which {@code loopdiag run} uses) reaches every JVM a build
 * starts, and one older than 21 would otherwise abort on the agent's class files. On Java 21+ it
 * hands over to {@code LoopdiagAgent}; on an older Java it says in one line that it stands aside,
 * and the JVM runs on without loopdiag.
 */
public final class AgentLauncher {
    private static final int MIN_FEATURE = 21;

    private AgentLauncher() {
    }

    public static void premain(String options, Instrumentation instrumentation) {
        enter("premain", options, instrumentation);
    }

    public static void agentmain(String options, Instrumentation instrumentation) {
        enter("agentmain", options, instrumentation);
    }

    private static void enter(String entry, String options, Instrumentation instrumentation) {
        String version = System.getProperty("java.specification.version");
        int feature = version.startsWith("1.") ? Integer.parseInt(version.substring(2)) : Integer.parseInt(version);
        if (feature < MIN_FEATURE) {
            System.err.println("loopdiag: the agent needs Java " + MIN_FEATURE + " or newer; this JVM is Java "
                    + System.getProperty("java.version") + ", so it runs without loopdiag");
            return;
        }
        try {
            Method method = Class.forName("io.loopdiag.agent.LoopdiagAgent")
                    .getMethod(entry, String.class, Instrumentation.class);
            method.invoke(null, options, instrumentation);
        } catch (Throwable failure) { // LoopdiagAgent itself never throws: this is a broken jar
            System.err.println("loopdiag: the agent could not start (" + failure + "); the application runs without it");
        }
    }
}
