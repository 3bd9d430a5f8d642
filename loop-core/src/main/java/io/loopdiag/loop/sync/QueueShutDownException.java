package io.loopdiag.loop.sync;

/** Thrown by a put into a queue that was shut down, and by a get once it is also empty (asyncio's {@code QueueShutDown}). */
public class QueueShutDownException extends RuntimeException {
    public QueueShutDownException(String message) {
        super(message);
    }
}
