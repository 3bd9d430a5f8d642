package io.loopdiag.loop;

import io.loopdiag.protocol.AwaitKinds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The functions a task's code calls, asyncio's module-level API: {@code import static
 * io.loopdiag.loop.Async.*;} then {@code await(future)}, {@code sleep(Duration.ofSeconds(1))},
 * {@code gather(a, b)}. Those that suspend may be called only inside a task.
 */
public final class Async {
    private Async() {
    }

    /**
     * Suspends the current task until {@code future} is done, then returns its result or re-throws
     * its exception ({@link CancelledException} if it was cancelled, or if this task was
     * cancelled meanwhile).
     */
    public static <T> T await(Future<T> future) throws Exception {
        Task<?> task = Task.currentOrThrow("await");
        if (!future.isDone()) {
            task.awaitDone(future);
        }
        return future.result();
    }

    /** Runs {@code coroutine} to its end inside the current task and returns its result. */
    public static <T> T await(Coroutine<T> coroutine) throws Exception {
        Task.currentOrThrow("await");
        return coroutine.consume().call();
    }

    /**
     * Suspends the current task for {@code delay} on the loop's clock; a zero or negative delay
     * yields once, letting every other ready callback run first.
     */
    public static void sleep(Duration delay) throws Exception {
        Task<?> task = Task.currentOrThrow("sleep");
        if (delay.isZero() || delay.isNegative()) {
            task.yieldOnce();
            return;
        }
        EventLoop loop = task.loop;
        TimedFuture wakeUp = new TimedFuture(loop, AwaitKinds.TIMER, "sleep " + delay, null);
        wakeUp.timer = loop.callLater(delay, () -> {
            if (!wakeUp.isDone()) {
                wakeUp.setResult(null);
            }
        });
        try {
            await(wakeUp);
        } finally {
            wakeUp.timer.cancel();
        }
    }

    /** What a sleeping task awaits, or a waiting one with a timeout: dumps show the timer's deadline. */
    static final class TimedFuture extends Future<Void> {
        TimerHandle timer;

        TimedFuture(EventLoop loop, String awaitKind, String awaitLabel, Object awaitSubject) {
            super(loop, awaitKind, awaitLabel, awaitSubject);
        }
    }

    /** The running loop: the current task's, or the loop running on this thread. */
    public static EventLoop loop() {
        EventLoop loop = EventLoop.current();
        if (loop == null) {
            throw new IllegalStateException("no running event loop on thread '" + Thread.currentThread().getName() + "'");
        }
        return loop;
    }

    /** The task running the calling code, or null. */
    public static Task<?> currentTask() {
        return Task.current();
    }

    /** Starts {@code body} as a task on the running loop (asyncio's {@code create_task}). */
    public static <T> Task<T> createTask(String name, Coroutine.Body<T> body) {
        return loop().createTask(name, body);
    }

    public static <T> Task<T> createTask(Coroutine<T> coroutine) {
        return loop().createTask(coroutine);
    }

    /**
     * Runs blocking {@code work} on the loop's default worker pool and awaits it, so the loop
     * keeps running meanwhile (asyncio's {@code to_thread}).
     */
    public static <T> T toThread(Callable<T> work) throws Exception {
        Task.currentOrThrow("toThread");
        return await(loop().runInExecutor(null, work));
    }

    // ---- gather ---------------------------------------------------------------------------------

    /**
     * A future of the results of {@code futures}, in their order, once all are done. The first
     * failure fails it at once (the others keep running); cancelling it cancels them all.
     */
    @SafeVarargs
    @SuppressWarnings("varargs") // the array is only read, copied into a list
    public static <T> Future<List<T>> gather(Future<? extends T>... futures) {
        return gatherOn(loop(), Arrays.asList(futures), false);
    }

    /** Like {@link #gather(Future[])}; with {@code returnExceptions}, a failure takes its place in the list instead. */
    public static <T> Future<List<T>> gather(Collection<? extends Future<? extends T>> futures, boolean returnExceptions) {
        return gatherOn(loop(), futures, returnExceptions);
    }

