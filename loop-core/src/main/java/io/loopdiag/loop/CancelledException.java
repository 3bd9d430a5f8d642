package io.loopdiag.loop;

import java.util.concurrent.CancellationException;

/**
 * Thrown at a task's suspension point when the task is cancelled, and by {@link Future#result()}
 * of a cancelled future (asyncio's {@code CancelledError}). A task may catch it to clean up; it
 * should re-throw it unless it means to refuse the cancellation.
 */
public class CancelledException extends CancellationException {
    public CancelledException(String message) {
        super(message);
    }
}
