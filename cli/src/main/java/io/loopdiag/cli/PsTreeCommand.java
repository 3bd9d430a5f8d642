package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.States;
import io.loopdiag.protocol.Text;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag pstree PID}: per loop, the await tree: under each task, the task it awaits, down
 * to what that one waits for, each with the frame it is suspended at. An await cycle (A awaits B
 * awaits A) is printed with every task on it, and the rest of the tree is printed too; the exit
 * code is then 1, as for any finding. A foreign loop (a Netty event loop, the AWT event thread...)
 * has no tasks: under it, the unit of work it runs now.
 */
@Command(name = "pstree", mixinStandardHelpOptions = true,
        header = "Prints the await tree of each loop: which task awaits which; finds await cycles.")
final class PsTreeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target;

    @Override
    public Integer call() throws Exception {
        return Verbs.runWith(spec, target, PsTreeCommand::print);
    }

    /** The view of {@code dump}; returns the exit code: 1 when it finds an await cycle. */
    static int print(JsonNode dump, PrintWriter out) {
        int cycles = 0;
        for (JsonNode loop : dump.path(Fields.LOOPS)) {
            Map<Long, JsonNode> byId = new LinkedHashMap<>();
            for (JsonNode task : loop.path(Fields.TASKS)) {
                byId.put(task.path(Fields.ID).asLong(), task);
            }
            Set<Long> awaited = new LinkedHashSet<>();
            byId.values().forEach(task -> awaitedId(task, byId).ifPresent(awaited::add));
            Set<Long> printed = new LinkedHashSet<>();
            List<Long> roots = byId.keySet().stream().filter(id -> !awaited.contains(id)).toList();
            if (Views.isForeign(loop)) {
                printForeignLoop(out, loop, byId.isEmpty());
            } else {
                out.printf("loop '%s' #%d (%s)%n", Text.printable(loop.path(Fields.NAME).asText()), loop.path(Fields.ID).asLong(),
                        loop.path(Fields.STATE).asText());
            }
            for (int i = 0; i < roots.size(); i++) {
                cycles += printTask(out, byId, roots.get(i), "", i == roots.size() - 1, new ArrayList<>(), printed);
            }
            // Tasks left are on cycles that no root leads to: print each cycle from its first task.
            for (Long id : byId.keySet()) {
                if (!printed.contains(id)) {
                    cycles += printTask(out, byId, id, "", true, new ArrayList<>(), printed);
                }
            }
        }
        return cycles > 0 ? ExitCodes.FINDINGS_OR_FAILURE : ExitCodes.OK;
    }

    /**
     * A foreign loop's line, {@code loop 'nioEventLoopGroup-2-1' #27 [netty] (running)}, and the
     * unit of work it runs now below it, with the application's frame it is at; {@code last} when
     * no task follows (a foreign loop has none).
     */
    private static void printForeignLoop(PrintWriter out, JsonNode loop, boolean last) {
        out.println(Views.fit("loop '" + Views.fitMiddle(Text.printable(loop.path(Fields.NAME).asText()), Views.WIDTH - 40)
                + "' #" + loop.path(Fields.ID).asLong() + " [" + Views.fit(Text.printable(Views.kind(loop)), 12) + "] ("
                + Text.printable(loop.path(Fields.STATE).asText()) + ")", Views.WIDTH));
        JsonNode running = loop.path(Fields.RUNNING);
        if (!running.isObject()) {
            return;
        }
        out.println(Views.fit((last ? "└── " : "├── ") + Text.printable(Views.runningUnit(loop)), Views.WIDTH));
        String where = Views.applicationFrame(running.path(Fields.STACK), Views.kind(loop));
        if (!where.isEmpty()) {
            out.println((last ? "    " : "│   ") + "  at " + Text.printable(where));
        }
    }

    /** Prints {@code id} and what it awaits below it; returns how many cycles were found. */
    private static int printTask(PrintWriter out, Map<Long, JsonNode> byId, long id, String indent, boolean last,
                          List<Long> path, Set<Long> printed) {
        JsonNode task = byId.get(id);
        String branch = indent + (last ? "└── " : "├── ");
        if (path.contains(id)) {
            List<Long> cycle = new ArrayList<>(path.subList(path.indexOf(id), path.size()));
            cycle.add(id);
            StringBuilder chain = new StringBuilder();
            for (Long member : cycle) {
                chain.append(chain.isEmpty() ? "" : " → ").append(Text.printable(Views.task(byId.get(member))));
            }
            out.println(Views.fit(branch + "↺ await cycle: " + chain, Views.WIDTH));
            out.println(indent + (last ? "    " : "│   ") + "  (these tasks wait for each other: none of them can ever finish)");
            return 1;
        }
        printed.add(id);
        String state = task.path(Fields.STATE).asText();
        String waited = state.equals(States.SUSPENDED) ? ", " + Views.duration(task.path(Fields.SUSPENDED_MILLIS).asLong()) : "";
        out.println(branch + "(T) " + Text.printable(Views.task(task)) + " [" + state + waited + "]");
        String below = indent + (last ? "    " : "│   ");
        String where = Views.applicationFrame(task.path(Fields.STACK));
        if (!where.isEmpty()) {
            out.println(below + "  at " + Text.printable(where));
        }
        java.util.Optional<Long> next = awaitedId(task, byId);
        if (next.isEmpty()) {
            JsonNode awaiting = task.path(Fields.AWAITING);
            if (awaiting.isObject()) {
                out.println(below + "└── awaits " + Text.printable(Views.awaiting(task)));
            }
            return 0;
        }
        path.add(id);
        int cycles = printTask(out, byId, next.get(), below, true, path, printed);
        path.remove(path.size() - 1);
        return cycles;
    }

    private static java.util.Optional<Long> awaitedId(JsonNode task, Map<Long, JsonNode> byId) {
        JsonNode awaiting = task.path(Fields.AWAITING);
        if (awaiting.path(Fields.KIND).asText().equals(AwaitKinds.TASK) && byId.containsKey(awaiting.path(Fields.TASK_ID).asLong())) {
            return java.util.Optional.of(awaiting.path(Fields.TASK_ID).asLong());
        }
        return java.util.Optional.empty();
    }
}
