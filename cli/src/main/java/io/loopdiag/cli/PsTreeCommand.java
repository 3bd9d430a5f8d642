package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.States;
import io.loopdiag.protocol.Text;
import io.loopdiag.views.Views;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag pstree PID}: per loop, who waits on whom ({@link AwaitGraph}): under each task,
 * what its wait is on, down to what that waits for: the awaited task, a gather's or a group's
 * children, a shield's inner task, a lock's or a semaphore's holders, each with the frame it is
 * at. Tasks waiting at the same frame on the same thing are one line with their count. Every
 * cycle (tasks awaiting each other, a lock deadlock) is printed where it closes, and the rest of
 * the tree too; the exit code is then 1, as for any finding. A foreign loop (a Netty event loop,
 * the AWT event thread...) has no tasks: under it, the unit of work it runs now.
 */
@Command(name = "pstree", mixinStandardHelpOptions = true,
        header = "Prints who waits on whom in each loop (awaits, gathers, groups, locks); finds wait cycles.",
        description = "Exit codes: 0 no cycle, 1 a cycle (or the JVM cannot be dumped), 2 bad usage.")
final class PsTreeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target;

    @Option(names = "--wide", description = "never cut a line, even on a terminal (what a pipe or a file gets anyway)")
    boolean wide;

    @Option(names = "--json", description = "print the graph as JSON: nodes, edges with their relation, cycles (schema "
            + Schemas.PSTREE + ")")
    boolean json;

    @Override
    public Integer call() throws Exception {
        return Verbs.runWith(spec, target, (dump, out) -> {
            if (json) {
                ObjectNode graph = graph(dump);
                Json.print(graph, out);
                return hasCycle(graph) ? ExitCodes.FINDINGS_OR_FAILURE : ExitCodes.OK;
            }
            return print(dump, out, Terminal.width(wide));
        });
    }

    /** The view of {@code dump}, cut to {@code width}; returns the exit code: 1 when it finds a cycle. */
    static int print(JsonNode dump, PrintWriter out, int width) {
        int cycles = 0;
        for (JsonNode loop : dump.path(Fields.LOOPS)) {
            AwaitGraph graph = AwaitGraph.of(loop);
            if (Views.isForeign(loop)) {
                printForeignLoop(out, loop, graph.tasks().isEmpty(), width);
            } else {
                out.printf("loop '%s' #%d (%s)%n", Text.printable(loop.path(Fields.NAME).asText()), loop.path(Fields.ID).asLong(),
                        loop.path(Fields.STATE).asText());
            }
            Tree tree = new Tree(graph, out, width);
            List<List<Long>> items = tree.grouped(graph.roots());
            // Tasks on cycles that no root leads to: each cycle from its first task.
            Set<Long> reachable = reachable(graph, graph.roots());
            for (List<Long> cycle : graph.cycles()) {
                if (!reachable.contains(cycle.get(0))) {
                    items.add(List.of(cycle.get(0)));
                    reachable.addAll(reachable(graph, List.of(cycle.get(0))));
                }
            }
            for (int i = 0; i < items.size(); i++) {
                tree.print(items.get(i), "", i == items.size() - 1, new ArrayList<>());
            }
            cycles += graph.cycles().size();
        }
        return cycles > 0 ? ExitCodes.FINDINGS_OR_FAILURE : ExitCodes.OK;
    }

    /** The tasks {@code from} lead to, themselves included. */
    private static Set<Long> reachable(AwaitGraph graph, List<Long> from) {
        Set<Long> seen = new HashSet<>();
        List<Long> todo = new ArrayList<>(from);
        while (!todo.isEmpty()) {
            long id = todo.remove(todo.size() - 1);
            if (graph.task(id) != null && seen.add(id)) {
                graph.edgesFrom(id).forEach(edge -> todo.add(edge.to()));
            }
        }
        return seen;
    }

    /** The printing of one loop's tree: what is printed already, so that a task shown twice is a reference. */
    private static final class Tree {
        private final AwaitGraph graph;
        private final PrintWriter out;
        private final int width;
        private final Set<Long> printed = new HashSet<>();

        Tree(AwaitGraph graph, PrintWriter out, int width) {
            this.graph = graph;
            this.out = out;
            this.width = width;
        }

        /**
         * {@code ids} in their order, those that wait at the same frame on the same thing (in the
         * same state) together: Go's dumps group goroutines with one stack the same way.
         */
        List<List<Long>> grouped(List<Long> ids) {
            Map<String, List<Long>> groups = new LinkedHashMap<>();
            for (long id : ids) {
                groups.computeIfAbsent(signature(id), key -> new ArrayList<>()).add(id);
            }
            return new ArrayList<>(groups.values());
        }

        private String signature(long id) {
            JsonNode task = graph.task(id);
            if (task == null || graph.isWaitedOn(id)) {
                return "#" + id; // a task others wait on is shown on its own
            }
            JsonNode awaiting = task.path(Fields.AWAITING);
            return task.path(Fields.STATE).asText() + "\n" + Views.applicationFrame(task.path(Fields.STACK)) + "\n"
                    + awaiting.path(Fields.KIND).asText() + "\n" + awaiting.path(Fields.DESCRIPTION).asText() + "\n"
                    + Views.waitsOn(task);
        }

        /** Prints {@code ids} (one task, or several alike) and what they wait on below; {@code path}: the tasks above. */
        void print(List<Long> ids, String indent, boolean last, List<Long> path) {
            long id = ids.get(0);
            String branch = indent + (last ? "└── " : "├── ");
            String below = indent + (last ? "    " : "│   ");
            JsonNode task = graph.task(id);
            if (path.contains(id)) {
                printCycle(path.subList(path.indexOf(id), path.size()), branch, below);
                return;
            }
            if (task == null) {
                line(branch + "#" + id + " (ended)");
                return;
            }
            if (printed.contains(id)) {
                line(branch + "(T) " + Text.printable(Views.task(task)) + " (shown above)");
                return;
            }
            printed.addAll(ids);
            String state = state(ids);
            if (ids.size() == 1) {
                line(branch + "(T) " + Text.printable(Views.task(task)) + " [" + state + "]");
            } else {
                JsonNode lastTask = graph.task(ids.get(ids.size() - 1));
                line(branch + ids.size() + " tasks '" + Text.printable(task.path(Fields.NAME).asText()) + "'..'"
                        + Text.printable(lastTask.path(Fields.NAME).asText()) + "' " + waitPhrase(task, true)
                        + " [#" + ids.stream().mapToLong(Long::longValue).min().orElse(id) + "..#"
                        + ids.stream().mapToLong(Long::longValue).max().orElse(id) + ", " + state + "]");
            }
            String where = Views.applicationFrame(task.path(Fields.STACK));
            if (!where.isEmpty()) {
                line(below + "  at " + Text.printable(where));
            }
            JsonNode awaiting = task.path(Fields.AWAITING);
            if (!awaiting.isObject()) {
                return;
            }
            List<Long> next = new ArrayList<>(path);
            next.add(id);
            List<Long> targets = Views.waitsOn(task);
            String kind = awaiting.path(Fields.KIND).asText();
            if (ids.size() > 1 || (kind.equals(AwaitKinds.TASK) && targets.size() == 1)) {
                printTargets(targets, below, next); // the group's line, or the task itself, says what the wait is
                return;
            }
            line(below + "└── " + waitPhrase(task, false));
            String under = below + "    ";
            JsonNode worker = awaiting.path(Fields.WORKER);
            if (worker.isObject()) {
                String workerAt = Views.applicationFrame(worker.path(Fields.STACK));
                if (workerAt.isEmpty() && !worker.path(Fields.STACK).isEmpty()) {
                    workerAt = worker.path(Fields.STACK).get(0).asText();
                }
                if (!workerAt.isEmpty()) {
                    line(under + "  at " + Text.printable(workerAt));
                }
            }
            printTargets(targets, under, next);
        }

        private void printTargets(List<Long> targets, String indent, List<Long> path) {
            List<List<Long>> items = grouped(targets);
            for (int i = 0; i < items.size(); i++) {
                print(items.get(i), indent, i == items.size() - 1, path);
            }
        }

        /** {@code members} wait on each other, the last on the first: the cycle, said once where it closes. */
        private void printCycle(List<Long> members, String branch, String below) {
            List<Long> cycle = new ArrayList<>(members);
            cycle.add(members.get(0));
            boolean awaitsOnly = true;
            StringBuilder chain = new StringBuilder(Text.printable(Views.task(graph.task(cycle.get(0)))));
            for (int i = 1; i < cycle.size(); i++) {
                String relation = graph.relation(cycle.get(i - 1), cycle.get(i));
                awaitsOnly &= AwaitKinds.TASK.equals(relation);
                chain.append(" → ").append(AwaitKinds.TASK.equals(relation) ? "" : relationWords(relation) + " ")
                        .append(Text.printable(Views.task(graph.task(cycle.get(i)))));
            }
            out.println(Terminal.colour(Views.fit(branch + "↺ " + (awaitsOnly ? "await" : "wait") + " cycle: " + chain, width), Terminal.RED));
            line(below + "  (these tasks wait for each other: none of them can ever finish)");
        }

        private void line(String text) {
            out.println(Views.fit(text, width));
        }

        /** {@code suspended, 1.4 s}: the state, and how long the longest of {@code ids} has waited. */
        private String state(List<Long> ids) {
            JsonNode task = graph.task(ids.get(0));
            String state = task.path(Fields.STATE).asText();
            if (!state.equals(States.SUSPENDED)) {
                return state;
            }
            long longest = ids.stream().mapToLong(id -> graph.task(id).path(Fields.SUSPENDED_MILLIS).asLong()).max().orElse(0);
            return state + ", " + Views.duration(longest);
        }

        /**
         * What {@code task} waits for, in words: {@code waits for lock held by 'B' #7}, {@code awaits
         * gather of 2}; for several tasks alike ({@code plural}), the verb agrees.
         */
        private String waitPhrase(JsonNode task, boolean plural) {
            JsonNode awaiting = task.path(Fields.AWAITING);
            if (!awaiting.isObject()) {
                return plural ? "run" : "runs";
            }
            String kind = awaiting.path(Fields.KIND).asText();
            List<Long> targets = Views.waitsOn(task);
            String holders = targets.stream().map(this::name).collect(Collectors.joining(", "));
            String waits = plural ? "wait for " : "waits for ";
            String awaits = plural ? "await " : "awaits ";
            boolean followed = awaiting.has(Fields.WAITS_ON) || kind.equals(AwaitKinds.TASK); // else an older agent's dump
            return switch (followed ? kind : "") {
                case AwaitKinds.TASK -> awaits + holders;
                case AwaitKinds.LOCK -> waits + (holders.isEmpty() ? "a lock being handed over" : "lock held by " + holders);
                case AwaitKinds.SEMAPHORE -> waits + (holders.isEmpty() ? "a semaphore permit" : "a semaphore permit held by " + holders);
                case AwaitKinds.CONDITION -> (plural ? "wait on " : "waits on ") + "a condition"
                        + (holders.isEmpty() ? "" : " whose lock is held by " + holders);
                case AwaitKinds.GATHER -> awaits + "a gather of " + tasks(targets);
                case AwaitKinds.WAIT -> waits + tasks(targets) + " (" + Text.printable(awaiting.path(Fields.DESCRIPTION).asText()) + ")";
                case AwaitKinds.AS_COMPLETED -> waits + "the next of " + tasks(targets) + " to complete";
                case AwaitKinds.GROUP -> waits + (plural ? "their" : "its") + " task group's " + tasks(targets);
                case AwaitKinds.SHIELD -> awaits + "a shield of " + holders;
                default -> awaits + Text.printable(Views.awaiting(task));
            };
        }

        /** A task as a relation names it: {@code 'B' #7}, or {@code #7 (ended)} for one no longer in the dump. */
        private String name(long id) {
            JsonNode task = graph.task(id);
            return task == null ? "#" + id + " (ended)" : Text.printable(Views.task(task));
        }
    }

    /** {@code 1 task}, {@code 2 tasks}. */
    private static String tasks(List<Long> ids) {
        return ids.size() + (ids.size() == 1 ? " task" : " tasks");
    }

    /** An edge of a cycle in words, before the task it leads to: {@code lock held by}. */
    private static String relationWords(String relation) {
        return switch (relation == null ? "" : relation) {
            case AwaitKinds.LOCK -> "lock held by";
            case AwaitKinds.SEMAPHORE -> "semaphore permit held by";
            case AwaitKinds.CONDITION -> "condition whose lock is held by";
            case AwaitKinds.GATHER -> "gather of";
            case AwaitKinds.WAIT -> "wait for";
            case AwaitKinds.AS_COMPLETED -> "as-completed of";
            case AwaitKinds.GROUP -> "group of";
            case AwaitKinds.SHIELD -> "shield of";
            default -> relation + " of";
        };
    }

    /**
     * A foreign loop's line, {@code loop 'nioEventLoopGroup-2-1' #27 [netty] (running)}, and the
     * unit of work it runs now below it, with the application's frame it is at; {@code last} when
     * no task follows (a foreign loop has none).
     */
    private static void printForeignLoop(PrintWriter out, JsonNode loop, boolean last, int width) {
        out.println(Views.fit("loop '" + Views.fitMiddle(Text.printable(loop.path(Fields.NAME).asText()), Math.max(width - 40, 20))
                + "' #" + loop.path(Fields.ID).asLong() + " [" + Views.fit(Text.printable(Views.kind(loop)), 12) + "] ("
                + Text.printable(loop.path(Fields.STATE).asText()) + ")", width));
        JsonNode running = loop.path(Fields.RUNNING);
        if (!running.isObject()) {
            return;
        }
        out.println(Views.fit((last ? "└── " : "├── ") + Text.printable(Views.runningUnit(loop)), width));
        String where = Views.applicationFrame(running.path(Fields.STACK), Views.kind(loop));
        if (!where.isEmpty()) {
            out.println((last ? "    " : "│   ") + "  at " + Text.printable(where));
        }
    }

    /**
     * The graph as JSON ({@link Schemas#PSTREE}): per loop, its tasks (with their state, how long
     * they waited, where they are and what they await), who waits on whom with the relation, and
     * every cycle; a foreign loop with the unit of work it runs now.
     */
    static ObjectNode graph(JsonNode dump) {
        ObjectNode root = Json.mapper().createObjectNode();
        root.put(Fields.SCHEMA, Schemas.PSTREE);
        root.put(Fields.PID, dump.path(Fields.PID).asLong());
        ArrayNode loops = root.putArray(Fields.LOOPS);
        for (JsonNode loop : dump.path(Fields.LOOPS)) {
            AwaitGraph graph = AwaitGraph.of(loop);
            ObjectNode out = loops.addObject();
            out.put(Fields.ID, loop.path(Fields.ID).asLong());
            out.put(Fields.NAME, loop.path(Fields.NAME).asText());
            out.put(Fields.KIND, Views.kind(loop));
            out.put(Fields.STATE, loop.path(Fields.STATE).asText());
            JsonNode running = loop.path(Fields.RUNNING);
            if (running.isObject()) {
                ObjectNode unit = out.putObject(Fields.RUNNING);
                unit.put(Fields.DESCRIPTION, running.path(Fields.DESCRIPTION).asText());
                unit.put(Fields.RUNNING_MILLIS, running.path(Fields.RUNNING_MILLIS).asLong());
                unit.put(Fields.WHERE, Views.applicationFrame(running.path(Fields.STACK), Views.kind(loop)));
            } else {
                out.putNull(Fields.RUNNING);
            }
            ArrayNode nodes = out.putArray(Fields.NODES);
            for (JsonNode task : graph.tasks().values()) {
                ObjectNode node = nodes.addObject();
                node.put(Fields.ID, task.path(Fields.ID).asLong());
                node.put(Fields.NAME, task.path(Fields.NAME).asText());
                node.put(Fields.STATE, task.path(Fields.STATE).asText());
                node.put(Fields.SUSPENDED_MILLIS, task.path(Fields.SUSPENDED_MILLIS).asLong());
                node.put(Fields.WHERE, Views.applicationFrame(task.path(Fields.STACK)));
                node.put(Fields.AWAITS, task.path(Fields.AWAITING).isObject() ? Views.awaiting(task) : null);
            }
            ArrayNode edges = out.putArray(Fields.EDGES);
            for (AwaitGraph.Edge edge : graph.edges()) {
                edges.addObject().put(Fields.FROM, edge.from()).put(Fields.TO, edge.to()).put(Fields.RELATION, edge.relation());
            }
            ArrayNode cycles = out.putArray(Fields.CYCLES);
            for (List<Long> cycle : graph.cycles()) {
                ArrayNode ids = cycles.addArray();
                cycle.forEach(ids::add);
            }
        }
        return root;
    }

    private static boolean hasCycle(ObjectNode graph) {
        for (JsonNode loop : graph.path(Fields.LOOPS)) {
            if (!loop.path(Fields.CYCLES).isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
