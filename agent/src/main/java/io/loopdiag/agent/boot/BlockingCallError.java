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
    }
}