    /** Makes a task of each coroutine and gathers them. */
    @SafeVarargs
    public static <T> Future<List<T>> gather(Coroutine<? extends T>... coroutines) {
        EventLoop loop = loop();
        List<Future<? extends T>> tasks = new ArrayList<>(coroutines.length);
        for (Coroutine<? extends T> coroutine : coroutines) {
            tasks.add(loop.createTask(coroutine));
        }
        return gatherOn(loop, tasks, false);
    }

    @SuppressWarnings("unchecked")
    static <T> Future<List<T>> gatherOn(EventLoop loop, Collection<? extends Future<? extends T>> futures, boolean returnExceptions) {
        List<Future<? extends T>> children = new ArrayList<>(futures);
        GatheringFuture<T> outer = new GatheringFuture<>(loop, children);
        if (children.isEmpty()) {
            outer.setResult(List.of());
            return outer;
        }
        int[] pending = {children.size()};
        for (Future<? extends T> child : children) {
            ((Future<T>) child).addDoneCallback(done -> {
                pending[0]--;
                if (outer.isDone()) {
                    if (!done.isCancelled()) {
                        done.exception(); // the outer failed already; this one's exception was seen by gather
                    }
                    return;
                }
                if (!returnExceptions) {
                    if (done.isCancelled()) {
                        outer.completeCancelled();
                        return;
                    }
                    Throwable failure = done.exception();
                    if (failure != null) {
                        outer.setException(failure);
                        return;
                    }
                }
                if (pending[0] == 0) {
                    List<T> results = new ArrayList<>(children.size());
                    for (Future<? extends T> each : children) {
                        results.add(outcomeOf((Future<T>) each));
                    }
                    if (outer.cancelRequested) {
                        outer.completeCancelled();
                    } else {
                        outer.setResult(results);
                    }
                }
            });
        }
        return outer;
    }

    @SuppressWarnings("unchecked")
    private static <T> T outcomeOf(Future<T> done) {
        if (done.isCancelled()) {
            return (T) new CancelledException(done.cancelMessage());
        }
        Throwable failure = done.exception();
        return failure != null ? (T) failure : getQuietly(done);
    }

