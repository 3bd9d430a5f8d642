package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code loopdiag list}: the JVMs this user can look into, whether they run the agent, and their loops. */
@Command(name = "list", mixinStandardHelpOptions = true,
        header = "Lists the JVMs of this user: main class, whether the agent runs, loops and tasks.")
final class ListCommand implements Callable<Integer> {
    static final String SCHEMA = "loopdiag-list/1";
    private static final String ROW = "%8s  %-15s %5s %6s  %s%n";

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "print the list as JSON (schema " + SCHEMA + ")")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        long self = ProcessHandle.current().pid();
        List<VirtualMachineDescriptor> jvms = VirtualMachine.list().stream()
                .filter(jvm -> !jvm.id().equals(Long.toString(self)))
                .sorted(Comparator.comparingLong(jvm -> Long.parseLong(jvm.id()))).toList();
        ObjectNode root = Json.mapper().createObjectNode();
        root.put("schema", SCHEMA);
        ArrayNode rows = root.putArray("jvms");
        for (VirtualMachineDescriptor jvm : jvms) {
            ObjectNode row = rows.addObject();
            row.put("pid", Long.parseLong(jvm.id()));
            row.put("main", jvm.displayName());
            describe(row);
        }
        if (json) {
            out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root));
            return ExitCodes.OK;
        }
        out.printf(ROW, "PID", "AGENT", "LOOPS", "TASKS", "MAIN");
        for (JsonNode row : rows) {
            out.printf(ROW, row.path("pid").asLong(), row.path("agent").asText("-"),
                    row.has("loops") ? row.path("loops").asInt() : "-", row.has("tasks") ? row.path("tasks").asInt() : "-",
                    Views.fit(Views.printable(row.path("main").asText()), Views.WIDTH - 40));
        }
        return ExitCodes.OK;
    }

    /** Adds the agent's version and the loop and task counts, where the agent runs; a JVM that cannot say is listed bare. */
    private static void describe(ObjectNode row) {
        try {
            Target target = Target.of(row.path("pid").asLong());
            if (target.systemProperties().getProperty(Target.CONTROL_PROPERTY) == null) {
                return;
            }
            JsonNode info = target.request("info");
            row.put("agent", info.path("agentVersion").asText());
            int tasks = 0;
            for (JsonNode loop : info.path("loops")) {
                tasks += loop.path("taskCount").asInt();
            }
            row.put("loops", info.path("loops").size());
            row.put("tasks", tasks);
        } catch (Target.Failure | RuntimeException e) {
            row.put("note", e.getMessage());
        }
    }
}
