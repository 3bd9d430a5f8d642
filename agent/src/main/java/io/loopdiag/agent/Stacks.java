package io.loopdiag.agent;

import io.loopdiag.loop.LoopSnapshot;
import java.util.Arrays;
import java.util.List;

/** Cutting stacks down to what a user reads: the application's frames, not the agent's or the loop's plumbing. */
final class Stacks {
    private static final String AGENT_PACKAGE = "io.loopdiag.agent.";
    private static final String LOOP_PACKAGE = "io.loopdiag.loop.";

    private Stacks() {
    }

    /** A frame of the JDK itself (a {@code java.*} or {@code jdk.*} module). */
    static boolean isJdk(StackTraceElement frame) {
        String module = frame.getModuleName();
        return module != null && (module.startsWith("java.") || module.startsWith("jdk."));
    }

    static boolean isAgent(StackTraceElement frame) {
        return frame.getClassName().startsWith(AGENT_PACKAGE);
    }

    /**
     * Where something was created, from a stack taken inside loop-core's constructor: the
     * agent's and loop-core's frames on top removed (the caller's frame comes first), and the
     * loop's frames at the bottom.
     */
    static List<StackTraceElement> creationSite(StackTraceElement[] frames) {
        int top = 0;
        while (top < frames.length && (isAgent(frames[top]) || frames[top].getClassName().startsWith(LOOP_PACKAGE))) {
            top++;
        }
        return LoopSnapshot.runningStack(Arrays.copyOfRange(frames, top, frames.length));
    }

    /**
     * A stack from the JDK method the application called down: the JDK's frames inside that call
     * (a park, a poller) removed, the called method kept. All of it if no frame is the application's.
     */
    static List<StackTraceElement> fromApplicationCall(List<StackTraceElement> stack) {
        int app = 0;
        while (app < stack.size() && isJdk(stack.get(app))) {
            app++;
        }
        return app == stack.size() ? stack : stack.subList(Math.max(0, app - 1), stack.size());
    }
}
