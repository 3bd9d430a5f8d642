package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.LoopKinds;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.States;
import io.loopdiag.protocol.Text;
import io.loopdiag.views.Views;
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
 * tasks: what it runs now, for how long, and where. On a terminal the rows fit its width; to a
 * pipe or a file (or with {@code --wide}) every name is whole. {@code --json} writes the rows.
 */
@Command(name = "ps", mixinStandardHelpOptions = true,
        header = "Lists every task of every loop, and what each loop of another framework runs now.")
final class PsCommand implements Callable<Integer> {
    /** The orders the rows can take. */
    enum Order { id, waited }

    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target;

    @Option(names = "--sort", paramLabel = "ORDER",
            description = "id (default, per loop) or waited (longest first; foreign loops: the longest running first)")
    Order order = Order.id;

    @Option(names = "--wide", description = "never cut a column, even on a terminal (what a pipe or a file gets anyway)")
    boolean wide;

    @Option(names = "--json", description = "print the rows as JSON (schema " + Schemas.PS + ")")
    boolean json;

    @Override
    public Integer call() throws Exception {
        return Verbs.run(spec, target, (dump, out) -> {
            if (json) {
                Json.print(rows(dump, order), out);
            } else {
                print(dump, order, out, Terminal.width(wide));
            }
        });
    }

    /**
     * The view of {@code dump}, in {@code order}, cut to {@code width}: the table of tasks (left out
     * when there are none but foreign loops), what each loop-core loop stuck in a callback runs,
     * then the table of foreign loops.
     */
    static void print(JsonNode dump, Order order, PrintWriter out, int width) {
        List<JsonNode> tasks = sorted(Views.tasks(dump), order);
        List<JsonNode> foreign = new ArrayList<>();
        dump.path(Fields.LOOPS).forEach(loop -> {
            if (Views.isForeign(loop)) {
                foreign.add(loop);
            }
        });
        boolean printed = false;
        if (!tasks.isEmpty() || foreign.isEmpty()) {
            Table table = new Table(List.of(Table.Column.left("LOOP", 14), Table.Column.right("ID", 4), Table.Column.left("NAME", 12),
                    Table.Column.left("STATE", 9), Table.Column.right("WAITED", 7), Table.Column.left("AWAITS", 16)), "WHERE");
            for (JsonNode task : tasks) {
                boolean suspended = task.path(Fields.STATE).asText().equals(States.SUSPENDED);
                table.add(Text.printable(task.path(Fields.LOOP).asText()), Long.toString(task.path(Fields.ID).asLong()),
                        Text.printable(task.path(Fields.NAME).asText()), task.path(Fields.STATE).asText(),
                        suspended ? Views.duration(task.path(Fields.SUSPENDED_MILLIS).asLong()) : "-",
                        Text.printable(Views.awaiting(task)), Text.printable(where(task)));
            }
            table.print(out, width);
            printed = true;
        }
        for (JsonNode loop : dump.path(Fields.LOOPS)) {
            JsonNode running = loop.path(Fields.RUNNING);
            if (!Views.isForeign(loop) && running.isObject() && running.path(Fields.RUNNING_MILLIS).asLong() > 0) {
                out.println(Views.fit("loop '" + Text.printable(loop.path(Fields.NAME).asText()) + "' has been running for "
                        + Views.duration(running.path(Fields.RUNNING_MILLIS).asLong()) + ": "
                        + Text.printable(running.path(Fields.DESCRIPTION).asText()), width));
                out.println(Views.fit("  at " + Text.printable(Views.applicationFrame(running.path(Fields.STACK))), width));
                printed = true;
            }
        }
        if (!foreign.isEmpty()) {
            if (printed) {
                out.println();
            }
            if (order == Order.waited) {
                foreign.sort(Comparator.comparingLong(PsCommand::runningMillis).reversed());
            }
            Table table = new Table(List.of(Table.Column.middle("LOOP", 25), Table.Column.left("KIND", 7), Table.Column.left("STATE", 7),
                    Table.Column.right("FOR", 7), Table.Column.left("RUNS", 24)), "WHERE");
            for (JsonNode loop : foreign) {
                JsonNode running = loop.path(Fields.RUNNING);
                table.add(Text.printable(loop.path(Fields.NAME).asText()), Text.printable(Views.kind(loop)),
                        Text.printable(loop.path(Fields.STATE).asText()),
                        runningMillis(loop) >= 0 ? Views.duration(runningMillis(loop)) : "-",
                        running.isObject() ? Text.printable(running.path(Fields.DESCRIPTION).asText()) : "-",
                        Text.printable(loopWhere(loop)));
            }
            table.print(out, width);
        }
    }

