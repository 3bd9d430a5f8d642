package io.loopdiag.loop;

import io.loopdiag.protocol.AwaitKinds;
import java.util.ArrayList;
import java.util.function.Consumer;

/**
 * A result that will exist: pending, then finished with a result or an exception, or cancelled.
 * Done callbacks are scheduled on the loop with {@code callSoon} when the future completes, never
 * run inline. Loop thread (or a task of the loop) only, except the {@code is*} queries.
 *
 * <p>A future remembers whether its exception was ever asked for ({@link #result()},
 * {@link #exception()}): one that failed and was dropped unasked is asyncio's "exception was never
 * retrieved", which the agent reports.
 */
public class Future<T> {
    // state values: PENDING until completed; then CANCELLED, FINISHED or FAILED; RETRIEVED is a flag on top of FAILED
    private static final int PENDING = 0;
    private static final int CANCELLED = 1;
    private static final int FINISHED = 2;
    private static final int FAILED = 3;
    private static final int DONE_MASK = 3;
    private static final int RETRIEVED = 4;

    final EventLoop loop;
    /** One of the states above, and whether a failure's exception was asked for. */
    private int state = PENDING;
    /**
     * What the state says: the result (FINISHED), the exception (FAILED), the cancellation's message
     * (CANCELLED, or a pending task's requested one, see {@link #holdCancelMessage}). One field for
     * the three, and the flag in {@code state}, keep a future at 40 bytes, not 56.
     */
    private Object outcome;
    private Object callbacks; // null, one waiter (see addWaiter), or an ArrayList of them: most futures have one
    /** What kind of thing a task awaiting this future waits for ({@link AwaitKinds}), and what exactly, for dumps. */
    final String awaitKind;
    final String awaitLabel;
    /** What a dump follows from a task awaiting this future to the tasks it waits on, or null: see {@link #awaitSubject()}. */
    private final Object awaitSubject;

    /** A pending future on {@code loop}; {@link EventLoop#createFuture()} is the usual way. */
    public Future(EventLoop loop) {
        this(loop, AwaitKinds.FUTURE, null, null);
    }

    /**
     * A pending future whose awaiters are shown in dumps as waiting on a thing of {@code awaitKind}
     * ({@link AwaitKinds#IO}, {@link AwaitKinds#QUEUE}), described by {@code awaitLabel} ("read /127.0.0.1:8080").
     */
    public Future(EventLoop loop, String awaitKind, String awaitLabel) {
        this(loop, awaitKind, awaitLabel, null);
    }

    /**
     * As above, with what the wait is on, which dumps follow to the tasks it waits for: a
     * {@link io.loopdiag.loop.sync.Lock} (its holder), a {@link io.loopdiag.loop.sync.Semaphore}
     * (the holders of its permits), a {@link io.loopdiag.loop.sync.Condition} (its lock's holder),
     * a {@link io.loopdiag.loop.sync.Queue} (its size), a collection of futures (a gather's), a
     * future (a shield's inner one), an {@link IoWait}; or null.
     */
    public Future(EventLoop loop, String awaitKind, String awaitLabel, Object awaitSubject) {
        this.loop = loop;
        this.awaitKind = awaitKind;
        this.awaitLabel = awaitLabel;
        this.awaitSubject = awaitSubject;
    }

    /** What the wait on this future is on, as given at creation, or null; read by {@link LoopSnapshot}. */
    final Object awaitSubject() {
        return awaitSubject;
    }

    /** The kind of thing awaiting this future means waiting for ({@link AwaitKinds}). */
    public String awaitKind() {
        return awaitKind;
    }

    /** What awaiting this future means waiting for, or null for a plain future. */
    public String awaitLabel() {
        return awaitLabel;
    }

    public final EventLoop loop() {
        return loop;
    }

    public final boolean isDone() {
        return state != PENDING;
    }

    public final boolean isCancelled() {
        return state == CANCELLED;
    }

    private int done() {
        return state & DONE_MASK;
    }

    private void markRetrieved() {
        if (state == FAILED) {
            state = FAILED | RETRIEVED;
        }
    }

    /** Finishes the future with a result. Throws {@link InvalidStateException} if already done. */
    public void setResult(T value) {
        loop.checkThread();
        checkPending();
        outcome = value;
        state = FINISHED;
        scheduleCallbacks();
    }

    /** Finishes the future with an exception. Throws {@link InvalidStateException} if already done. */
    public void setException(Throwable failure) {
        loop.checkThread();
        if (failure == null) {
            throw new NullPointerException("exception");
        }
        if (failure instanceof CancelledException) {
            throw new IllegalArgumentException("use cancel(), not setException(CancelledException)");
        }
        checkPending();
        outcome = failure;
        state = FAILED;
        scheduleCallbacks();
    }

    /** Cancels a pending future and schedules its callbacks; false if it was already done. */
    public boolean cancel() {
        return cancel(null);
    }

    public boolean cancel(String message) {
        loop.checkThread();
        if (state != PENDING) {
            markRetrieved(); // cancelling is a way of saying "I don't need the exception"
            return false;
        }
        outcome = message;
        state = CANCELLED;
        scheduleCallbacks();
        return true;
    }

