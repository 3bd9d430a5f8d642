package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.LoopKinds;
import io.loopdiag.protocol.States;
import io.loopdiag.protocol.Text;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag ps PID}: one row per task, with what it awaits, for how long, and where it is;
 * then one row per foreign loop (a Netty event loop, the AWT event thread...), which has no
 * tasks: what it runs now, for how long, and where.
 */
@Command(name = "ps", mixinStandardHelpOptions = true,
        header = "Lists every task of every loop, and what each loop of another framework runs now.")
final class PsCommand implements Callable<Integer> {
    private static final String ROW = "%-14s %4s %-12s %-9s %7s %-16s %s%n";
    private static final int USED = 14 + 1 + 4 + 1 + 12 + 1 + 9 + 1 + 7 + 1 + 16 + 1;
    /** A foreign loop's row: its thread's name is wider than a task's loop, and tells it from its siblings at its end. */
    private static final String LOOP_ROW = "%-25s %-7s %-7s %7s %-24s %s";
    private static final int LOOP_USED = 25 + 1 + 7 + 1 + 7 + 1 + 7 + 1 + 24 + 1;

    /** The orders the rows can take. */
    enum Order { id, waited }

    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target;

    @Option(names = "--sort", paramLabel = "ORDER",
            description = "id (default, per loop) or waited (longest first; foreign loops: the longest running first)")
    Order order = Order.id;

    @Override
    public Integer call() throws Exception {
        return Verbs.run(spec, target, (dump, out) -> print(dump, order, out));
    }

    /**
     * The view of {@code dump}, in {@code order}: the table of tasks (left out when there are none
     * but foreign loops), what each loop-core loop stuck in a callback runs, then the table of
     * foreign loops.
     */
    static void print(JsonNode dump, Order order, PrintWriter out) {
        List<JsonNode> tasks = new ArrayList<>(Views.tasks(dump));
        List<JsonNode> foreign = new ArrayList<>();
        dump.path(Fields.LOOPS).forEach(loop -> {
            if (Views.isForeign(loop)) {
                foreign.add(loop);
            }
        });
        boolean printed = false;
        if (!tasks.isEmpty() || foreign.isEmpty()) {
            printTasks(tasks, order, out);
            printed = true;
        }
        for (JsonNode loop : dump.path(Fields.LOOPS)) {
            JsonNode running = loop.path(Fields.RUNNING);
            if (!Views.isForeign(loop) && running.isObject() && running.path(Fields.RUNNING_MILLIS).asLong() > 0) {
                out.println(Views.fit("loop '" + Text.printable(loop.path(Fields.NAME).asText()) + "' has been running for "
                        + Views.duration(running.path(Fields.RUNNING_MILLIS).asLong()) + ": "
                        + Text.printable(running.path(Fields.DESCRIPTION).asText()), Views.WIDTH));
                out.println(Views.fit("  at " + Text.printable(Views.applicationFrame(running.path(Fields.STACK))), Views.WIDTH));
                printed = true;
            }
        }
        if (!foreign.isEmpty()) {
            if (printed) {
                out.println();
            }
            printForeignLoops(foreign, order, out);
        }
    }

    private static void printTasks(List<JsonNode> tasks, Order order, PrintWriter out) {
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
    }

    /**
     * One row per foreign loop: its kind, its state, how long its unit of work has run, what that
     * unit is and where it is (the innermost frame of the application, past the framework's own).
     */
    private static void printForeignLoops(List<JsonNode> loops, Order order, PrintWriter out) {
        if (order == Order.waited) {
            loops.sort(Comparator.comparingLong(PsCommand::runningMillis).reversed());
        }
        out.println(String.format(LOOP_ROW, "LOOP", "KIND", "STATE", "FOR", "RUNS", "WHERE").stripTrailing());
        for (JsonNode loop : loops) {
            JsonNode running = loop.path(Fields.RUNNING);
            String where = running.isObject()
                    ? Frame.parse(Views.applicationFrame(running.path(Fields.STACK), Views.kind(loop))).shortForm() : "";
            out.println(String.format(LOOP_ROW, Views.fitMiddle(Text.printable(loop.path(Fields.NAME).asText()), 25),
                    Views.fit(Text.printable(Views.kind(loop)), 7), Views.fit(Text.printable(loop.path(Fields.STATE).asText()), 7),
                    runningMillis(loop) >= 0 ? Views.duration(runningMillis(loop)) : "-",
                    running.isObject() ? Views.fit(Text.printable(running.path(Fields.DESCRIPTION).asText()), 24) : "-",
                    Views.fit(Text.printable(where), Views.WIDTH - LOOP_USED)).stripTrailing());
        }
    }

    /** How long a loop's unit of work has run; -1 between units, and for a thread without units (a Reactor one), which is not timed. */
    private static long runningMillis(JsonNode loop) {
        JsonNode running = loop.path(Fields.RUNNING);
        return running.isObject() && LoopKinds.hasUnits(Views.kind(loop)) ? running.path(Fields.RUNNING_MILLIS).asLong() : -1;
    }
}
