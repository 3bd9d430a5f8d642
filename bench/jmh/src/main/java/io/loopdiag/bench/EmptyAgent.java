package io.loopdiag.bench;

import java.lang.instrument.Instrumentation;

/**
 * A Java agent that does nothing: the floor under the agent's overhead. Loading any Java agent
 * makes the JVM post JVMTI events at every virtual-thread mount and unmount, so this agent costs a
 * task switch what the JVM adds, and loopdiag's own cost is the rest. {@code bench/run} writes a
 * jar holding only a manifest that names this class, which the fork finds on its class path.
 */
public final class EmptyAgent {
    private EmptyAgent() {
    }

    public static void premain(String options, Instrumentation instrumentation) {
    }

    public static void agentmain(String options, Instrumentation instrumentation) {
    }
}
