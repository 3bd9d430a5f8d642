package io.loopdiag.agent;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopSnapshot;
import io.loopdiag.loop.Task;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The JSON dump of every loop in this JVM ({@code schema: loopdiag-dump/1}), taken on the
 * agent's own thread from loop-core's snapshots: it neither stops nor waits for the loops, so a
 * stuck loop is dumped too. Durations are in milliseconds, measured on each loop's clock at the
 * moment its snapshot was taken.
 */
final class Dump {
    static final String SCHEMA = "loopdiag-dump/1";

    private Dump() {
    }

    /** The whole dump; {@code withStacks} false gives the cheap summary that {@code loopdiag list} shows. */
    static ObjectNode take(Detections detections, boolean withStacks) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("schema", SCHEMA);
        root.put("pid", ProcessHandle.current().pid());
        root.put("taken", Instant.now().toString());
        root.put("agentVersion", LoopdiagAgent.version());
        ArrayNode loops = root.putArray("loops");
        for (EventLoop loop : EventLoop.allLoops()) {
            writeLoop(loops.addObject(), loop, withStacks);
        }
        detections.writeTo(root.putObject("findings"));
        return root;
    }

    private static void writeLoop(ObjectNode node, EventLoop loop, boolean withStacks) {
        LoopSnapshot snapshot = loop.snapshot(withStacks);
        long now = snapshot.takenAtNanos();
        node.put("id", snapshot.loopId());
        node.put("name", snapshot.name());
        node.put("state", snapshot.state());
        node.put("thread", snapshot.threadName());
        node.put("readyCount", snapshot.readyCount());
        node.put("timerCount", snapshot.timerCount());
        node.put("dispatchCount", snapshot.dispatchCount());
        node.put("taskCount", snapshot.tasks().size());
        LoopSnapshot.RunningCallback running = snapshot.running();
        if (running == null) {
            node.putNull("running");
        } else {
            ObjectNode callback = node.putObject("running");
            callback.put("description", running.description());
            callback.put("runningMillis", millis(now - running.sinceNanos()));
            callback.put("taskId", running.taskId());
            frames(callback.putArray("stack"), running.stack());
        }
        if (!withStacks) {
            return;
        }
        Map<Long, Task<?>> tasksById = new HashMap<>();
        for (Task<?> task : loop.allTasks()) {
            tasksById.put(task.id(), task);
        }
        ArrayNode tasks = node.putArray("tasks");
        for (LoopSnapshot.TaskSnapshot task : snapshot.tasks()) {
            ObjectNode entry = tasks.addObject();
            entry.put("id", task.id());
            entry.put("name", task.name());
            entry.put("state", task.state());
            LoopSnapshot.Awaiting awaiting = task.awaiting();
            if (awaiting == null) {
                entry.putNull("awaiting");
            } else {
                ObjectNode waits = entry.putObject("awaiting");
                waits.put("kind", awaiting.kind());
                waits.put("description", awaiting.description());
                if (awaiting.taskId() >= 0) {
                    waits.put("taskId", awaiting.taskId());
                }
                if (awaiting.deadlineNanos() >= 0) {
                    waits.put("dueInMillis", millis(awaiting.deadlineNanos() - now));
                }
            }
            entry.put("suspendedMillis", task.state().equals("suspended") ? millis(now - task.suspendedSinceNanos()) : 0);
            frames(entry.putArray("stack"), task.stack());
            Task<?> live = tasksById.get(task.id());
            List<StackTraceElement> createdAt = live != null ? CreationSites.ofTask(live) : null;
            if (createdAt != null) {
                frames(entry.putArray("createdAt"), createdAt);
            } else {
                entry.putNull("createdAt");
            }
        }
    }

    private static void frames(ArrayNode array, List<StackTraceElement> frames) {
        for (StackTraceElement frame : frames) {
            array.add(frame.toString());
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(Math.max(0, nanos));
    }
}
