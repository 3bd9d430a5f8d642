package io.loopdiag.agent;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopSnapshot;
import io.loopdiag.loop.Task;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JSON dump of every loop in this JVM ({@code schema: loopdiag-dump/1}), taken on the
 * agent's own thread from loop-core's snapshots: it neither stops nor waits for the loops, so a
 * stuck loop is dumped too. Written as a stream, task by task as their stacks are walked, so
 * that 100,000 tasks cost neither a tree nor a list of stacks in memory. Durations are in
 * milliseconds, measured on each loop's clock at the moment its snapshot was taken.
 */
final class Dump {
    static final String SCHEMA = "loopdiag-dump/1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private Dump() {
    }

    /** Writes the whole dump to {@code out}; {@code withStacks} false gives the cheap summary that {@code loopdiag list} shows. */
    static void write(OutputStream out, Detections detections, boolean withStacks) throws IOException {
        try (JsonGenerator json = JSON.getFactory().createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("schema", SCHEMA);
            json.writeNumberField("pid", ProcessHandle.current().pid());
            json.writeStringField("taken", Instant.now().toString());
            json.writeStringField("agentVersion", LoopdiagAgent.version());
            json.writeArrayFieldStart("loops");
            for (EventLoop loop : EventLoop.allLoops()) {
                writeLoop(json, loop, withStacks);
            }
            json.writeEndArray();
            ObjectNode findings = JSON.createObjectNode();
            detections.writeTo(findings);
            json.writeFieldName("findings");
            json.writeTree(findings);
            json.writeEndObject();
        }
    }

    private static void writeLoop(JsonGenerator json, EventLoop loop, boolean withStacks) throws IOException {
        List<Task<?>> tasks = loop.allTasks();
        LoopSnapshot snapshot = LoopSnapshot.withoutTasks(loop, withStacks);
        long now = snapshot.takenAtNanos();
        json.writeStartObject();
        json.writeNumberField("id", snapshot.loopId());
        json.writeStringField("name", snapshot.name());
        json.writeStringField("state", snapshot.state());
        json.writeStringField("thread", snapshot.threadName());
        json.writeNumberField("readyCount", snapshot.readyCount());
        json.writeNumberField("timerCount", snapshot.timerCount());
        json.writeNumberField("dispatchCount", snapshot.dispatchCount());
        json.writeNumberField("taskCount", tasks.size());
        LoopSnapshot.RunningCallback running = snapshot.running();
        if (running == null) {
            json.writeNullField("running");
        } else {
            json.writeObjectFieldStart("running");
            json.writeStringField("description", running.description());
            json.writeNumberField("runningMillis", millis(now - running.sinceNanos()));
            json.writeNumberField("taskId", running.taskId());
            frames(json, "stack", running.stack());
            json.writeEndObject();
        }
        if (withStacks) {
            json.writeArrayFieldStart("tasks");
            LoopSnapshot.eachTask(tasks, true, (live, task) -> writeTask(json, task, live, now));
            json.writeEndArray();
        }
        json.writeEndObject();
    }

    private static void writeTask(JsonGenerator json, LoopSnapshot.TaskSnapshot task, Task<?> live, long now) throws IOException {
        json.writeStartObject();
        json.writeNumberField("id", task.id());
        json.writeStringField("name", task.name());
        json.writeStringField("state", task.state());
        LoopSnapshot.Awaiting awaiting = task.awaiting();
        if (awaiting == null) {
            json.writeNullField("awaiting");
        } else {
            json.writeObjectFieldStart("awaiting");
            json.writeStringField("kind", awaiting.kind());
            json.writeStringField("description", awaiting.description());
            if (awaiting.taskId() >= 0) {
                json.writeNumberField("taskId", awaiting.taskId());
            }
            if (awaiting.deadlineNanos() >= 0) {
                json.writeNumberField("dueInMillis", millis(awaiting.deadlineNanos() - now));
            }
            json.writeEndObject();
        }
        json.writeNumberField("suspendedMillis", task.state().equals("suspended") ? millis(now - task.suspendedSinceNanos()) : 0);
        frames(json, "stack", task.stack());
        List<StackTraceElement> createdAt = live != null ? CreationSites.ofTask(live) : null;
        if (createdAt != null) {
            frames(json, "createdAt", createdAt);
        } else {
            json.writeNullField("createdAt");
        }
        json.writeEndObject();
    }

    private static void frames(JsonGenerator json, String field, List<StackTraceElement> frames) throws IOException {
        json.writeArrayFieldStart(field);
        for (StackTraceElement frame : frames) {
            json.writeString(frame.toString());
        }
        json.writeEndArray();
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(Math.max(0, nanos));
    }
}
