package io.loopdiag.loop.sync;

/** Thrown by {@link Queue#putNowait} when a bounded queue is full (asyncio's {@code QueueFull}). */
public class QueueFullException extends RuntimeException {
    public QueueFullException(String message) {
        super(message);
    }
}
