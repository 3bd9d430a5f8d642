package io.loopdiag.views;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.LoopKinds;
import io.loopdiag.protocol.States;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A dump as text, the way {@code loopdiag dump} prints it and the agent writes it on a signal: per
 * loop, what it runs now and for how long with the loop thread's stack, its queues, then every
 * task's suspension stack, what it awaits, since when and where it was created; then the findings
 * so far. Reads like a goroutine dump.
 */
public final class DumpText {
    private DumpText() {
    }

    /** A document that is the agent's refusal, {@code {"error": ...}}, not a dump; its message is the agent's. */
    public static final class Refusal extends IOException {
        public Refusal(String message) {
            super(message);
        }
    }

    /**
     * Reads a dump up to its first loop: the parser is then on that loop's START_OBJECT; false,
     * with the document read to its end, if it has none. The agent writes {@code loops} before
     * the tasks' stacks and the findings.
     */
    public static boolean toFirstLoop(JsonParser parser) throws IOException {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            throw new com.fasterxml.jackson.core.JsonParseException(parser, "not a JSON object");
        }
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            if (field.equals(Fields.ERROR)) {
                throw new Refusal(parser.getValueAsString(""));
            }
            if (field.equals(Fields.LOOPS)) {
                if (parser.currentToken() == JsonToken.START_ARRAY && parser.nextToken() == JsonToken.START_OBJECT) {
                    return true;
                }
                readToEnd(parser);
                return false;
            }
            parser.skipChildren();
        }
        readToEnd(parser);
        return false;
    }

    /** Reads the rest of the document, which must be complete JSON. */
    public static void readToEnd(JsonParser parser) throws IOException {
        while (parser.nextToken() != null) {
            parser.skipChildren();
        }
    }

    /**
     * Prints each loop as it arrives, task by task: a dump of 100,000 tasks is never held whole,
     * unless {@code group} asks for tasks alike together. {@code parser} is on the first loop's
     * START_OBJECT; it is left on the dump's END_OBJECT.
     */
    public static void print(JsonParser parser, PrintWriter out, boolean group) throws IOException {
        while (parser.currentToken() == JsonToken.START_OBJECT) {
            printLoop(parser, out, group);
            parser.nextToken();
        }
        ObjectNode rest = JsonNodeFactory.instance.objectNode(); // what follows the loops: the findings
        readFields(parser, rest);
        printFindings(rest, out, Integer.MAX_VALUE);
    }

    /** The fields up to the end of the object {@code parser} is in, into {@code into}. */
    public static void readFields(JsonParser parser, ObjectNode into) throws IOException {
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            into.set(field, parser.readValueAsTree());
        }
    }

    /**
     * One loop, from its START_OBJECT to its END_OBJECT: the fields before its first task make the
     * header. A loop without tasks (every foreign loop) is headed at its end, so that a field the
     * agent writes after its empty {@code tasks} still counts.
     */
    private static void printLoop(JsonParser parser, PrintWriter out, boolean group) throws IOException {
        ObjectNode loop = JsonNodeFactory.instance.objectNode();
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

    /** The agent's findings so far: a count per kind, then up to {@code limit} headers. */
    public static void printFindings(JsonNode dump, PrintWriter out, int limit) {
        JsonNode findings = dump.path(Fields.FINDINGS);
        JsonNode detections = findings.path(Fields.DETECTIONS);
        if (detections.isEmpty()) {
            out.println("findings: none");
            return;
        }
        StringBuilder counts = new StringBuilder();
        findings.path(Fields.SUMMARY).fields().forEachRemaining(kind ->
                counts.append(counts.isEmpty() ? "" : ", ").append(kind.getValue().asLong()).append(' ').append(kind.getKey()));
        out.println("findings: " + counts);
        int shown = 0;
        for (JsonNode detection : detections) {
            if (shown++ == limit) {
                out.println("  ... (" + (detections.size() - limit) + " more: loopdiag dump " + dump.path(Fields.PID).asLong() + ")");
                break;
            }
            out.println("  " + detection.path(Fields.KIND).asText() + " on loop '" + Text.printable(detection.path(Fields.LOOP).asText())
                    + "': " + Text.printable(detection.path(Fields.MESSAGE).asText()));
            JsonNode stack = detection.path(Fields.STACK);
            if (!stack.isEmpty()) {
                out.println("    at " + Text.printable(Views.applicationFrame(stack)));
            }
        }
    }
}
