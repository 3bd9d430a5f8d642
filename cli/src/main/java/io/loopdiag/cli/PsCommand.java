package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code loopdiag ps PID}: one row per task, with what it awaits, for how long, and where it is. */
@Command(name = "ps", mixinStandardHelpOptions = true,
        header = "Lists every task of every loop: state, what it awaits, for how long, where.")
final class PsCommand implements Callable<Integer> {
    private static final String ROW = "%-14s %4s %-12s %-9s %7s %-16s %s%n";
    private static final int USED = 14 + 1 + 4 + 1 + 12 + 1 + 9 + 1 + 7 + 1 + 16 + 1;

    /** The orders the rows can take. */
    enum Order { id, waited }

    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target;

    @Option(names = "--sort", paramLabel = "ORDER", description = "id (default, per loop) or waited (longest first)")
    Order order = Order.id;

    @Override
    public Integer call() throws Exception {
        return Verbs.run(spec, target, this::print);
    }

    private void print(JsonNode dump, PrintWriter out) {
        List<JsonNode> tasks = new java.util.ArrayList<>(Views.tasks(dump));
        if (order == Order.waited) {
            tasks.sort(Comparator.comparingLong((JsonNode t) -> t.path("suspendedMillis").asLong()).reversed());
        }
        out.printf(ROW, "LOOP", "ID", "NAME", "STATE", "WAITED", "AWAITS", "WHERE");
        for (JsonNode task : tasks) {
            boolean suspended = task.path("state").asText().equals("suspended");
            String where = Views.shortFrame(Views.applicationFrame(task.path("stack")));
            out.printf(ROW, Views.fit(Views.printable(task.path("loop").asText()), 14), task.path("id").asLong(),
                    Views.fit(Views.printable(task.path("name").asText()), 12), task.path("state").asText(),
                    suspended ? Views.duration(task.path("suspendedMillis").asLong()) : "-",
                    Views.fit(Views.printable(Views.awaiting(task)), 16),
                    Views.fit(Views.printable(where), Views.WIDTH - USED));
        }
        for (JsonNode loop : dump.path("loops")) {
            JsonNode running = loop.path("running");
            if (running.isObject() && running.path("runningMillis").asLong() > 0) {
                out.println(Views.fit("loop '" + Views.printable(loop.path("name").asText()) + "' has been running for "
                        + Views.duration(running.path("runningMillis").asLong()) + ": "
                        + Views.printable(running.path("description").asText()), Views.WIDTH));
                out.println(Views.fit("  at " + Views.printable(Views.applicationFrame(running.path("stack"))), Views.WIDTH));
            }
        }
    }
}
