package io.loopdiag.loop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

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
 */
final class TaskTable {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Task[].class);
    private static final int MIN_CAPACITY = 16;

    private volatile Task<?>[] slots = new Task<?>[MIN_CAPACITY];
    /** Slots below this index have been handed out; free ones among them are on {@link #free}. */
    private int used;
    private int[] free = new int[MIN_CAPACITY];
    private int freeCount;

    void add(Task<?> task) {
        Task<?>[] table = slots;
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
        Task<?>[] table = slots;
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
    List<Task<?>> list(java.util.function.Predicate<? super Task<?>> keep) {
        Task<?>[] table = slots;
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

    /** Packs the live tasks into a new table of {@code capacity} slots and publishes it. */
    private Task<?>[] republish(Task<?>[] table, int capacity) {
        Task<?>[] packed = new Task<?>[capacity];
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
        slots = packed;
        return packed;
    }
}
