package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.LoopKinds;
import io.loopdiag.protocol.States;
import io.loopdiag.views.Views;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What did not move across several dumps of one JVM, and why: the judgement of {@code loopdiag
 * hang}. A loop is <b>stuck</b> when every dump finds it in the same unit of work (a callback, a
 * Netty task, an AWT event) and it started no other meanwhile. A task is <b>moving</b> when its
 * stack or its wait changed between the dumps; one that did not move is followed along what it
 * waits on ({@link AwaitGraph}) to the end of that chain, which decides: a cycle, a loop held in
 * one callback, a worker thread that did not move, or a lock whose holder ended make it
 * <b>stuck</b>; a timer, I/O, a queue, an event or a plain future, on a loop that is free, make it
 * <b>idle</b> (a server waiting for its next client is idle, not stuck); a chain that reaches a
 * moving task is <b>moving</b>.
 */
final class Hang {
    /** What a loop or a task was found to be. */
    enum Verdict { STUCK, IDLE, MOVING }

    /** A loop's verdict: {@code reason} in words, {@code where} the application frame of the unit it is held in. */
    record LoopVerdict(JsonNode loop, Verdict verdict, String reason, String where) {
    }

    /**
     * A task's verdict, with the chain of what it waits on: each step a task and the relation that
     * led there, the first the task itself (relation null); {@code end} says where the chain ends.
     */
    record TaskVerdict(JsonNode loop, JsonNode task, Verdict verdict, List<Step> chain, String end, String where) {
        /** True for the task whose step a stuck loop is held in: the loop's own verdict names it. */
        boolean holdsItsLoop() {
            return chain.size() == 1 && end.startsWith(HOLDS_THE_LOOP);
        }
    }

    private static final String HOLDS_THE_LOOP = "runs the callback its loop has been held in";

    /** One step of a chain: {@code task}, reached from the previous step by a wait of kind {@code relation}. */
    record Step(String relation, long id, JsonNode task) {
    }

    private final List<JsonNode> dumps;
    private final JsonNode last;
    private final List<LoopVerdict> loops = new ArrayList<>();
    private final List<TaskVerdict> tasks = new ArrayList<>();

    private Hang(List<JsonNode> dumps) {
        this.dumps = List.copyOf(dumps);
        this.last = dumps.get(dumps.size() - 1);
        judge();
    }

    /** The judgement of {@code dumps} (two or more, of one JVM, oldest first). */
    static Hang of(List<JsonNode> dumps) {
        if (dumps.size() < 2) {
            throw new IllegalArgumentException("at least two dumps are needed to see what did not move");
        }
        return new Hang(dumps);
    }

    /** Every loop of the last dump, the stuck first. */
    List<LoopVerdict> loops() {
        return loops;
    }

    /** Every task of the last dump's loops, the stuck first, then the idle, then the moving; each longest waiting first. */
    List<TaskVerdict> tasks() {
        return tasks;
    }

    /** True if a loop or a task is stuck: {@code hang}'s exit code 1. */
    boolean isStuck() {
        return loops.stream().anyMatch(l -> l.verdict() == Verdict.STUCK) || tasks.stream().anyMatch(t -> t.verdict() == Verdict.STUCK);
    }

    private void judge() {
        Map<Long, LoopVerdict> byLoop = new LinkedHashMap<>();
        for (JsonNode loop : last.path(Fields.LOOPS)) {
            LoopVerdict verdict = judgeLoop(loop);
            byLoop.put(loop.path(Fields.ID).asLong(), verdict);
            loops.add(verdict);
        }
        for (JsonNode loop : last.path(Fields.LOOPS)) {
            new LoopTasks(loop, byLoop.get(loop.path(Fields.ID).asLong())).judgeAll(tasks);
        }
        Comparator<Verdict> order = Comparator.naturalOrder();
        loops.sort(Comparator.comparing(LoopVerdict::verdict, order));
        tasks.sort(Comparator.comparing(TaskVerdict::verdict, order)
                .thenComparing(Comparator.comparingLong((TaskVerdict t) -> t.task().path(Fields.SUSPENDED_MILLIS).asLong()).reversed()));
    }

    /** The same loop in each dump (by id and name), oldest first; null where a dump lacks it. */
    private List<JsonNode> samplesOf(JsonNode loop) {
        List<JsonNode> samples = new ArrayList<>();
        for (JsonNode dump : dumps) {
            JsonNode found = null;
            for (JsonNode each : dump.path(Fields.LOOPS)) {
                if (each.path(Fields.ID).asLong() == loop.path(Fields.ID).asLong()
                        && each.path(Fields.NAME).asText().equals(loop.path(Fields.NAME).asText())) {
                    found = each;
                }
            }
            samples.add(found);
        }
        return samples;
    }

