package io.loopdiag.agent;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.agent.boot.LoopThread;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopSnapshot;
import io.loopdiag.loop.Task;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.LoopKinds;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.States;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JSON dump of every loop in this JVM ({@link Schemas#DUMP}), taken on the
 * agent's own thread from loop-core's snapshots: it neither stops nor waits for the loops, so a
 * stuck loop is dumped too. Written as a stream, task by task as their stacks are walked, so
 * that 100,000 tasks cost neither a tree nor a list of stacks in memory. Durations are in
 * milliseconds, measured on each loop's clock at the moment its snapshot was taken.
 */
final class Dump {
    private static volatile Watchdog watchdog;
    private static volatile LoopHealth health;
    private static volatile boolean loopCore;

    private Dump() {
    }

    /**
     * The watchdog that times the foreign loops' units and the loops' {@code statistics};
     * {@code withLoopCore} false: the JVM has no loop-core.
     */
    static void watch(Watchdog timing, LoopHealth loopHealth, boolean withLoopCore) {
        loopCore = withLoopCore;
        health = loopHealth;
        watchdog = timing;
    }

    /** Writes the whole dump to {@code out}; {@code withStacks} false gives the cheap summary that {@code loopdiag list} shows. */
    static void write(OutputStream out, Findings findings, boolean withStacks) throws IOException {
        try (JsonGenerator json = Json.FACTORY.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField(Fields.SCHEMA, Schemas.DUMP);
            json.writeNumberField(Fields.PID, ProcessHandle.current().pid());
            json.writeStringField(Fields.TAKEN, Instant.now().toString());
            json.writeStringField(Fields.AGENT_VERSION, LoopdiagAgent.version());
            json.writeArrayFieldStart(Fields.LOOPS);
            if (loopCore) {
                for (EventLoop loop : EventLoop.allLoops()) {
                    writeLoop(json, loop, withStacks);
                }
            }
            for (LoopThread loop : BlockingCheck.foreignLoops()) {
                writeForeignLoop(json, loop, withStacks);
            }
            json.writeEndArray();
            json.writeObjectFieldStart(Fields.FINDINGS);
            findings.writeTo(json);
            json.writeEndObject();
            json.writeEndObject();
        }
    }

    private static void writeLoop(JsonGenerator json, EventLoop loop, boolean withStacks) throws IOException {
        List<Task<?>> tasks = loop.allTasks();
        LoopSnapshot snapshot = LoopSnapshot.withoutTasks(loop, withStacks);
        long now = snapshot.takenAtNanos();
        json.writeStartObject();
        json.writeNumberField(Fields.ID, snapshot.loopId());
        json.writeStringField(Fields.KIND, LoopKinds.LOOP_CORE);
        json.writeStringField(Fields.NAME, snapshot.name());
        json.writeStringField(Fields.STATE, snapshot.state());
        json.writeStringField(Fields.THREAD, snapshot.threadName());
        json.writeNumberField(Fields.READY_COUNT, lessProbe(loop, snapshot.readyCount()));
        json.writeNumberField(Fields.TIMER_COUNT, snapshot.timerCount());
        json.writeNumberField(Fields.DISPATCH_COUNT, snapshot.dispatchCount());
        json.writeNumberField(Fields.TASK_COUNT, tasks.size());
        statistics(json, loop);
        LoopSnapshot.RunningCallback running = snapshot.running();
        if (running == null) {
            json.writeNullField(Fields.RUNNING);
        } else {
            json.writeObjectFieldStart(Fields.RUNNING);
            json.writeStringField(Fields.DESCRIPTION, running.description());
            json.writeNumberField(Fields.RUNNING_MILLIS, millis(now - running.sinceNanos()));
            json.writeNumberField(Fields.TASK_ID, running.taskId());
            frames(json, Fields.STACK, running.stack());
            json.writeEndObject();
        }
        if (withStacks) {
            json.writeArrayFieldStart(Fields.TASKS);
            RenderedStacks stacks = new RenderedStacks();
            LoopSnapshot.eachTask(tasks, ThreadStacks::of, (live, task) -> writeTask(json, task, live, now, stacks));
            json.writeEndArray();
        } else {
            longestWaiting(json, tasks, now);
        }
        json.writeEndObject();
    }

    /** How many tasks the summary names: those waiting longest, with what they await. */
    private static final int LONGEST_WAITING = 3;

    /** The summary's few tasks waiting longest, without stacks: what {@code loopdiag top} shows. */
    private static void longestWaiting(JsonGenerator json, List<Task<?>> tasks, long now) throws IOException {
        java.util.PriorityQueue<LoopSnapshot.TaskSnapshot> oldest = new java.util.PriorityQueue<>(
                java.util.Comparator.comparingLong(t -> -t.suspendedSinceNanos()));
        LoopSnapshot.eachTask(tasks, null, (live, task) -> {
            if (task.state().equals(States.SUSPENDED)) {
                oldest.add(task);
                if (oldest.size() > LONGEST_WAITING) {
                    oldest.poll(); // the one suspended last
                }
            }
        });
        List<LoopSnapshot.TaskSnapshot> longest = new java.util.ArrayList<>(oldest);
        longest.sort(java.util.Comparator.comparingLong(LoopSnapshot.TaskSnapshot::suspendedSinceNanos));
        json.writeArrayFieldStart(Fields.LONGEST_WAITING);
        for (LoopSnapshot.TaskSnapshot task : longest) {
            writeTask(json, task, null, now, new RenderedStacks());
        }
        json.writeEndArray();
    }

    /** What waits on the loop known by {@code key}, less the agent's own lag probe (see {@link LoopHealth#lessProbe}). */
    private static long lessProbe(Object key, long queued) {
        LoopHealth known = health;
        return known != null ? known.lessProbe(key, queued) : queued;
    }

    /** A loop's {@code statistics} as the agent's health numbers last rolled them; nothing before the first roll. */
    private static void statistics(JsonGenerator json, Object key) throws IOException {
        LoopHealth known = health;
        LoopStatistics loop = known != null ? known.of(key) : null;
        if (loop == null) {
            return;
        }
        json.writeObjectFieldStart(Fields.STATISTICS);
        json.writeNumberField(Fields.INTERVAL_MILLIS, loop.intervalMillis());
        json.writeNumberField(Fields.LAG_SAMPLES, loop.lagCount());
        json.writeNumberField(Fields.LAG_P50_MILLIS, loop.lagP50Millis());
        json.writeNumberField(Fields.LAG_P99_MILLIS, loop.lagP99Millis());
        json.writeNumberField(Fields.LAG_MAX_MILLIS, loop.lagMaxMillis());
        json.writeNumberField(Fields.UTILIZATION, loop.utilization());
        json.writeNumberField(Fields.UNITS_PER_SECOND, loop.unitsPerSecond());
        json.writeNumberField(Fields.SUSPENDED_TASKS, loop.suspendedTasks());
        json.writeObjectFieldStart(Fields.SUMMARY);
        for (var kind : loop.findingsByKind().entrySet()) {
            json.writeNumberField(kind.getKey(), kind.getValue());
        }
        json.writeEndObject();
        json.writeEndObject();
    }

    /**
     * A foreign loop: its thread, the unit it runs now with the thread's stack (how long it has
     * run, as the watchdog's samples tell), and what is queued on it where the loop says.
     */
    private static void writeForeignLoop(JsonGenerator json, LoopThread loop, boolean withStacks) throws IOException {
        Thread thread = loop.thread;
        String kind = loop.kind;
        Object work = loop.work;
        long units = loop.units;
        boolean hasUnits = ForeignLoops.hasUnits(loop);
        List<StackTraceElement> stack = List.of();
        Thread.State threadState = thread.getState();
        boolean running = hasUnits ? work != null : threadState == Thread.State.RUNNABLE || threadState == Thread.State.BLOCKED;
        String unhooked = null; // a unit begun before the agent was attached, known only by the stack
        if (hasUnits && work == null && loop.adopted) {
            StackTraceElement[] frames = thread.getStackTrace();
            unhooked = ForeignLoops.describeUnhooked(loop, frames);
            running = unhooked != null;
            stack = running && withStacks ? ForeignLoops.unitStack(frames) : List.of();
        } else if (running && withStacks) {
            StackTraceElement[] frames = thread.getStackTrace();
            stack = hasUnits ? ForeignLoops.unitStack(frames) : List.of(frames);
            running = hasUnits ? loop.work == work && loop.units == units : running;
        }
        long queued = 0;
        long scheduled = 0;
        long channels = -1;
        if (LoopKinds.AWT.equals(kind)) {
            queued = Math.max(0, AwtLoops.queued(loop.loop));
        } else if (hasUnits) {
            long[] counts = NettyLoops.counts(loop.loop);
            queued = Math.max(0, counts[0]);
            scheduled = Math.max(0, counts[1]);
            channels = counts[2];
        }
        json.writeStartObject();
        json.writeNumberField(Fields.ID, thread.threadId());
        json.writeStringField(Fields.KIND, kind);
        json.writeStringField(Fields.NAME, thread.getName());
        json.writeStringField(Fields.STATE, running ? States.RUNNING : States.IDLE);
        json.writeStringField(Fields.THREAD, thread.getName());
        json.writeNumberField(Fields.READY_COUNT, lessProbe(loop, queued));
        json.writeNumberField(Fields.TIMER_COUNT, scheduled);
        json.writeNumberField(Fields.DISPATCH_COUNT, units);
        json.writeNumberField(Fields.TASK_COUNT, 0);
        if (channels >= 0) {
            json.writeNumberField(Fields.CHANNEL_COUNT, channels);
        }
        statistics(json, loop);
        if (!running) {
            json.writeNullField(Fields.RUNNING);
        } else {
            Watchdog timing = watchdog;
            long ranNanos = timing != null && hasUnits && unhooked == null ? timing.runningNanos(loop, System.nanoTime()) : -1;
            json.writeObjectFieldStart(Fields.RUNNING);
            json.writeStringField(Fields.DESCRIPTION, unhooked != null ? unhooked : hasUnits ? ForeignLoops.describe(loop, work, stack)
                    : "thread " + threadState.name().toLowerCase(java.util.Locale.ROOT));
            json.writeNumberField(Fields.RUNNING_MILLIS, millis(ranNanos));
            json.writeNumberField(Fields.TASK_ID, -1);
            frames(json, Fields.STACK, stack);
            json.writeEndObject();
        }
        if (withStacks) {
            json.writeArrayFieldStart(Fields.TASKS);
            json.writeEndArray();
        }
        json.writeEndObject();
    }

    private static void writeTask(JsonGenerator json, LoopSnapshot.TaskSnapshot task, Task<?> live, long now, RenderedStacks stacks)
            throws IOException {
        json.writeStartObject();
        json.writeNumberField(Fields.ID, task.id());
        json.writeStringField(Fields.NAME, task.name());
        json.writeStringField(Fields.STATE, task.state());
        LoopSnapshot.Awaiting awaiting = task.awaiting();
        if (awaiting == null) {
            json.writeNullField(Fields.AWAITING);
        } else {
            json.writeObjectFieldStart(Fields.AWAITING);
            json.writeStringField(Fields.KIND, awaiting.kind());
            json.writeStringField(Fields.DESCRIPTION, awaiting.description());
            if (awaiting.taskId() >= 0) {
                json.writeNumberField(Fields.TASK_ID, awaiting.taskId());
            }
            if (awaiting.deadlineNanos() >= 0) {
                json.writeNumberField(Fields.DUE_IN_MILLIS, millis(awaiting.deadlineNanos() - now));
            }
            json.writeArrayFieldStart(Fields.WAITS_ON);
            for (long id : awaiting.waitsOn()) {
                json.writeNumber(id);
            }
            json.writeEndArray();
            if (awaiting.worker() != null) {
                json.writeObjectFieldStart(Fields.WORKER);
                json.writeStringField(Fields.NAME, awaiting.worker().name());
                json.writeNumberField(Fields.ID, awaiting.worker().threadId());
                json.writeStringField(Fields.STATE, awaiting.worker().state());
                frames(json, Fields.STACK, awaiting.worker().stack());
                json.writeEndObject();
            }
            if (awaiting.size() >= 0) {
                json.writeNumberField(Fields.SIZE, awaiting.size());
            }
            if (awaiting.io() != null) {
                json.writeStringField(Fields.DIRECTION, awaiting.io().direction());
                json.writeStringField(Fields.CHANNEL, awaiting.io().channel());
            }
            json.writeEndObject();
        }
        json.writeNumberField(Fields.SUSPENDED_MILLIS, task.state().equals(States.SUSPENDED) ? millis(now - task.suspendedSinceNanos()) : 0);
        json.writeFieldName(Fields.STACK);
        json.writeRawValue(stacks.of(task.stack()));
        List<StackTraceElement> createdAt = live != null ? CreationSites.ofTask(live) : null;
        if (createdAt != null) {
            frames(json, Fields.CREATED_AT, createdAt);
        } else {
            json.writeNullField(Fields.CREATED_AT);
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

    /**
     * Tasks' stacks rendered as JSON arrays, by the identity of their frame list: a snapshot
     * shares one list among the tasks suspended at the same place ({@link LoopSnapshot#eachTask}),
     * so a dump of 100,000 tasks suspended in a few places renders a few stacks, not 100,000,
     * and writes each task's as one piece (bench/README.md). One per loop written; at most
     * {@link #MAX_KEPT} lists kept.
     */
    private static final class RenderedStacks {
        private static final int MAX_KEPT = 4_096;
        private final IdentityHashMap<List<StackTraceElement>, SerializedString> rendered = new IdentityHashMap<>();

        SerializedString of(List<StackTraceElement> frames) throws IOException {
            SerializedString known = rendered.get(frames);
            if (known == null) {
                java.io.StringWriter text = new java.io.StringWriter();
                try (JsonGenerator array = Json.FACTORY.createGenerator(text)) {
                    array.writeStartArray();
                    for (StackTraceElement frame : frames) {
                        array.writeString(frame.toString());
                    }
                    array.writeEndArray();
                }
                known = new SerializedString(text.toString());
                if (rendered.size() < MAX_KEPT) {
                    rendered.put(frames, known);
                }
            }
            return known;
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(Math.max(0, nanos));
    }
}