    private static <T> T getQuietly(Future<T> done) {
        try {
            return done.result();
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** gather's result: cancelling it cancels the children, and it ends cancelled when they do. */
    private static final class GatheringFuture<T> extends Future<List<T>> {
        private final List<Future<? extends T>> children;
        boolean cancelRequested;

        GatheringFuture(EventLoop loop, List<Future<? extends T>> children) {
            super(loop, AwaitKinds.GATHER, "gather of " + children.size(), children);
            this.children = children;
        }

        @Override
        public boolean cancel(String message) {
            if (isDone()) {
                return false;
            }
            boolean any = false;
            for (Future<? extends T> child : children) {
                any |= child.cancel(message);
            }
            if (any) {
                cancelRequested = true; // the children's cancellation completes us
                return true;
            }
            return super.cancel(message);
        }

        void completeCancelled() {
            super.cancel(null);
        }
    }

    // ---- wait and asCompleted ------------------------------------------------------------------

    /** When {@link #wait(Collection, ReturnWhen, Duration)} returns (asyncio's constants of the same names). */
    public enum ReturnWhen {
        /** When any future is done. */
        FIRST_COMPLETED,
        /** When any future fails (not one cancelled), or when all are done. */
        FIRST_EXCEPTION,
        /** When all are done. */
        ALL_COMPLETED
    }

    /** What {@link #wait(Collection, ReturnWhen, Duration)} returns: its futures, done and pending, each in the order given. */
    public record DoneAndPending<F extends Future<?>>(Set<F> done, Set<F> pending) {
    }

    /**
     * Suspends until {@code returnWhen} holds for {@code futures}, or {@code timeout} (null: none)
     * has passed, and returns them split into done and pending (asyncio's {@code wait}). It neither
     * cancels a pending future nor raises a failed one's exception, which stays the caller's to
     * retrieve. Cancelling the waiting task leaves the futures running. A task awaiting it shows in
     * dumps as a wait of the tasks among them. Call it as {@code Async.wait}: every class inherits
     * {@code Object.wait}, which hides a static import of the name.
     *
     * @throws IllegalArgumentException if {@code futures} is empty
     */
    public static <F extends Future<?>> DoneAndPending<F> wait(Collection<F> futures, ReturnWhen returnWhen, Duration timeout)
            throws Exception {
        Task<?> task = Task.currentOrThrow("wait");
        Set<F> members = members(futures, task.loop, "wait");
        if (members.isEmpty()) {
            throw new IllegalArgumentException("wait needs at least one future");
        }
        String label = switch (returnWhen) {
            case FIRST_COMPLETED -> "wait for the first of ";
            case FIRST_EXCEPTION -> "wait for the first failure of ";
            case ALL_COMPLETED -> "wait for all of ";
        } + members.size();
        TimedFuture waiter = new TimedFuture(task.loop, AwaitKinds.WAIT, label, List.copyOf(members));
        int[] pending = {members.size()};
        Consumer<Future<?>> onDone = done -> {
            pending[0]--;
            boolean failed = !done.isCancelled() && done.peekException() != null;
            if (!waiter.isDone() && (pending[0] == 0 || returnWhen == ReturnWhen.FIRST_COMPLETED
                    || returnWhen == ReturnWhen.FIRST_EXCEPTION && failed)) {
                waiter.setResult(null);
            }
        };
        if (timeout != null) {
            waiter.timer = task.loop.callLater(timeout, () -> {
                if (!waiter.isDone()) {
                    waiter.setResult(null);
                }
            });
        }
        members.forEach(member -> addDoneCallback(member, onDone));
        try {
            await(waiter);
        } finally {
            if (waiter.timer != null) {
                waiter.timer.cancel();
            }
            members.forEach(member -> removeDoneCallback(member, onDone));
        }
        Set<F> done = new LinkedHashSet<>();
        Set<F> notDone = new LinkedHashSet<>();
        for (F member : members) {
            (member.isDone() ? done : notDone).add(member);
        }
        return new DoneAndPending<>(Collections.unmodifiableSet(done), Collections.unmodifiableSet(notDone));
    }

    /** {@link #wait(Collection, ReturnWhen, Duration)} without a timeout. */
    public static <F extends Future<?>> DoneAndPending<F> wait(Collection<F> futures, ReturnWhen returnWhen) throws Exception {
        return wait(futures, returnWhen, null);
    }

    /**
     * One future for each of {@code futures}, in the order they complete: the first completes with
     * the outcome (result, failure or cancellation) of the first of them to be done, and so on
     * (asyncio's {@code as_completed}, iterated without {@code async for}). Past {@code timeout}
     * (null: none), the ones not completed yet fail with {@link TimeoutException}; the futures
     * themselves keep running. On the loop's thread; a task awaiting one shows in dumps as a wait
     * of the tasks among them that still run.
     *
     * <pre>{@code
     * for (Future<String> next : asCompleted(fetches, Duration.ofSeconds(5))) {
     *     String page = await(next); // the earliest first
     * }
     * }</pre>
     */
    public static <T> List<Future<T>> asCompleted(Collection<? extends Future<? extends T>> futures, Duration timeout) {
        if (futures.isEmpty()) {
            return List.of();
        }
        EventLoop loop = futures.iterator().next().loop;
        List<Future<? extends T>> members = List.copyOf(members(futures, loop, "asCompleted"));
        int count = members.size();
        List<Future<T>> slots = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            slots.add(new Future<>(loop, AwaitKinds.AS_COMPLETED, "as completed: " + i + " of " + count, members));
        }
        int[] next = {0};
        TimerHandle[] timer = {null};
        Consumer<Future<? extends T>> onDone = done -> {
            if (next[0] < count) {
                copyOutcome(done, slots.get(next[0]++));
                if (next[0] == count && timer[0] != null) {
                    timer[0].cancel();
                }
            }
        };
        if (timeout != null) {
            timer[0] = loop.callLater(timeout, () -> {
                for (; next[0] < count; next[0]++) {
                    Future<T> slot = slots.get(next[0]);
                    slot.setException(new TimeoutException("as completed: none more within " + timeout));
                    slot.exception(); // a timeout is no lost failure when nobody awaits the rest
                }
                members.forEach(member -> removeDoneCallback(member, onDone));
            });
        }
        members.forEach(member -> addDoneCallback(member, onDone));
        return Collections.unmodifiableList(slots);
    }

    /** {@code futures} without repeats, in their order; each must be on {@code loop}. */
    private static <F extends Future<?>> Set<F> members(Collection<F> futures, EventLoop loop, String what) {
        Set<F> members = new LinkedHashSet<>(futures);
        for (F member : members) {
            if (member.loop != loop) {
                throw new IllegalArgumentException(what + ": " + member + " belongs to event loop '" + member.loop.name()
                        + "', not '" + loop.name() + "'");
            }
        }
        return members;
    }

    @SuppressWarnings("unchecked")
    private static <T> void addDoneCallback(Future<?> future, Consumer<? super Future<T>> callback) {
        ((Future<T>) future).addDoneCallback(callback);
    }

    @SuppressWarnings("unchecked")
    private static <T> void removeDoneCallback(Future<?> future, Consumer<? super Future<T>> callback) {
        ((Future<T>) future).removeDoneCallback(callback);
    }

    @SuppressWarnings("unchecked")
    private static <T> void copyOutcome(Future<? extends T> from, Future<T> to) {
        ((Future<T>) from).copyOutcomeTo(to);
    }

    // ---- timeouts and shield ----------------------------------------------------------------------

    /**
     * Awaits {@code future} for at most {@code timeout}; past it, cancels the future, waits for the
     * cancellation to finish and throws {@link TimeoutException} (asyncio's {@code wait_for}).
     */
    public static <T> T waitFor(Future<T> future, Duration timeout) throws Exception {
        return timeout(timeout, () -> await(future));
    }

    /** Runs {@code coroutine} as a task and waits for it for at most {@code timeout}. */
    public static <T> T waitFor(Coroutine<T> coroutine, Duration timeout) throws Exception {
        return waitFor(loop().createTask(coroutine), timeout);
    }

    /**
     * Runs {@code body} in the current task with a deadline: past it, the task is cancelled at its
     * suspension point and the cancellation surfaces from here as a {@link TimeoutException}
     * (asyncio's {@code async with timeout(...)}). A cancellation from elsewhere passes through.
     */
    public static <T> T timeout(Duration timeout, Coroutine.Body<T> body) throws Exception {
        Task<?> task = Task.currentOrThrow("timeout");
        EventLoop loop = task.loop;
        int cancellingAtEntry = task.cancelling();
        boolean[] expired = {false}; // true while our own cancellation request is outstanding
        TimerHandle timer = loop.callLater(timeout, () -> {
            if (!task.isDone()) {
                expired[0] = true;
                task.cancel("timeout");
            }
        });
        try {
            return body.call();
        } catch (CancelledException e) {
            if (expired[0]) {
                expired[0] = false;
                // Ours only if no other request (from outside, or an outer timeout) came meanwhile.
                if (task.uncancel() <= cancellingAtEntry) {
                    TimeoutException timedOut = new TimeoutException("timed out after " + timeout);
                    timedOut.initCause(e);
                    throw timedOut;
                }
            }
            throw e;
        } finally {
            timer.cancel();
            if (expired[0]) {
                task.uncancel(); // the body swallowed our cancellation: withdraw the request anyway
            }
        }
    }

    /**
     * A future that follows {@code inner} but whose cancellation does not cancel it: a task awaiting
     * the shield can be cancelled while the inner work goes on.
     */
    public static <T> Future<T> shield(Future<T> inner) {
        if (inner.isDone()) {
            return inner;
        }
        Future<T> outer = new Future<>(inner.loop, AwaitKinds.SHIELD, "shield of " + inner, inner);
        inner.addDoneCallback(done -> {
            if (outer.isCancelled()) {
                if (!done.isCancelled()) {
                    done.exception(); // nobody will ask the inner future now: do not call its exception lost
                }
                return;
            }
            done.copyOutcomeTo(outer);
        });
        return outer;
    }
}