    /**
     * Stuck when every dump has it running the same unit, started before the first dump, and it
     * started no other since (its dispatch count did not move); a thread without units (Reactor's,
     * a named one) when every dump has it running at the same stack.
     */
    private LoopVerdict judgeLoop(JsonNode loop) {
        List<JsonNode> samples = samplesOf(loop);
        JsonNode first = samples.get(0);
        JsonNode running = loop.path(Fields.RUNNING);
        String where = running.isObject() ? Views.applicationFrame(running.path(Fields.STACK), Views.kind(loop)) : "";
        if (!running.isObject()) {
            boolean moved = samples.stream().anyMatch(s -> s == null || s.path(Fields.RUNNING).isObject()
                    || s.path(Fields.DISPATCH_COUNT).asLong() != loop.path(Fields.DISPATCH_COUNT).asLong());
            return new LoopVerdict(loop, moved ? Verdict.MOVING : Verdict.IDLE, moved ? "ran callbacks" : "waits for work", "");
        }
        boolean same = samples.stream().allMatch(s -> s != null && s.path(Fields.RUNNING).isObject()
                && s.path(Fields.RUNNING).path(Fields.DESCRIPTION).asText().equals(running.path(Fields.DESCRIPTION).asText())
                && s.path(Fields.DISPATCH_COUNT).asLong() == loop.path(Fields.DISPATCH_COUNT).asLong());
        if (!LoopKinds.hasUnits(Views.kind(loop))) {
            same &= samples.stream().allMatch(s -> s.path(Fields.RUNNING).path(Fields.STACK).equals(running.path(Fields.STACK)));
        }
        if (!same || first == null) {
            return new LoopVerdict(loop, Verdict.MOVING, "ran callbacks", where);
        }
        long millis = running.path(Fields.RUNNING_MILLIS).asLong();
        String reason = LoopKinds.hasUnits(Views.kind(loop))
                ? "has been held in one unit of work" + (millis >= 0 ? " for " + Views.duration(millis) : "") + ": "
                        + running.path(Fields.DESCRIPTION).asText()
                : "its thread stayed at the same stack: " + running.path(Fields.DESCRIPTION).asText();
        return new LoopVerdict(loop, Verdict.STUCK, reason, where);
    }

    /** The tasks of one loop, each judged once (a chain's verdict is its end's). */
    private final class LoopTasks {
        private final JsonNode loop;
        private final LoopVerdict loopVerdict;
        private final AwaitGraph graph;
        private final List<JsonNode> samples;
        private final Map<Long, TaskVerdict> judged = new HashMap<>();
        private final List<Long> onPath = new ArrayList<>();

        LoopTasks(JsonNode loop, LoopVerdict loopVerdict) {
            this.loop = loop;
            this.loopVerdict = loopVerdict;
            this.graph = AwaitGraph.of(loop);
            this.samples = samplesOf(loop);
        }

        void judgeAll(List<TaskVerdict> into) {
            for (long id : graph.tasks().keySet()) {
                into.add(judge(id));
            }
        }

        private TaskVerdict judge(long id) {
            TaskVerdict known = judged.get(id);
            if (known != null) {
                return known;
            }
            JsonNode task = graph.task(id);
            String where = Views.applicationFrame(task.path(Fields.STACK));
            TaskVerdict verdict;
            if (onPath.contains(id)) {
                // A cycle: every task on it is stuck; the chain closes at this task.
                verdict = new TaskVerdict(loop, task, Verdict.STUCK, List.of(new Step(null, id, task)), "a cycle", where);
                return verdict; // not kept: the task's own judgement, from its start, is made where it began
            }
            onPath.add(id);
            try {
                verdict = judgeStill(id, task, where);
            } finally {
                onPath.remove(onPath.size() - 1);
            }
            judged.put(id, verdict);
            return verdict;
        }

