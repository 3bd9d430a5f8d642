package io.loopdiag.loop;

import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.protocol.States;

/**
 * A coroutine being driven by its loop; a task is a {@link Future} of the coroutine's result.
 * The coroutine runs on a virtual thread of the task's own, made with the task (so it inherits the
 * creating code's inheritable thread-locals and context class loader, as an asyncio task copies
 * its creator's context) and started at the first step; each step runs it from where it suspended
 * to its next {@linkplain Async#await await}, while the loop waits for the baton to come back. A
 * suspended task's stack is its thread's stack.
 *
 * <p>{@link #cancel} follows asyncio: if the task awaits a future, that future is cancelled and
 * the {@link CancelledException} surfaces at the await; otherwise it is thrown at the task's next
 * suspension point. A task that catches it and finishes normally has refused the cancellation.
 */
public final class Task<T> extends Future<T> {
    private final long id;
    private final String name;
    private final Coroutine.Body<T> body;
    /** This task's slot in its loop's {@link TaskTable}, or -1 when it is not in it. */
    int slot = -1;

    /** Made with the task, on the thread creating it; started at the first step. */
    private final Thread thread;
    private boolean started;
    /** The future this task is suspended on, or null when it runs, is ready to run, or is done. */
    volatile Future<?> waitingOn;
    private volatile boolean suspended;
    private long suspendedSinceNanos;
    /** How many times the task has suspended: its stack changes only between two of them. */
    private int suspensions;
    private boolean mustCancel;
    private int cancelRequests;

    Task(EventLoop loop, long id, String name, Coroutine.Body<T> body) {
        super(loop, AwaitKinds.TASK, null);
        this.id = id;
        this.name = name;
        this.body = body;
        this.thread = loop.baton.newTaskThread(name());
    }

    /** The task running the calling code, or null if the caller is not inside a task. */
    public static Task<?> current() {
        return Baton.currentTask();
    }

    static Task<?> currentOrThrow(String what) {
        Task<?> task = Baton.currentTask();
        if (task == null) {
            throw new IllegalStateException(what + " can only be called inside a task (EventLoop.createTask, EventLoop.run)");
        }
        return task;
    }

    /** This task's id, unique within its loop. */
    public long id() {
        return id;
    }

    /** The task's name: the one given at creation, or {@code Task-ID}. */
    public String name() {
        return name != null ? name : "Task-" + id;
    }

    /**
     * Requests cancellation (see the class comment); false if the task is already done. Loop
     * thread only.
     */
    @Override
    public boolean cancel(String message) {
        loop.checkThread();
        if (isDone()) {
            return false;
        }
        cancelRequests++;
        Future<?> awaited = waitingOn;
        if (awaited != null && awaited.cancel(message)) {
            return true; // the cancelled future wakes us and its result() throws at the await
        }
        mustCancel = true;
        holdCancelMessage(message);
        return true;
    }

    /** How many cancellation requests are outstanding (asyncio's {@code cancelling()}). */
    public int cancelling() {
        return cancelRequests;
    }

    /** Withdraws one cancellation request, as a timeout does when it turns its own into a TimeoutException. */
    public int uncancel() {
        if (cancelRequests > 0) {
            cancelRequests--;
            if (cancelRequests == 0) {
                mustCancel = false;
            }
        }
        return cancelRequests;
    }

    /** Tasks complete themselves; asyncio refuses this too. */
    @Override
    public void setResult(T value) {
        throw new UnsupportedOperationException("a task's result is its coroutine's return value");
    }

    @Override
    public void setException(Throwable failure) {
        throw new UnsupportedOperationException("a task's exception is its coroutine's exception");
    }

    /** The thread running this task's coroutine, or null before the first step and after the last. */
    public Thread thread() {
        return started && !isDone() ? thread : null;
    }

    /** True while the task is parked at an await or a yield, waiting to be stepped. */
    public boolean isSuspended() {
        return suspended;
    }

    /** The loop clock when the task last suspended (approximate: see {@link EventLoop#clockStampNanos()}). */
    public long suspendedSinceNanos() {
        return suspendedSinceNanos;
    }

    /** Which suspension the task is in: read it after {@link #isSuspended()}, which publishes it. */
    int suspensions() {
        return suspensions;
    }

    /** The future this task awaits now, or null. */
    public Future<?> awaiting() {
        return waitingOn;
    }

