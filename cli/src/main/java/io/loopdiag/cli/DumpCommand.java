package io.loopdiag.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.LoopKinds;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.States;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag dump PID}: per loop, what it runs now and for how long with the loop thread's
 * stack, its queues, then every task's suspension stack, what it awaits, since when and where it
 * was created; then the findings so far. Reads like a goroutine dump.
 */
@Command(name = "dump", mixinStandardHelpOptions = true,
        header = "Prints every task's suspension stack, per loop, and what each loop runs now.")
final class DumpCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target;

    @Option(names = "--json", description = "print the dump as the agent wrote it, as JSON (schema " + Schemas.DUMP + ")")
    boolean json;

    @Option(names = "--group", description = "print tasks with the same stack and the same wait once, with their count and ids"
            + " (holds each loop's tasks, where the plain dump prints them as they come)")
    boolean group;

    @Override
    public Integer call() throws Exception {
        return Verbs.stream(spec, target, json, (parser, out) -> print(parser, out, group));
    }

    /**
     * Prints each loop as it arrives, task by task: a dump of 100,000 tasks is never held whole,
     * unless {@code group} asks for tasks alike together. {@code parser} is on the first loop's
     * START_OBJECT; returns the exit code.
     */
    static int print(JsonParser parser, PrintWriter out, boolean group) throws IOException {
        while (parser.currentToken() == JsonToken.START_OBJECT) {
            printLoop(parser, out, group);
            parser.nextToken();
        }
        ObjectNode rest = Json.mapper().createObjectNode(); // what follows the loops: the findings
        Verbs.readRest(parser, rest);
        Verbs.printFindings(rest, out, Integer.MAX_VALUE);
        return ExitCodes.OK;
    }

    /**
     * One loop, from its START_OBJECT to its END_OBJECT: the fields before its first task make the
     * header. A loop without tasks (every foreign loop) is headed at its end, so that a field the
     * agent writes after its empty {@code tasks} still counts.
     */
    private static void printLoop(JsonParser parser, PrintWriter out, boolean group) throws IOException {
        ObjectNode loop = Json.mapper().createObjectNode();
        boolean headed = false;
        Map<String, List<JsonNode>> alike = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            if (field.equals(Fields.TASKS) && parser.currentToken() == JsonToken.START_ARRAY) {
                while (parser.nextToken() == JsonToken.START_OBJECT) {
                    if (!headed) {
                        printHeader(loop, out);
                        headed = true;
                    }
                    JsonNode task = parser.readValueAsTree();
                    if (group) {
                        alike.computeIfAbsent(signature(task), key -> new ArrayList<>()).add(task);
                    } else {
                        printTask(List.of(task), out);
                    }
                }
            } else {
                loop.set(field, parser.readValueAsTree());
            }
        }
        if (!headed) {
            printHeader(loop, out);
        }
        alike.values().forEach(tasks -> printTask(tasks, out));
    }

    /** What tasks alike share: their state, their wait (its timing aside) and their whole stack, as Go groups goroutines. */
    private static String signature(JsonNode task) {
        return task.path(Fields.STATE).asText() + "\n" + Views.awaiting(task).replaceAll(" \\(due in [^)]*\\)", "") + "\n"
                + task.path(Fields.STACK);
    }

    private static void printHeader(JsonNode loop, PrintWriter out) {
        if (Views.isForeign(loop)) {
            printForeignHeader(loop, out);
            return;
        }
        out.printf("loop '%s' #%d, %s on %s: %d ready, %d timers, %d callbacks run, %d tasks%n",
                Text.printable(loop.path(Fields.NAME).asText()), loop.path(Fields.ID).asLong(), Text.printable(loop.path(Fields.STATE).asText()),
                Text.printable(loop.path(Fields.THREAD).asText("no thread")), loop.path(Fields.READY_COUNT).asInt(),
                loop.path(Fields.TIMER_COUNT).asInt(), loop.path(Fields.DISPATCH_COUNT).asLong(), loop.path(Fields.TASK_COUNT).asInt());
        JsonNode running = loop.path(Fields.RUNNING);
        if (running.isObject()) {
            out.printf("  running for %s: %s%n", Views.duration(running.path(Fields.RUNNING_MILLIS).asLong()),
                    Text.printable(running.path(Fields.DESCRIPTION).asText()));
            frames(out, running.path(Fields.STACK));
        } else {
            out.println("  idle between callbacks");
        }
        out.println();
    }

    /**
     * A foreign loop: its kind and what it runs now, its own counts, then the running unit's
     * stack: {@code loop 'nioEventLoopGroup-2-1' #27 [netty] running for 4.1 s: I/O of handler ...}.
     */
    private static void printForeignHeader(JsonNode loop, PrintWriter out) {
        String name = loop.path(Fields.NAME).asText();
        String thread = loop.path(Fields.THREAD).asText(name);
        JsonNode running = loop.path(Fields.RUNNING);
        out.println(Text.printable("loop '" + name + "' #" + loop.path(Fields.ID).asLong() + " [" + Views.kind(loop) + "]"
                + (thread.equals(name) ? "" : " on " + thread) + " " + Views.runningUnit(loop)));
        String counts = counts(loop);
        if (!counts.isEmpty()) {
            out.println("  " + counts);
        }
        if (running.isObject()) {
            frames(out, running.path(Fields.STACK));
        }
        out.println();
    }

    /**
     * A foreign loop's counts, in its framework's words: {@code pending tasks 12, scheduled 1,
     * channels 8, units started 1520} (Netty, Vert.x), {@code events queued 3, events dispatched 4411}
     * (AWT). A count the kind does not keep is left out, and so is any count of a kind not known
     * here that is 0.
     */
    private static String counts(JsonNode loop) {
        String kind = Views.kind(loop);
        long ready = loop.path(Fields.READY_COUNT).asLong();
        long timers = loop.path(Fields.TIMER_COUNT).asLong();
        long units = loop.path(Fields.DISPATCH_COUNT).asLong();
        List<String> counts = new ArrayList<>();
        switch (kind) {
            case LoopKinds.NETTY, LoopKinds.VERTX -> counts.addAll(List.of("pending tasks " + ready, "scheduled " + timers));
            case LoopKinds.AWT -> counts.add("events queued " + ready);
            case LoopKinds.REACTOR, LoopKinds.NAMED -> { } // no queue the agent reads
            default -> {
                if (ready > 0) {
                    counts.add("ready " + ready);
                }
                if (timers > 0) {
                    counts.add("timers " + timers);
                }
            }
        }
        if (loop.path(Fields.CHANNEL_COUNT).isNumber()) {
            counts.add("channels " + loop.path(Fields.CHANNEL_COUNT).asLong());
        }
        switch (kind) {
            case LoopKinds.AWT -> counts.add("events dispatched " + units);
            case LoopKinds.NETTY, LoopKinds.VERTX -> counts.add("units started " + units);
            default -> {
                if (units > 0) { // a Reactor or named thread has no unit of work to count
                    counts.add("units started " + units);
                }
            }
        }
        return String.join(", ", counts);
    }

    /**
     * A task, or several alike (their count, first and last names and ids): state, wait, stack,
     * the worker thread's stack when it waits on one, where it (the first) was created.
     */
    private static void printTask(List<JsonNode> tasks, PrintWriter out) {
        JsonNode task = tasks.get(0);
        String state = task.path(Fields.STATE).asText();
        long longest = tasks.stream().mapToLong(t -> t.path(Fields.SUSPENDED_MILLIS).asLong()).max().orElse(0);
        String since = state.equals(States.SUSPENDED) ? " " + Views.duration(longest) : "";
        String who = "task " + Views.task(task);
        if (tasks.size() > 1) {
            JsonNode last = tasks.get(tasks.size() - 1);
            who = tasks.size() + " tasks '" + task.path(Fields.NAME).asText() + "'..'" + last.path(Fields.NAME).asText() + "' #"
                    + task.path(Fields.ID).asLong() + "..#" + last.path(Fields.ID).asLong();
        }
        out.printf("%s [%s%s, awaits %s]:%n", Text.printable(who), Text.printable(state), since, Text.printable(Views.awaiting(task)));
        frames(out, task.path(Fields.STACK));
        JsonNode worker = task.path(Fields.AWAITING).path(Fields.WORKER);
        if (worker.isObject()) {
            out.println("  worker thread '" + Text.printable(worker.path(Fields.NAME).asText()) + "' #" + worker.path(Fields.ID).asLong()
                    + " (" + Text.printable(worker.path(Fields.STATE).asText()) + "):");
            frames(out, worker.path(Fields.STACK));
        }
        if (task.path(Fields.CREATED_AT).isArray()) {
            out.println(tasks.size() > 1 ? "  the first created at:" : "  created at:");
            frames(out, task.path(Fields.CREATED_AT));
        }
        out.println();
    }

    private static void frames(PrintWriter out, JsonNode stack) {
        for (JsonNode frame : stack) {
            out.println("    at " + Text.printable(frame.asText()));
        }
    }
}
