package io.loopdiag.loop.sync;

/** Thrown by {@link Queue#getNowait} when the queue is empty (asyncio's {@code QueueEmpty}). */
public class QueueEmptyException extends RuntimeException {
    public QueueEmptyException(String message) {
        super(message);
    }
}
