package io.loopdiag.agent.boot;

/**
 * Thrown at a blocking call made on a loop thread when the agent runs with
 * {@code blocking=throw}. An {@link Error}, like BlockHound's, so that a {@code catch (Exception e)}
 * in the application does not swallow it by accident.
 */
public final class BlockingCallError extends Error {
    private static final long serialVersionUID = 1L;

    public BlockingCallError(String message) {
        super(message);
        // Start the stack at the blocking call: the agent's own frames above it say nothing.
        StackTraceElement[] frames = getStackTrace();
        int first = 0;
        while (first < frames.length && frames[first].getClassName().startsWith("io.loopdiag.agent.")) {
            first++;
        }
        setStackTrace(java.util.Arrays.copyOfRange(frames, first, frames.length));
    }
}