    /**
     * The result, or the failure re-thrown as it was set ({@link CancelledException} if
     * cancelled, {@link InvalidStateException} if still pending). Counts as retrieving the
     * exception.
     */
    @SuppressWarnings("unchecked")
    public T result() throws Exception {
        if (state == CANCELLED) {
            throw new CancelledException((String) outcome);
        }
        if (state == PENDING) {
            throw new InvalidStateException("result is not set yet");
        }
        if (done() == FAILED) {
            markRetrieved();
            throw rethrowable((Throwable) outcome);
        }
        return (T) outcome;
    }

    /** The exception, or null if it finished normally; counts as retrieving it. */
    public Throwable exception() {
        if (state == CANCELLED) {
            throw new CancelledException((String) outcome);
        }
        if (state == PENDING) {
            throw new InvalidStateException("exception is not set yet");
        }
        markRetrieved();
        return peekException();
    }

    /**
     * True if the future failed and nobody has asked for its exception (nor cancelled it): the
     * condition asyncio logs as "exception was never retrieved" when such a future is collected.
     */
    public final boolean hasUnretrievedException() {
        return state == FAILED;
    }

    /** The exception without counting as retrieval, for diagnostics; null if none. */
    public final Throwable peekException() {
        return done() == FAILED ? (Throwable) outcome : null;
    }

    /**
     * Calls {@code callback} with this future on the loop once it is done (next iteration if it is
     * done already). Loop thread only.
     */
    public void addDoneCallback(Consumer<? super Future<T>> callback) {
        addWaiter(new DoneCallback<>(this, callback));
    }

    /** Removes every registration of {@code callback}; returns how many were removed. */
    public int removeDoneCallback(Consumer<? super Future<T>> callback) {
        loop.checkThread();
        return removeMatching(r -> r instanceof DoneCallback<?> d && d.callback == callback);
    }

    /**
     * Schedules {@code waiter} when done, as {@link EventLoop#schedule} takes it: a {@code Runnable},
     * or a {@link Task} to step, which a task awaiting this future is woken with, no object made.
     */
    final void addWaiter(Object waiter) {
        loop.checkThread();
        if (state != PENDING) {
            loop.schedule(waiter);
        } else if (callbacks == null) {
            callbacks = waiter;
        } else if (callbacks instanceof ArrayList<?> list) {
            @SuppressWarnings("unchecked") ArrayList<Object> waiters = (ArrayList<Object>) list;
            waiters.add(waiter);
        } else {
            ArrayList<Object> list = new ArrayList<>(4);
            list.add(callbacks);
            list.add(waiter);
            callbacks = list;
        }
    }

    final int removeWaiter(Object waiter) {
        return removeMatching(w -> w == waiter);
    }

    private int removeMatching(java.util.function.Predicate<Object> matches) {
        if (callbacks == null) {
            return 0;
        }
        if (callbacks instanceof ArrayList<?> list) {
            int before = list.size();
            list.removeIf(matches);
            return before - list.size();
        }
        if (matches.test(callbacks)) {
            callbacks = null;
            return 1;
        }
        return 0;
    }

    private void scheduleCallbacks() {
        Object pending = callbacks;
        callbacks = null;
        if (pending instanceof ArrayList<?> list) {
            for (Object waiter : list) {
                loop.schedule(waiter);
            }
        } else if (pending != null) {
            loop.schedule(pending);
        }
    }

    private void checkPending() {
        if (state != PENDING) {
            throw new InvalidStateException(this + " is already done");
        }
    }

    /** Copies this future's outcome into {@code other} if it is still pending. */
    final void copyOutcomeTo(Future<T> other) {
        if (other.isDone()) {
            return;
        }
        if (state == CANCELLED) {
            other.cancel((String) outcome);
        } else if (done() == FAILED) {
            markRetrieved();
            other.setException((Throwable) outcome);
        } else {
            @SuppressWarnings("unchecked") T result = (T) outcome;
            other.setResult(result);
        }
    }

    /** The message of a cancellation: the one done, or, on a pending task, the one requested (see {@link #holdCancelMessage}). */
    final String cancelMessage() {
        return state == CANCELLED || state == PENDING ? (String) outcome : null;
    }

    /**
     * Keeps a pending task's requested cancellation message until the cancellation happens, in the
     * field that then holds it.
     */
    final void holdCancelMessage(String message) {
        if (state == PENDING) {
            outcome = message;
        }
    }

    /** A checked exception is re-thrown as it is; a bare Throwable (neither Exception nor Error) is wrapped. */
    static Exception rethrowable(Throwable failure) {
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure instanceof Exception e) {
            return e;
        }
        return new java.util.concurrent.CompletionException(failure);
    }

    /** The state as dumps show it: pending, cancelled, failed or finished. */
    public String stateName() {
        return switch (state) {
            case PENDING -> "pending";
            case CANCELLED -> "cancelled";
            case FINISHED -> "finished";
            default -> "failed";
        };
    }

    @Override
    public String toString() {
        return awaitLabel != null ? "Future[" + stateName() + ", " + awaitLabel + "]" : UNLABELLED[state];
    }

    /** What {@link #toString} says of a future without a label, by state: a dump asks it of every task awaiting one. */
    private static final String[] UNLABELLED = {"Future[pending]", "Future[cancelled]", "Future[finished]", "Future[failed]"};

    private record DoneCallback<T>(Future<T> future, Consumer<? super Future<T>> callback) implements Runnable {
        @Override
        public void run() {
            callback.accept(future);
        }

        @Override
        public String toString() {
            return "done callback " + Handle.describe(callback) + " of " + future;
        }
    }
}
