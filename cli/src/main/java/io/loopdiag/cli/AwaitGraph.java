package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.protocol.Fields;
import io.loopdiag.views.Views;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who waits on whom in one loop of a dump: a node per task, an edge from a task to each task its
 * wait is on ({@link Fields#WAITS_ON}: the awaited task, a gather's or a group's children, a
 * lock's holder...), named by the wait's kind, and every cycle of those edges. pstree prints it,
 * {@code pstree --json} writes it, and {@code hang} follows its chains.
 */
final class AwaitGraph {
    /** {@code from} waits on {@code to} through a wait of kind {@code relation} ({@link AwaitKinds}). */
    record Edge(long from, long to, String relation) {
    }

    private final Map<Long, JsonNode> tasks = new LinkedHashMap<>();
    private final Map<Long, List<Edge>> out = new HashMap<>();
    private final Set<Long> waitedOn = new HashSet<>();
    private final List<List<Long>> cycles;

    private AwaitGraph(JsonNode loop) {
        for (JsonNode task : loop.path(Fields.TASKS)) {
            tasks.put(task.path(Fields.ID).asLong(), task);
        }
        for (JsonNode task : tasks.values()) {
            long from = task.path(Fields.ID).asLong();
            String relation = task.path(Fields.AWAITING).path(Fields.KIND).asText();
            List<Edge> edges = new ArrayList<>();
            for (long to : Views.waitsOn(task)) {
                edges.add(new Edge(from, to, relation));
                waitedOn.add(to);
            }
            out.put(from, edges);
        }
        cycles = findCycles();
    }

    /** The graph of {@code loop}, a loop of a dump. */
    static AwaitGraph of(JsonNode loop) {
        return new AwaitGraph(loop);
    }

    /** The tasks, by id, in the dump's order. */
    Map<Long, JsonNode> tasks() {
        return Collections.unmodifiableMap(tasks);
    }

    JsonNode task(long id) {
        return tasks.get(id);
    }

    /** What {@code id} waits on, in the dump's order; a target may be a task that has ended (not in {@link #tasks}). */
    List<Edge> edgesFrom(long id) {
        return out.getOrDefault(id, List.of());
    }

    /** Every edge, by waiting task in the dump's order. */
    List<Edge> edges() {
        List<Edge> all = new ArrayList<>();
        tasks.keySet().forEach(id -> all.addAll(edgesFrom(id)));
        return all;
    }

    /** True if some task waits on {@code id}. */
    boolean isWaitedOn(long id) {
        return waitedOn.contains(id);
    }

    /** The tasks nobody waits on, in the dump's order: where the trees start. */
    List<Long> roots() {
        return tasks.keySet().stream().filter(id -> !waitedOn.contains(id)).toList();
    }

    /**
     * One cycle per group of tasks that wait on each other (a strongly connected component of the
     * edges, or a task waiting on itself): its ids in the order they wait, starting from the
     * smallest, without repeating it; the groups ordered by that id.
     */
    List<List<Long>> cycles() {
        return cycles;
    }

    /** The relation of the edge from {@code from} to {@code to}, or null if there is none. */
    String relation(long from, long to) {
        for (Edge edge : edgesFrom(from)) {
            if (edge.to() == to) {
                return edge.relation();
            }
        }
        return null;
    }

    private List<List<Long>> findCycles() {
        List<List<Long>> found = new ArrayList<>();
        for (Set<Long> component : stronglyConnected()) {
            long start = Collections.min(component);
            boolean selfLoop = relation(start, start) != null;
            if (component.size() > 1 || selfLoop) {
                found.add(selfLoop && component.size() == 1 ? List.of(start) : shortestCycle(start, component));
            }
        }
        found.sort(Comparator.comparing((List<Long> cycle) -> cycle.get(0)));
        return List.copyOf(found);
    }

    /** The shortest way from {@code start} back to itself inside {@code component}, breadth first. */
    private List<Long> shortestCycle(long start, Set<Long> component) {
        Map<Long, Long> cameFrom = new HashMap<>();
        Deque<Long> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            long at = queue.poll();
            for (Edge edge : edgesFrom(at)) {
                if (edge.to() == start) {
                    List<Long> cycle = new ArrayList<>();
                    for (Long step = at; step != null; step = cameFrom.get(step)) {
                        cycle.add(0, step);
                    }
                    return List.copyOf(cycle);
                }
                if (component.contains(edge.to()) && !cameFrom.containsKey(edge.to()) && edge.to() != start) {
                    cameFrom.put(edge.to(), at);
                    queue.add(edge.to());
                }
            }
        }
        return List.of(start); // unreachable: a component of more than one task has a way back
    }

    /** Tarjan's strongly connected components of the edges between known tasks, iteratively (a chain may be 100,000 long). */
    private List<Set<Long>> stronglyConnected() {
        Map<Long, Integer> index = new HashMap<>();
        Map<Long, Integer> low = new HashMap<>();
        Deque<Long> stack = new ArrayDeque<>();
        Set<Long> onStack = new HashSet<>();
        List<Set<Long>> components = new ArrayList<>();
        int[] counter = {0};
        for (long root : tasks.keySet()) {
            if (index.containsKey(root)) {
                continue;
            }
            // Each frame: a task and how many of its edges have been followed.
            Deque<long[]> work = new ArrayDeque<>();
            work.push(new long[] {root, 0});
            index.put(root, counter[0]);
            low.put(root, counter[0]++);
            stack.push(root);
            onStack.add(root);
            while (!work.isEmpty()) {
                long[] frame = work.peek();
                long at = frame[0];
                List<Edge> edges = edgesFrom(at);
                if (frame[1] < edges.size()) {
                    long to = edges.get((int) frame[1]++).to();
                    if (!tasks.containsKey(to)) {
                        continue; // an ended task waits on nothing
                    }
                    if (!index.containsKey(to)) {
                        index.put(to, counter[0]);
                        low.put(to, counter[0]++);
                        stack.push(to);
                        onStack.add(to);
                        work.push(new long[] {to, 0});
                    } else if (onStack.contains(to)) {
                        low.put(at, Math.min(low.get(at), index.get(to)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    long parent = work.peek()[0];
                    low.put(parent, Math.min(low.get(parent), low.get(at)));
                }
                if (low.get(at).equals(index.get(at))) {
                    Set<Long> component = new HashSet<>();
                    long member;
                    do {
                        member = stack.pop();
                        onStack.remove(member);
                        component.add(member);
                    } while (member != at);
                    components.add(component);
                }
            }
        }
        return components;
    }
}
