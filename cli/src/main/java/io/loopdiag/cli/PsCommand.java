package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.States;
import io.loopdiag.protocol.Text;
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
        return Verbs.run(spec, target, (dump, out) -> print(dump, order, out));
    }

    /** The view of {@code dump}, its tasks in {@code order}. */
    static void print(JsonNode dump, Order order, PrintWriter out) {
        List<JsonNode> tasks = new java.util.ArrayList<>(Views.tasks(dump));
        if (order == Order.waited) {
            tasks.sort(Comparator.comparingLong((JsonNode t) -> t.path(Fields.SUSPENDED_MILLIS).asLong()).reversed());
        }
        out.printf(ROW, "LOOP", "ID", "NAME", "STATE", "WAITED", "AWAITS", "WHERE");
        for (JsonNode task : tasks) {
            boolean suspended = task.path(Fields.STATE).asText().equals(States.SUSPENDED);
            String where = Frame.parse(Views.applicationFrame(task.path(Fields.STACK))).shortForm();
            out.printf(ROW, Views.fit(Text.printable(task.path(Fields.LOOP).asText()), 14), task.path(Fields.ID).asLong(),
                    Views.fit(Text.printable(task.path(Fields.NAME).asText()), 12), task.path(Fields.STATE).asText(),
                    suspended ? Views.duration(task.path(Fields.SUSPENDED_MILLIS).asLong()) : "-",
                    Views.fit(Text.printable(Views.awaiting(task)), 16),
                    Views.fit(Text.printable(where), Views.WIDTH - USED));
        }
        for (JsonNode loop : dump.path(Fields.LOOPS)) {
            JsonNode running = loop.path(Fields.RUNNING);
            if (running.isObject() && running.path(Fields.RUNNING_MILLIS).asLong() > 0) {
                out.println(Views.fit("loop '" + Text.printable(loop.path(Fields.NAME).asText()) + "' has been running for "
                        + Views.duration(running.path(Fields.RUNNING_MILLIS).asLong()) + ": "
                        + Text.printable(running.path(Fields.DESCRIPTION).asText()), Views.WIDTH));
                out.println(Views.fit("  at " + Text.printable(Views.applicationFrame(running.path(Fields.STACK))), Views.WIDTH));
            }
        }
    }
}
