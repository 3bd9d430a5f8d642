package io.loopdiag.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A loop's table of unfinished tasks, written by one thread and listed by others. */
@Timeout(60)
class TaskTableTest {
    private final EventLoop loop = new EventLoop("table", LoopClock.virtual());
    private long ids;

    private Task<?> newTask() {
        return new Task<Void>(loop, ++ids, null, () -> null);
    }

    @Test
    void listsWhatWasAddedAndNotRemovedByIdThroughGrowingAndShrinking() {
        TaskTable table = new TaskTable();
        List<Task<?>> kept = new ArrayList<>();
        List<Task<?>> all = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            Task<?> task = newTask();
            table.add(task);
            all.add(task);
        }
        for (int i = 0; i < all.size(); i++) {
            if (i % 97 == 0) {
                kept.add(all.get(i));
            } else {
                table.remove(all.get(i));
                table.remove(all.get(i)); // a second removal does nothing
            }
        }
        assertEquals(kept, table.list(task -> true), "after shrinking from 10,000 slots");
        for (int i = 0; i < 50; i++) {
            Task<?> task = newTask();
            table.add(task); // into freed slots, out of id order
            kept.add(task);
        }
        assertEquals(kept, table.list(task -> true));
        assertEquals(kept.subList(0, 3), table.list(task -> task.id() <= kept.get(2).id()));
        kept.forEach(table::remove);
        assertEquals(List.of(), table.list(task -> true));
    }

    @Test
    void aReaderSeesEveryTaskThatStaysInTheTableWhileOthersComeAndGo() throws Exception {
        TaskTable table = new TaskTable();
        AtomicReference<List<Task<?>>> staying = new AtomicReference<>(List.of());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> missed = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            while (!stop.get() && missed.get() == null) {
                List<Task<?>> before = staying.get(); // each in the table before the listing and after it
                Set<Task<?>> seen = new HashSet<>(table.list(task -> true));
                if (!seen.containsAll(before)) {
                    missed.set("a listing of " + seen.size() + " tasks missed one of " + before.size() + " that stayed");
                }
            }
        });
        reader.start();
        // Each wave leaves a few tasks above thousands that come and go: the table grows past its
        // capacity and shrinks back, and the tasks that stay move to other slots each time.
        for (int wave = 0; wave < 200 && missed.get() == null; wave++) {
            List<Task<?>> churn = new ArrayList<>();
            List<Task<?>> stayed = new ArrayList<>(staying.get());
            for (int i = 0; i < 5_000; i++) {
                Task<?> task = newTask();
                table.add(task);
                (i % 1_000 == 999 ? stayed : churn).add(task);
            }
            staying.set(List.copyOf(stayed));
            churn.forEach(table::remove);
        }
        stop.set(true);
        reader.join();
        assertNull(missed.get());
        assertEquals(staying.get(), table.list(task -> true));
    }

    @Test
    void aKeptStackServesOnlyItsTaskInItsSuspensionAndNotAfterTheTableMoves() {
        TaskTable table = new TaskTable();
        Task<?> first = newTask();
        table.add(first);
        List<StackTraceElement> stack = List.of(new StackTraceElement("app.Service", "fetch", "Service.java", 12));
        assertNull(table.walkedStack(first, 1), "no dump has kept anything yet");
        table.keepWalked(first, 1, stack);
        assertSame(stack, table.walkedStack(first, 1));
        assertNull(table.walkedStack(first, 2), "the task ran since: its stack moved");

        int slot = first.slot;
        table.remove(first);
        Task<?> second = newTask();
        table.add(second);
        assertEquals(slot, second.slot, "into the slot the first one left");
        assertNull(table.walkedStack(second, 1), "another task in the same slot");

        table.keepWalked(second, 1, stack);
        List<Task<?>> more = new ArrayList<>();
        for (int i = 0; i < 100; i++) { // past the first capacity: the table is republished
            Task<?> task = newTask();
            table.add(task);
            more.add(task);
        }
        assertNull(table.walkedStack(second, 1), "a republished table starts without kept stacks");
        table.keepWalked(more.get(99), 1, stack);
        assertSame(stack, table.walkedStack(more.get(99), 1));
        more.forEach(table::remove);
        table.keepWalked(more.get(99), 1, stack); // removed: nothing is kept for it
        assertNull(table.walkedStack(more.get(99), 1));
    }
}
