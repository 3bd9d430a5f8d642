package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import io.loopdiag.protocol.Control;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.LoopKinds;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.Text;
import io.loopdiag.views.Views;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code loopdiag list}: the JVMs this user can look into, whether they run the agent, and their loops. */
@Command(name = "list", mixinStandardHelpOptions = true,
        header = "Lists the JVMs of this user: main class, whether the agent runs, loops and tasks.")
final class ListCommand implements Callable<Integer> {
    private static final String ROW = "%8s  %-15s %5s %6s  %s%n";
    /** A row's second line starts under its AGENT column. */
    private static final String UNDER_AGENT = " ".repeat(10);

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "print the list as JSON (schema " + Schemas.LIST + ")")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        long self = ProcessHandle.current().pid();
        List<VirtualMachineDescriptor> jvms = VirtualMachine.list().stream()
                .filter(jvm -> !jvm.id().equals(Long.toString(self)))
                .sorted(Comparator.comparingLong(jvm -> Long.parseLong(jvm.id()))).toList();
        ObjectNode root = Json.mapper().createObjectNode();
        root.put(Fields.SCHEMA, Schemas.LIST);
        ArrayNode rows = root.putArray(Fields.JVMS);
        for (VirtualMachineDescriptor jvm : jvms) {
            ObjectNode row = rows.addObject();
            row.put(Fields.PID, Long.parseLong(jvm.id()));
            row.put(Fields.MAIN, jvm.displayName());
            describe(row);
        }
        if (json) {
            Json.print(root, out);
            return ExitCodes.OK;
        }
        print(rows, out);
        return ExitCodes.OK;
    }

    /**
     * The table of {@code rows}, as {@code --json} has them: one line per JVM; under a JVM with
     * loops other than loop-core's, its loops by kind ({@code loops: 1 loop-core, 4 netty}).
     */
    static void print(JsonNode rows, PrintWriter out) {
        out.printf(ROW, "PID", "AGENT", "LOOPS", "TASKS", "MAIN");
        for (JsonNode row : rows) {
            out.printf(ROW, row.path(Fields.PID).asLong(), row.path(Fields.AGENT).asText("-"),
                    row.has(Fields.LOOPS) ? row.path(Fields.LOOPS).asInt() : "-", row.has(Fields.TASKS) ? row.path(Fields.TASKS).asInt() : "-",
                    Views.fit(Text.printable(row.path(Fields.MAIN).asText()), Terminal.WIDTH - 40));
            JsonNode byKind = row.path(Fields.LOOPS_BY_KIND);
            if (byKind.properties().stream().anyMatch(kind -> LoopKinds.isForeign(kind.getKey()))) {
                StringBuilder kinds = new StringBuilder();
                byKind.properties().forEach(kind -> kinds.append(kinds.isEmpty() ? "" : ", ")
                        .append(kind.getValue().asInt()).append(' ').append(Text.printable(kind.getKey())));
                out.println(Views.fit(UNDER_AGENT + "loops: " + kinds, Terminal.WIDTH));
            }
        }
    }

    /** Adds the agent's version and the loop and task counts, where the agent runs; a JVM that cannot say is listed bare. */
    private static void describe(ObjectNode row) {
        try {
            Jvm jvm = Jvm.of(row.path(Fields.PID).asLong());
            if (Attach.controlSocket(jvm) == null) {
                return;
            }
            count(row, new ControlClient(jvm).request(Control.INFO));
        } catch (Failure | RuntimeException e) {
            row.put(Fields.NOTE, e.getMessage());
        }
    }

    /**
     * Adds to {@code row} the agent's version and the loop and task counts of {@code info}, the
     * agent's answer to info: its loops by kind too, the known kinds in {@link LoopKinds}' order,
     * then any other as met.
     */
    static void count(ObjectNode row, JsonNode info) {
        row.put(Fields.AGENT, info.path(Fields.AGENT_VERSION).asText());
        int tasks = 0;
        Map<String, Integer> byKind = new LinkedHashMap<>();
        LoopKinds.all().forEach(kind -> byKind.put(kind, 0));
        for (JsonNode loop : info.path(Fields.LOOPS)) {
            tasks += loop.path(Fields.TASK_COUNT).asInt();
            byKind.merge(Views.kind(loop), 1, Integer::sum);
        }
        row.put(Fields.LOOPS, info.path(Fields.LOOPS).size());
        row.put(Fields.TASKS, tasks);
        ObjectNode counts = row.putObject(Fields.LOOPS_BY_KIND);
        byKind.forEach((kind, count) -> {
            if (count > 0) {
                counts.put(kind, count);
            }
        });
    }
}