        private TaskVerdict judgeStill(long id, JsonNode task, String where) {
            Step self = new Step(null, id, task);
            boolean loopStuck = loopVerdict.verdict() == Verdict.STUCK;
            JsonNode running = loop.path(Fields.RUNNING);
            boolean holdsTheLoop = running.isObject() && running.path(Fields.TASK_ID).asLong() == id;
            if (holdsTheLoop && loopStuck) {
                return new TaskVerdict(loop, task, Verdict.STUCK, List.of(self), HOLDS_THE_LOOP + held(), where);
            }
            if (moved(id)) {
                return new TaskVerdict(loop, task, Verdict.MOVING, List.of(self), "moved between the dumps", where);
            }
            JsonNode awaiting = task.path(Fields.AWAITING);
            List<AwaitGraph.Edge> edges = graph.edgesFrom(id);
            if (edges.isEmpty()) {
                return ownWait(task, self, awaiting, loopStuck, where);
            }
            // Gather and group need every target; a semaphore any one of its holders; the rest have one.
            boolean needsAll = !AwaitKinds.SEMAPHORE.equals(awaiting.path(Fields.KIND).asText());
            TaskVerdict deciding = null;
            for (AwaitGraph.Edge edge : edges) {
                TaskVerdict target = graph.task(edge.to()) == null
                        ? new TaskVerdict(loop, null, Verdict.STUCK, List.of(new Step(edge.relation(), edge.to(), null)),
                                "a holder that ended without releasing it", "")
                        : judge(edge.to());
                if (deciding == null || (needsAll ? target.verdict().compareTo(deciding.verdict()) < 0
                        : target.verdict().compareTo(deciding.verdict()) > 0)) {
                    deciding = target;
                }
            }
            List<Step> chain = new ArrayList<>();
            chain.add(self);
            for (Step step : deciding.chain()) {
                chain.add(chain.size() == 1 ? new Step(graph.relation(id, step.id()), step.id(), step.task()) : step);
            }
            Verdict verdict = deciding.verdict() == Verdict.IDLE && loopStuck ? Verdict.STUCK : deciding.verdict();
            return new TaskVerdict(loop, task, verdict, List.copyOf(chain), deciding.end(), where);
        }

        /** A task whose wait is on no task: its own wait decides. */
        private TaskVerdict ownWait(JsonNode task, Step self, JsonNode awaiting, boolean loopStuck, String where) {
            if (!awaiting.isObject()) {
                // Running or new: it moves when its loop does.
                return new TaskVerdict(loop, task, loopStuck ? Verdict.STUCK : Verdict.MOVING, List.of(self),
                        loopStuck ? "is ready, on a loop held in one callback" + held() : "is ready to run", where);
            }
            String kind = awaiting.path(Fields.KIND).asText();
            if (kind.equals(AwaitKinds.WORKER)) {
                JsonNode worker = awaiting.path(Fields.WORKER);
                boolean workerMoved = samples.stream().anyMatch(s -> {
                    JsonNode then = taskIn(s, self.id());
                    return then == null || !then.path(Fields.AWAITING).path(Fields.WORKER).path(Fields.STACK).equals(worker.path(Fields.STACK));
                });
                if (worker.isObject() && !workerMoved) {
                    String workerAt = Views.applicationFrame(worker.path(Fields.STACK));
                    return new TaskVerdict(loop, task, Verdict.STUCK, List.of(self), "a worker thread that did not move: '"
                            + worker.path(Fields.NAME).asText() + "' (" + worker.path(Fields.STATE).asText() + ")"
                            + (workerAt.isEmpty() ? "" : " at " + workerAt), where);
                }
                return new TaskVerdict(loop, task, Verdict.MOVING, List.of(self), "a worker thread at work", where);
            }
            String what = Views.awaiting(task);
            if (loopStuck) {
                return new TaskVerdict(loop, task, Verdict.STUCK, List.of(self), what + ", on a loop held in one callback" + held(), where);
            }
            return new TaskVerdict(loop, task, Verdict.IDLE, List.of(self), what, where);
        }

        private String held() {
            return loopVerdict.where().isEmpty() ? "" : " (at " + loopVerdict.where() + ")";
        }

        /** True if task {@code id}'s state, stack or wait changed between the dumps, or it is missing from one. */
        private boolean moved(long id) {
            JsonNode now = graph.task(id);
            for (JsonNode sample : samples) {
                JsonNode then = taskIn(sample, id);
                if (then == null || !then.path(Fields.STATE).asText().equals(now.path(Fields.STATE).asText())
                        || !then.path(Fields.STACK).equals(now.path(Fields.STACK)) || !sameWait(then, now)) {
                    return true;
                }
            }
            return !now.path(Fields.STATE).asText().equals(States.SUSPENDED) && loopVerdict.verdict() != Verdict.STUCK;
        }

        private JsonNode taskIn(JsonNode sampledLoop, long id) {
            if (sampledLoop == null) {
                return null;
            }
            for (JsonNode task : sampledLoop.path(Fields.TASKS)) {
                if (task.path(Fields.ID).asLong() == id) {
                    return task;
                }
            }
            return null;
        }
    }

    /** The same wait: its kind, what it is on, and its words, its timing aside. */
    private static boolean sameWait(JsonNode a, JsonNode b) {
        JsonNode x = a.path(Fields.AWAITING);
        JsonNode y = b.path(Fields.AWAITING);
        return x.isObject() == y.isObject() && x.path(Fields.KIND).asText().equals(y.path(Fields.KIND).asText())
                && x.path(Fields.DESCRIPTION).asText().equals(y.path(Fields.DESCRIPTION).asText())
                && Objects.equals(Views.waitsOn(a), Views.waitsOn(b));
    }
}
