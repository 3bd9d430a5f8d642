package io.loopdiag.loop;

/**
 * What the loop knows about an exception nobody else could handle (asyncio's exception handler
 * context): a message, the exception, and the handle, future or task involved, each possibly null.
 */
public record ExceptionContext(String message, Throwable exception, Handle handle, Future<?> future, Task<?> task) {

    /** The message followed by whichever of handle, future and task are set, one per line. */
    public String describe() {
        StringBuilder text = new StringBuilder(message);
        if (handle != null) {
            text.append("\n  handle: ").append(handle);
        }
        if (task != null) {
            text.append("\n  task: ").append(task);
        } else if (future != null) {
            text.append("\n  future: ").append(future);
        }
        return text.toString();
    }
}
