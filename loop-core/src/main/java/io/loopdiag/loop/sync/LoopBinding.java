package io.loopdiag.loop.sync;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Task;

/**
 * The loop a primitive belongs to, bound lazily like asyncio's {@code _LoopBoundMixin}: a
 * primitive can be made before any loop runs, and is bound to the loop of the first task that
 * waits on it. Methods that never wait (the {@code *Nowait} ones, {@code release}) need no loop.
 */
final class LoopBinding {
    private final String owner;
    private EventLoop loop; // null until a task first waits

    LoopBinding(String owner) {
        this.owner = owner;
    }

    /**
     * The loop of the calling task, binding to it on first use. Throws IllegalStateException if
     * the caller is not a task (waiting means suspending a task) or is a task of another loop;
     * {@code operation} ("queue get") names what was called, for that message.
     */
    /** Throws unless the caller may use the bound loop now; nothing to check before the first wait binds it. */
    void checkThread() {
        EventLoop bound = loop;
        if (bound != null) {
            bound.checkThread();
        }
    }

    EventLoop loopOfCurrentTask(String operation) {
        Task<?> task = Task.current();
        if (task == null) {
            throw new IllegalStateException(operation + " may suspend, so it can only be called inside a task");
        }
        EventLoop running = task.loop();
        if (loop == null) {
            loop = running;
        } else if (loop != running) {
            throw new IllegalStateException("this " + owner + " is bound to event loop '" + loop.name()
                    + "'; it was used from a task of '" + running.name() + "'");
        }
        return running;
    }
}
