package io.loopdiag.loop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/**
 * A loop's tasks that have not finished, for {@link EventLoop#allTasks}: each task holds the
 * index of its slot, so adding and removing one allocates nothing and costs no hash. Written
 * only by the thread holding the loop's baton (tasks are created and finish there); read by any
 * thread. A slot, once written, changes only to null or to a newer task, and a table that grows
 * or shrinks is copied whole before it is published, so a reader sees every task that was in the
 * table for the whole of its read.
 *
 * <p>The table holds its tasks strongly until they finish. That keeps no more alive than the JDK
 * does: a suspended task's thread is reachable from the JDK's thread container anyway, and a task
 * before its first step from the loop's ready queue; a closed loop's table goes with the loop.
 *
 * <p>Beside its tasks the table keeps the suspension stacks dumps walked ({@link #walkedStack}),
 * slot by slot, so that a task holds no reference to one: a dump of 100,000 old tasks that stored
 * a young stack on each would dirty a card of the old generation per task, and the young
 * collections the dump brings on would scan them all while the loop waits (docs/decisions.md).
 */
final class TaskTable {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Task[].class);
    private static final VarHandle WALKED_SLOT = MethodHandles.arrayElementVarHandle(WalkedStack[].class);
    private static final VarHandle WALKED;
    private static final int MIN_CAPACITY = 16;

    static {
        try {
            WALKED = MethodHandles.lookup().findVarHandle(Slots.class, "walked", WalkedStack[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * One published table: its tasks, and the stacks dumps walked of them, by the same slots.
     * The stacks are made by the first dump that keeps one; a table republished (grown or shrunk)
     * starts without them, its tasks having moved.
     */
    private static final class Slots {
        final Task<?>[] tasks;
        volatile WalkedStack[] walked;

        Slots(int capacity) {
            tasks = new Task<?>[capacity];
        }
    }

    /** A suspension stack a dump walked, of the task with {@code taskId} in its {@code suspension}th suspension. */
    private record WalkedStack(long taskId, int suspension, List<StackTraceElement> frames) {
    }

    private volatile Slots slots = new Slots(MIN_CAPACITY);
    /** Slots below this index have been handed out; free ones among them are on {@link #free}. */
    private int used;
    private int[] free = new int[MIN_CAPACITY];
    private int freeCount;

    void add(Task<?> task) {
        Task<?>[] table = slots.tasks;
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            if (used == table.length) {
                table = republish(table, table.length * 2);
            }
            slot = used++;
        }
        task.slot = slot;
        SLOT.setRelease(table, slot, task);
    }

    void remove(Task<?> task) {
        int slot = task.slot;
        if (slot < 0) {
            return;
        }
        task.slot = -1;
        Task<?>[] table = slots.tasks;
        SLOT.setRelease(table, slot, (Task<?>) null);
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = slot;
        int live = used - freeCount;
        if (table.length > MIN_CAPACITY && live < table.length / 4) {
            republish(table, Math.max(MIN_CAPACITY, table.length / 2));
        }
    }

    /** The tasks in the table that {@code keep} accepts, by id. Any thread. */
    List<Task<?>> list(Predicate<? super Task<?>> keep) {
        Task<?>[] table = slots.tasks;
        List<Task<?>> tasks = new ArrayList<>();
        for (int i = 0; i < table.length; i++) {
            Task<?> task = (Task<?>) SLOT.getAcquire(table, i);
            if (task != null && keep.test(task)) {
                tasks.add(task);
            }
        }
        tasks.sort(Comparator.comparingLong(Task::id));
        return tasks;
    }

    /**
     * The stack a dump kept for {@code task} in its {@code suspension}th suspension, or null if
     * none was kept then (or the table moved the task since). Any thread.
     */
    List<StackTraceElement> walkedStack(Task<?> task, int suspension) {
        WalkedStack[] walked = slots.walked;
        int slot = task.slot;
        if (walked == null || slot < 0 || slot >= walked.length) {
            return null;
        }
        WalkedStack kept = (WalkedStack) WALKED_SLOT.getAcquire(walked, slot);
        return kept != null && kept.taskId == task.id() && kept.suspension == suspension ? kept.frames : null;
    }

    /**
     * Keeps {@code frames}, walked in {@code task}'s {@code suspension}th suspension, for the next
     * dump. Any thread: a task moved meanwhile keeps nothing, or a stack under another task's slot
     * that the id check of {@link #walkedStack} then refuses.
     */
    void keepWalked(Task<?> task, int suspension, List<StackTraceElement> frames) {
        Slots table = slots;
        int slot = task.slot;
        if (slot < 0 || slot >= table.tasks.length) {
            return;
        }
        WalkedStack[] walked = table.walked;
        if (walked == null) {
            WALKED.compareAndSet(table, null, new WalkedStack[table.tasks.length]);
            walked = table.walked;
        }
        WALKED_SLOT.setRelease(walked, slot, new WalkedStack(task.id(), suspension, frames));
    }

    /** Packs the live tasks into a new table of {@code capacity} slots and publishes it. */
    private Task<?>[] republish(Task<?>[] table, int capacity) {
        Slots published = new Slots(capacity);
        Task<?>[] packed = published.tasks;
        int next = 0;
        for (int i = 0; i < used; i++) {
            Task<?> task = table[i];
            if (task != null) {
                task.slot = next;
                packed[next++] = task;
            }
        }
        used = next;
        freeCount = 0;
        if (free.length > capacity) {
            free = new int[capacity];
        }
        slots = published;
        return packed;
    }
}
