package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
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
        return Verbs.run(spec, target, this::print);
    }

    private void print(JsonNode dump, PrintWriter out) {
        for (JsonNode loop : dump.path("loops")) {
            out.printf("loop '%s' #%d, %s on %s: %d ready, %d timers, %d callbacks run, %d tasks%n",
                    Views.printable(loop.path("name").asText()), loop.path("id").asLong(), loop.path("state").asText(),
                    loop.path("thread").asText("no thread"), loop.path("readyCount").asInt(), loop.path("timerCount").asInt(),
                    loop.path("dispatchCount").asLong(), loop.path("taskCount").asInt());
            JsonNode running = loop.path("running");
            if (running.isObject()) {
                out.printf("  running for %s: %s%n", Views.duration(running.path("runningMillis").asLong()),
                        Views.printable(running.path("description").asText()));
                frames(out, running.path("stack"));
            } else {
                out.println("  idle between callbacks");
            }
            out.println();
            for (JsonNode task : loop.path("tasks")) {
                String state = task.path("state").asText();
                String since = state.equals("suspended") ? " " + Views.duration(task.path("suspendedMillis").asLong()) : "";
                out.printf("task %s [%s%s, awaits %s]:%n", Views.printable(Views.task(task)), state, since,
                        Views.printable(Views.awaiting(task)));
                frames(out, task.path("stack"));
                if (task.path("createdAt").isArray()) {
                    out.println("  created at:");
                    frames(out, task.path("createdAt"));
                }
                out.println();
            }
        }
        Verbs.printFindings(dump, out, Integer.MAX_VALUE);
    }

    private static void frames(PrintWriter out, JsonNode stack) {
        for (JsonNode frame : stack) {
            out.println("    at " + Views.printable(frame.asText()));
        }
    }
}
