package io.loopdiag.loop;

/**
 * A callback scheduled on a loop by {@link EventLoop#callSoon}. It runs at most once (an I/O
 * handle runs each time its channel is ready, until removed). Loop thread only, like the loop's
 * other methods.
 */
public class Handle {
    final EventLoop loop;
    Runnable callback; // null once cancelled, so a cancelled handle keeps nothing alive
    private boolean cancelled;

    Handle(EventLoop loop, Runnable callback) {
        this.loop = loop;
        this.callback = callback;
    }

    /** Prevents the callback from running if it has not run yet. Loop thread only. */
    public void cancel() {
        loop.checkThread();
        if (!cancelled) {
            cancelled = true;
            callback = null;
        }
    }

    public boolean isCancelled() {
        return cancelled;
    }

    /** The loop this handle belongs to. */
    public EventLoop loop() {
        return loop;
    }

    /** What the callback is, for logs and dumps: a task step names its task, a lambda its class. */
    public String describeCallback() {
        return describe(callback);
    }

    /** What {@code callback} is, as {@link #describeCallback} says it ({@link EventLoop#currentCallback}). */
    public static String describe(Object callback) {
        if (callback == null) {
            return "<cancelled>";
        }
        if (callback instanceof Task<?> task) {
            return "step of " + task;
        }
        String text = callback.toString();
        // A lambda's toString is Outer$$Lambda/0x...@hash: keep the class that wrote it.
        int lambda = text.indexOf("$$Lambda");
        return lambda > 0 ? text.substring(0, lambda) + " (lambda)" : text;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + describeCallback() + (cancelled ? ", cancelled" : "") + "]";
    }
}
