package io.loopdiag.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
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

    @Override
    public Integer call() throws Exception {
        return Verbs.stream(spec, target, this::print);
    }

    /** Prints each loop as it arrives, task by task: a dump of 100,000 tasks is never held whole. */
    private int print(JsonParser parser, PrintWriter out) throws IOException {
        while (parser.currentToken() == JsonToken.START_OBJECT) {
            printLoop(parser, out);
            parser.nextToken();
        }
        ObjectNode rest = Json.mapper().createObjectNode(); // what follows the loops: the findings
        Verbs.readRest(parser, rest);
        Verbs.printFindings(rest, out, Integer.MAX_VALUE);
        return ExitCodes.OK;
    }

    /** One loop, from its START_OBJECT to its END_OBJECT: the fields before its tasks make the header. */
    private static void printLoop(JsonParser parser, PrintWriter out) throws IOException {
        ObjectNode loop = Json.mapper().createObjectNode();
        boolean headed = false;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            if (field.equals("tasks") && parser.currentToken() == JsonToken.START_ARRAY) {
                printHeader(loop, out);
                headed = true;
                while (parser.nextToken() == JsonToken.START_OBJECT) {
                    printTask(parser.readValueAsTree(), out);
                }
            } else {
                loop.set(field, parser.readValueAsTree());
            }
        }
        if (!headed) {
            printHeader(loop, out);
        }
    }

    private static void printHeader(JsonNode loop, PrintWriter out) {
        out.printf("loop '%s' #%d, %s on %s: %d ready, %d timers, %d callbacks run, %d tasks%n",
                Views.printable(loop.path("name").asText()), loop.path("id").asLong(), Views.printable(loop.path("state").asText()),
                Views.printable(loop.path("thread").asText("no thread")), loop.path("readyCount").asInt(),
                loop.path("timerCount").asInt(), loop.path("dispatchCount").asLong(), loop.path("taskCount").asInt());
        JsonNode running = loop.path("running");
        if (running.isObject()) {
            out.printf("  running for %s: %s%n", Views.duration(running.path("runningMillis").asLong()),
                    Views.printable(running.path("description").asText()));
            frames(out, running.path("stack"));
        } else {
            out.println("  idle between callbacks");
        }
        out.println();
    }

    private static void printTask(JsonNode task, PrintWriter out) {
        String state = task.path("state").asText();
        String since = state.equals("suspended") ? " " + Views.duration(task.path("suspendedMillis").asLong()) : "";
        out.printf("task %s [%s%s, awaits %s]:%n", Views.printable(Views.task(task)), Views.printable(state), since,
                Views.printable(Views.awaiting(task)));
        frames(out, task.path("stack"));
        if (task.path("createdAt").isArray()) {
            out.println("  created at:");
            frames(out, task.path("createdAt"));
        }
        out.println();
    }

    private static void frames(PrintWriter out, JsonNode stack) {
        for (JsonNode frame : stack) {
            out.println("    at " + Views.printable(frame.asText()));
        }
    }
}
