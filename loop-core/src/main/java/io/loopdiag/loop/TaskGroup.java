package io.loopdiag.loop;

import io.loopdiag.protocol.AwaitKinds;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Structured concurrency (asyncio's {@code TaskGroup}): {@link #run} runs a body that starts child
 * tasks, then waits for every child. The first child to fail cancels its siblings and the body,
 * and once all have finished that failure is re-thrown with the other failures attached as
 * suppressed exceptions. Lives on the task that called {@code run}.
 */
public final class TaskGroup {

    /** The code run inside a group. */
    @FunctionalInterface
    public interface Body<T> {
        T call(TaskGroup group) throws Exception;
    }

    private final Task<?> parent;
    private final Set<Task<?>> children = new LinkedHashSet<>();
    private final List<Throwable> errors = new ArrayList<>();
    private boolean exiting;
    private boolean aborting;
    private boolean parentCancelRequested;
    private Future<Void> allDone;

    private TaskGroup(Task<?> parent) {
        this.parent = parent;
    }

    /** Runs {@code body} with a new group in the current task, waits for its children, returns the body's result. */
    public static <T> T run(Body<T> body) throws Exception {
        TaskGroup group = new TaskGroup(Task.currentOrThrow("TaskGroup.run"));
        T result = null;
        Throwable bodyFailure = null;
        try {
            result = body.call(group);
        } catch (Throwable t) {
            bodyFailure = t;
        }
        return group.exit(result, bodyFailure);
    }

    /** Starts a child task; refused once the group is finishing or aborting. */
    public <T> Task<T> createTask(String name, Coroutine.Body<T> body) {
        return createTask(Coroutine.of(name, body));
    }

    public <T> Task<T> createTask(Coroutine<T> coroutine) {
        if (aborting) {
            throw new IllegalStateException("task group is shutting down after a failure");
        }
        if (exiting && children.isEmpty()) {
            throw new IllegalStateException("task group is finished");
        }
        Task<T> task = parent.loop.createTask(coroutine);
        children.add(task);
        task.addDoneCallback(this::onChildDone);
        return task;
    }

    /** The children still running, for dumps: any thread, so a copy that may miss one that started or ended meanwhile. */
    List<Task<?>> runningChildren() {
        try {
            return List.copyOf(children);
        } catch (RuntimeException moving) { // changed under the copy: the next dump sees it
            return List.of();
        }
    }

    private void onChildDone(Future<?> done) {
        children.remove((Task<?>) done);
        if (exiting && children.isEmpty() && allDone != null && !allDone.isDone()) {
            allDone.setResult(null);
        }
        if (done.isCancelled()) {
            return;
        }
        Throwable failure = done.exception();
        if (failure == null) {
            return;
        }
        errors.add(failure);
        if (!aborting && !parentCancelRequested) {
            abort();
            parentCancelRequested = true;
            parent.cancel("a task of its group failed");
        }
    }

    private void abort() {
        aborting = true;
        for (Task<?> child : children) {
            child.cancel();
        }
    }

    private <T> T exit(T result, Throwable bodyFailure) throws Exception {
        exiting = true;
        CancelledException propagate = null;
        if (bodyFailure != null) {
            if (!aborting) {
                abort();
            }
            if (bodyFailure instanceof CancelledException cancelled && !parentCancelRequested) {
                propagate = cancelled; // cancelled from outside: pass it on after the children end
            }
        }
        while (!children.isEmpty()) {
            allDone = new Future<>(parent.loop, AwaitKinds.GROUP, "task group", this);
            try {
                Async.await(allDone);
            } catch (CancelledException cancelled) {
                if (!parentCancelRequested) {
                    propagate = cancelled;
                    abort();
                }
            }
        }
        allDone = null;
        if (parentCancelRequested) {
            parent.uncancel();
        }
        if (propagate != null && errors.isEmpty()) {
            throw propagate;
        }
        if (bodyFailure != null && !(bodyFailure instanceof CancelledException)) {
            errors.add(0, bodyFailure);
        }
        if (!errors.isEmpty()) {
            Throwable first = errors.get(0);
            for (Throwable other : errors.subList(1, errors.size())) {
                if (other != first) {
                    first.addSuppressed(other);
                }
            }
            throw Future.rethrowable(first);
        }
        if (bodyFailure != null) {
            throw Future.rethrowable(bodyFailure);
        }
        return result;
    }
}