    // ---- stepping (loop side) -------------------------------------------------------------------

    /** One step: run the coroutine until it suspends or finishes. On the loop's thread, inside a dispatch like any callback. */
    void step() {
        if (isDone()) {
            return;
        }
        if (!started) {
            if (mustCancel) {
                mustCancel = false;
                finishCancelled(cancelMessage());
                return;
            }
            started = true;
            loop.baton.runTaskStep(this, thread, true);
        } else if (suspended) {
            loop.baton.runTaskStep(this, thread, false);
        }
    }

    /** The first step, run inside {@code createTask} by the thread holding the baton (an eager task). */
    void stepEagerly() {
        started = true;
        loop.baton.runEagerStep(this, thread);
    }

    /** Whether a step would start this task's thread (not finish it cancelled, not skip it). */
    boolean isStartable() {
        return !started && !mustCancel && !isDone();
    }

    /**
     * The first step begins: the baton goes to the task's thread, to be started. Called by the
     * thread handing it the baton, for {@link Baton#handBack}'s direct start.
     */
    void beginFirstStep() {
        started = true;
    }

    /** Whether a step would resume this task's parked thread (not start it, not skip a finished task). */
    boolean isResumable() {
        return suspended && !isDone();
    }

    // ---- the coroutine's own thread ---------------------------------------------------------------

    /** Runs the coroutine to its end, on the task's thread once it holds the baton ({@link Baton#taskThreadBody}). */
    void runCoroutine() {
        T value = null;
        Throwable failure = null;
        boolean cancelled = false;
        String cancelMessage = null;
        try {
            value = body.call();
        } catch (CancelledException e) {
            cancelled = true;
            cancelMessage = e.getMessage();
        } catch (Throwable t) {
            failure = t;
        }
        try {
            if (cancelled || (failure == null && mustCancel)) {
                finishCancelled(cancelled ? cancelMessage : cancelMessage());
            } else if (failure != null) {
                super.setException(failure);
            } else {
                super.setResult(value);
            }
        } finally {
            // Whatever happened, the baton goes back: a loop waiting for it forever is a hung loop.
            loop.tasks.remove(this);
            loop.baton.handBack();
        }
    }

    private void finishCancelled(String message) {
        super.cancel(message);
        loop.tasks.remove(this);
    }

    /** Suspends until {@code future} is done; on the task's thread, holding the baton. */
    void awaitDone(Future<?> future) {
        if (future == this) {
            throw new IllegalStateException("task '" + name() + "' cannot await itself");
        }
        if (future.loop != loop) {
            throw new IllegalStateException(future + " belongs to another event loop than task '" + name() + "'");
        }
        if (mustCancel && future.cancel(cancelMessage())) {
            mustCancel = false; // the cancellation now travels through the future
        }
        waitingOn = future;
        future.addWaiter(this);
        try {
            beginSuspension();
            loop.baton.awaitBaton();
            endSuspension();
        } finally {
            waitingOn = null;
        }
    }

    /** Lets every other ready callback run once, then continues (asyncio's {@code sleep(0)}). */
    void yieldOnce() {
        loop.schedule(this);
        beginSuspension();
        loop.baton.awaitBaton();
        endSuspension();
    }

    /**
     * The task suspends: it gives the baton back, and its caller then parks in {@link Baton#awaitBaton}
     * itself. Not one method that parks too: every method between the task's code and the park is a
     * frame that each suspended task keeps and each dump walks (docs/decisions.md).
     */
    private void beginSuspension() {
        suspendedSinceNanos = loop.clockStampNanos();
        suspensions++;
        suspended = true;
        loop.baton.handBack();
    }

    /** The task holds the baton again; a cancellation requested meanwhile is thrown here. */
    private void endSuspension() {
        suspended = false;
        if (mustCancel) {
            mustCancel = false;
            throw new CancelledException(cancelMessage());
        }
    }

    /** The state as dumps show it: new, running, suspended, or the future's done states. */
    @Override
    public String stateName() {
        if (isDone()) {
            return super.stateName();
        }
        if (!started) {
            return States.NEW;
        }
        return suspended ? States.SUSPENDED : States.RUNNING;
    }

    @Override
    public String toString() {
        return "Task[" + name() + " #" + id + ", " + stateName() + "]";
    }
}
