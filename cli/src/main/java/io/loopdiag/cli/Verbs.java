package io.loopdiag.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;
import picocli.CommandLine.Model.CommandSpec;

/** What the verbs that read a dump share: fetch it, print JSON or the verb's view, map failures to exit codes. */
final class Verbs {
    private Verbs() {
    }

    /** Dumps the target and prints it with {@code view} (or as JSON); returns the exit code. */
    static int run(CommandSpec spec, TargetOptions options, BiConsumer<JsonNode, PrintWriter> view) throws Exception {
        return runWith(spec, options, (dump, out) -> {
            view.accept(dump, out);
            return ExitCodes.OK;
        });
    }

    /** Like {@link #run}, for a view that decides the exit code (pstree: 1 when it finds a cycle). */
    static int runWith(CommandSpec spec, TargetOptions options, View view) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        byte[] answer;
        try {
            answer = Target.of(options.pid).requestBytes("dump");
        } catch (Target.Failure failure) {
            spec.commandLine().getErr().println("loopdiag: " + failure.getMessage());
            return failure.exitCode;
        }
        if (!hasLoops(answer)) {
            spec.commandLine().getErr().println("loopdiag: JVM " + options.pid + " has no open event loop");
            return ExitCodes.FINDINGS_OR_FAILURE;
        }
        if (options.json) {
            // Passed on as the agent wrote it: a dump of 100,000 tasks is tens of megabytes, and a tree of it costs seconds.
            out.println(new String(answer, StandardCharsets.UTF_8));
            out.flush();
            return ExitCodes.OK;
        }
        int code = view.print(new ObjectMapper().readTree(answer), out);
        out.flush();
        return code;
    }

    /** Whether the dump's {@code loops} array (written before the tasks' stacks) has an entry. */
    private static boolean hasLoops(byte[] dump) throws IOException {
        try (JsonParser parser = new ObjectMapper().getFactory().createParser(dump)) {
            parser.nextToken();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                parser.nextToken();
                if (field.equals("loops")) {
                    return parser.currentToken() == JsonToken.START_ARRAY && parser.nextToken() == JsonToken.START_OBJECT;
                }
                parser.skipChildren();
            }
            return false;
        }
    }

    /** A view that returns its exit code. */
    @FunctionalInterface
    interface View {
        int print(JsonNode dump, PrintWriter out);
    }

    /** The agent's findings so far: a count per kind, then up to {@code limit} headers. */
    static void printFindings(JsonNode dump, PrintWriter out, int limit) {
        JsonNode findings = dump.path("findings");
        JsonNode detections = findings.path("detections");
        if (detections.isEmpty()) {
            out.println("findings: none");
            return;
        }
        StringBuilder counts = new StringBuilder();
        findings.path("summary").fields().forEachRemaining(kind ->
                counts.append(counts.isEmpty() ? "" : ", ").append(kind.getValue().asLong()).append(' ').append(kind.getKey()));
        out.println("findings: " + counts);
        int shown = 0;
        for (JsonNode detection : detections) {
            if (shown++ == limit) {
                out.println("  ... (" + (detections.size() - limit) + " more: loopdiag dump " + dump.path("pid").asLong() + ")");
                break;
            }
            out.println("  " + detection.path("kind").asText() + " on loop '" + Views.printable(detection.path("loop").asText())
                    + "': " + Views.printable(detection.path("message").asText()));
            JsonNode stack = detection.path("stack");
            if (!stack.isEmpty()) {
                out.println("    at " + Views.printable(Views.applicationFrame(stack)));
            }
        }
    }
}