    /**
     * The rows as JSON ({@link Schemas#PS}): a row per task, in {@code order}, and a row per loop
     * (loop-core's too), each with what it runs now and where.
     */
    static ObjectNode rows(JsonNode dump, Order order) {
        ObjectNode root = Json.mapper().createObjectNode();
        root.put(Fields.SCHEMA, Schemas.PS);
        root.put(Fields.PID, dump.path(Fields.PID).asLong());
        ArrayNode tasks = root.putArray(Fields.TASKS);
        for (JsonNode task : sorted(Views.tasks(dump), order)) {
            ObjectNode row = tasks.addObject();
            row.put(Fields.LOOP, task.path(Fields.LOOP).asText());
            row.put(Fields.ID, task.path(Fields.ID).asLong());
            row.put(Fields.NAME, task.path(Fields.NAME).asText());
            row.put(Fields.STATE, task.path(Fields.STATE).asText());
            row.put(Fields.SUSPENDED_MILLIS, task.path(Fields.SUSPENDED_MILLIS).asLong());
            JsonNode awaiting = task.path(Fields.AWAITING);
            row.put(Fields.AWAITS, awaiting.isObject() ? Views.awaiting(task) : null);
            ArrayNode waitsOn = row.putArray(Fields.WAITS_ON);
            Views.waitsOn(task).forEach(waitsOn::add);
            row.put(Fields.WHERE, where(task));
        }
        ArrayNode loops = root.putArray(Fields.LOOPS);
        List<JsonNode> all = new ArrayList<>();
        dump.path(Fields.LOOPS).forEach(all::add);
        if (order == Order.waited) {
            all.sort(Comparator.comparingLong(PsCommand::runningMillis).reversed());
        }
        for (JsonNode loop : all) {
            JsonNode running = loop.path(Fields.RUNNING);
            ObjectNode row = loops.addObject();
            row.put(Fields.NAME, loop.path(Fields.NAME).asText());
            row.put(Fields.ID, loop.path(Fields.ID).asLong());
            row.put(Fields.KIND, Views.kind(loop));
            row.put(Fields.STATE, loop.path(Fields.STATE).asText());
            row.put(Fields.RUNNING_MILLIS, runningMillis(loop));
            row.put(Fields.DESCRIPTION, running.isObject() ? running.path(Fields.DESCRIPTION).asText() : null);
            row.put(Fields.WHERE, running.isObject() ? loopWhere(loop) : null);
        }
        return root;
    }

    private static List<JsonNode> sorted(List<JsonNode> tasks, Order order) {
        List<JsonNode> rows = new ArrayList<>(tasks);
        if (order == Order.waited) {
            rows.sort(Comparator.comparingLong((JsonNode t) -> t.path(Fields.SUSPENDED_MILLIS).asLong()).reversed());
        }
        return rows;
    }

    /** Where a task is: its innermost application frame, short ({@code StuckService.java:62 fetchConfig}). */
    private static String where(JsonNode task) {
        return Frame.parse(Views.applicationFrame(task.path(Fields.STACK))).shortForm();
    }

    /** Where a loop's unit of work is: the innermost frame of the application, past the framework's own. */
    private static String loopWhere(JsonNode loop) {
        JsonNode running = loop.path(Fields.RUNNING);
        return running.isObject() ? Frame.parse(Views.applicationFrame(running.path(Fields.STACK), Views.kind(loop))).shortForm() : "";
    }

    /**
     * How long a loop's unit of work (a loop-core loop's callback) has run; -1 between units, and
     * for a thread without units (a Reactor one), which is not timed.
     */
    private static long runningMillis(JsonNode loop) {
        JsonNode running = loop.path(Fields.RUNNING);
        return running.isObject() && LoopKinds.hasUnits(Views.kind(loop)) ? running.path(Fields.RUNNING_MILLIS).asLong() : -1;
    }
}
