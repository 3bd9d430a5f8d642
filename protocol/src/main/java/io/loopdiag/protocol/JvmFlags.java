package io.loopdiag.protocol;

import java.util.List;

/**
 * The JVM flags loopdiag adds where it starts a JVM with the agent itself ({@code loopdiag run},
 * the demo): any Java agent makes the JVM post a JVMTI notification at every virtual-thread mount
 * and unmount, which loopdiag does not need and which cost loop-core's task switch about half
 * again its time; only a debugger needs them (docs/decisions.md).
 */
public final class JvmFlags {
    /** Turns the virtual-thread mount notifications off; JDK 20 and newer accept them. */
    public static final List<String> WITHOUT_JVMTI_TRANSITIONS =
            List.of("-XX:+UnlockExperimentalVMOptions", "-XX:-DoJVMTIVirtualThreadTransitions");

    private JvmFlags() {
    }

    /** True if {@code argument} loads a native JVMTI agent, a debugger's or a profiler's, which may need the notifications. */
    public static boolean loadsNativeAgent(String argument) {
        return argument.contains("-agentlib:") || argument.contains("-agentpath:") || argument.contains("-Xrunjdwp");
    }
}
