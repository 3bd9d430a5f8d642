package io.loopdiag.agent;

import io.loopdiag.loop.LoopSnapshot;
import io.loopdiag.protocol.Frame;
import java.util.Arrays;
import java.util.List;

/** Cutting stacks down to what a user reads: the application's frames, not the agent's or the loop's plumbing. */
final class Stacks {
    private Stacks() {
    }

    /**
     * Where something was created, from a stack taken inside loop-core's constructor: the
     * agent's and loop-core's frames on top removed (the caller's frame comes first), and the
     * loop's frames at the bottom.
     */
    static List<StackTraceElement> creationSite(StackTraceElement[] frames) {
        int top = 0;
        while (top < frames.length && (Frame.isAgent(frames[top].getClassName()) || Frame.isLoopCore(frames[top].getClassName()))) {
            top++;
        }
        return LoopSnapshot.runningStack(Arrays.copyOfRange(frames, top, frames.length));
    }

    /** {@code frames} without the agent's own frames on top: the stack as the application made the call. */
    static StackTraceElement[] withoutAgent(StackTraceElement[] frames) {
        int top = 0;
        while (top < frames.length && Frame.isAgent(frames[top].getClassName())) {
            top++;
        }
        return top == 0 ? frames : Arrays.copyOfRange(frames, top, frames.length);
    }

    /**
     * A stack from the JDK method the application called down: the JDK's frames inside that call
     * (a park, a poller) removed, the called method kept. All of it if no frame is the application's.
     */
    static List<StackTraceElement> fromApplicationCall(List<StackTraceElement> stack) {
        int app = 0;
        while (app < stack.size() && Frame.isJdk(stack.get(app))) {
            app++;
        }
        return app == stack.size() ? stack : stack.subList(Math.max(0, app - 1), stack.size());
    }

    /**
     * True if {@code top}, a virtual thread's top frame, is the JDK parking, mounting or unmounting
     * it: the thread is between its own code and its carrier's, where no monitor of the
     * application's is entered, and where the JDK guards the thread's carrier with a lock of its
     * own, the one {@code Thread.getState()} holds while it asks that carrier.
     */
    static boolean isSwitchingThreads(StackTraceElement top) {
        String type = top.getClassName();
        return type.equals("java.lang.VirtualThread") || type.startsWith("java.lang.VirtualThread$")
                || type.startsWith("jdk.internal.vm.Continuation") || type.equals("java.util.concurrent.locks.LockSupport");
    }

    /**
     * True if {@code stack} is in the JVM's loading or initializing of a class: a class loader
     * finding or defining one, or a static initializer. That time is the JVM warming up, which the
     * watchdog does not count against a unit's limit.
     */
    static boolean isLoadingClasses(List<StackTraceElement> stack) {
        for (StackTraceElement frame : stack) {
            String method = frame.getMethodName();
            if (method.equals("<clinit>")) {
                return true;
            }
            String type = frame.getClassName();
            boolean loader = type.equals("java.lang.ClassLoader") || type.startsWith("jdk.internal.loader.")
                    || type.equals("java.net.URLClassLoader");
            if (loader && (method.startsWith("loadClass") || method.startsWith("defineClass") || method.startsWith("findClass"))) {
                return true;
            }
        }
        return false;
    }
}
