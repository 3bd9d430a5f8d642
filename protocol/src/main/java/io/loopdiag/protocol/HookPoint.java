package io.loopdiag.protocol;

/**
 * A method of loop-core that the agent weaves advice into or that loop-core's snapshots cut
 * stacks at, named by its class and method name. {@link LoopCoreHooks} lists them; loop-core's
 * tests check each still exists, and the agent's self-check says at start which one matched no
 * method, so a rename cannot silently end a detection.
 */
public record HookPoint(String className, String method) {
    /** The method name of a constructor, as the JVM names it. */
    public static final String CONSTRUCTOR = "<init>";

    /** True if {@code frame} is a call of this method. */
    public boolean is(StackTraceElement frame) {
        return frame.getMethodName().equals(method) && frame.getClassName().equals(className);
    }

    /** {@code io.loopdiag.loop.EventLoop#dispatch}. */
    @Override
    public String toString() {
        return className + "#" + method;
    }
}
