package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.protocol.Control;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.Text;
import io.loopdiag.views.Views;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag top PID}: every loop's health, live, refreshed every second, as {@code top} or
 * tokio-console show theirs: per loop its kind, lag (99th percentile), utilization, units of work
 * per second, queues and tasks, and the unit it runs now and for how long; then the tasks waiting
 * longest, and the newest findings. Each frame is one {@code info} answer of the agent, whose
 * numbers the agent rolls once a second. On a terminal a frame replaces the last, in colour unless
 * {@code NO_COLOR} is set; elsewhere frames follow each other.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        header = "Shows every loop's health live: lag, utilization, units per second, queues, what runs now.",
        description = "Exit codes: 0 ok, 1 the JVM cannot be reached (or went away), 2 bad usage.")
final class TopCommand implements Callable<Integer> {
    private static final int FINDINGS_SHOWN = 5;
    /** A lag past this, or a loop busier than {@link #BUSY}, is shown in red. */
    private static final double SLOW_LAG_MILLIS = 100;
    private static final double BUSY = 0.9;
    private static final String CLEAR = "\u001b[H\u001b[2J";

    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target;

    @Option(names = "--once", description = "print one frame and exit")
    boolean once;

    @Option(names = "--count", paramLabel = "N", description = "print N frames and exit (default: until interrupted)")
    int count;

    @Option(names = "--json", description = "print each frame's data as one line of JSON, the agent's summary (schema " + Schemas.DUMP + ")")
    boolean json;

    @Override
    public Integer call() throws Exception {
        if (count < 0) {
            throw new ParameterException(spec.commandLine(), "--count needs a positive number, got " + count);
        }
        target.check(spec, 1);
        if (target.files != null) {
            throw new ParameterException(spec.commandLine(), "top watches a live JVM: give its PID (a saved dump has no second frame)");
        }
        int frames = once ? 1 : count == 0 ? Integer.MAX_VALUE : count;
        PrintWriter out = spec.commandLine().getOut();
        boolean live = !json && frames > 1 && Terminal.isTerminal();
        try {
            ControlClient agent = new ControlClient(Jvm.of(target.pid));
            for (int frame = 0; frame < frames; frame++) {
                if (frame > 0) {
                    Thread.sleep(1_000);
                }
                JsonNode info = agent.request(Control.INFO);
                if (json) {
                    out.println(info.toString());
                } else {
                    if (live) {
                        out.print(CLEAR);
                    } else if (frame > 0) {
                        out.println();
                    }
                    print(info, target.pid, out, Terminal.width(false));
                }
                out.flush();
            }
            return ExitCodes.OK;
        } catch (Failure failure) {
            out.flush();
            spec.commandLine().getErr().println("loopdiag: " + failure.getMessage());
            return failure.exitCode;
        }
    }

    /** One frame of {@code info} (the agent's summary), cut to {@code width}. */
    static void print(JsonNode info, long pid, PrintWriter out, int width) {
        JsonNode loops = info.path(Fields.LOOPS);
        long tasks = 0;
        for (JsonNode loop : loops) {
            tasks += loop.path(Fields.TASK_COUNT).asLong();
        }
        out.println(Views.fit(Terminal.colour("loopdiag top: JVM " + pid + ", " + loops.size() + " loop" + (loops.size() == 1 ? "" : "s")
                + ", " + tasks + " task" + (tasks == 1 ? "" : "s") + ", " + info.path(Fields.TAKEN).asText(Instant.now().toString()),
                Terminal.BOLD), width));
        Table table = new Table(List.of(Table.Column.middle("LOOP", 20), Table.Column.left("KIND", 9), Table.Column.right("LAG p99", 8),
                Table.Column.right("UTIL", 5), Table.Column.right("UNITS/S", 8), Table.Column.right("READY", 6),
                Table.Column.right("TIMERS", 6), Table.Column.right("TASKS", 6)), "RUNNING");
        List<Boolean> hot = new ArrayList<>();
        for (JsonNode loop : loops) {
            JsonNode stats = loop.path(Fields.STATISTICS);
            boolean known = stats.isObject();
            double lag = stats.path(Fields.LAG_P99_MILLIS).asDouble();
            double utilization = stats.path(Fields.UTILIZATION).asDouble();
            boolean lagKnown = known && (stats.path(Fields.LAG_SAMPLES).asLong() > 0 || lag > 0); // a waiting probe counts
            JsonNode running = loop.path(Fields.RUNNING);
            table.add(Text.printable(loop.path(Fields.NAME).asText()), Text.printable(Views.kind(loop)),
                    lagKnown ? millis(lag) : "-",
                    known ? Math.round(utilization * 100) + "%" : "-",
                    known ? Long.toString(Math.round(stats.path(Fields.UNITS_PER_SECOND).asDouble())) : "-",
                    Long.toString(loop.path(Fields.READY_COUNT).asLong()), Long.toString(loop.path(Fields.TIMER_COUNT).asLong()),
                    Long.toString(loop.path(Fields.TASK_COUNT).asLong()),
                    running.isObject() ? Text.printable(Views.runningUnit(loop)) : "-");
            hot.add(known && (lag >= SLOW_LAG_MILLIS || utilization >= BUSY));
        }
        // Colour whole rows, after the table has measured them: an escape sequence has no width.
        java.io.StringWriter rows = new java.io.StringWriter();
        table.print(new PrintWriter(rows, true), width);
        List<String> lines = rows.toString().lines().toList();
        out.println(Terminal.colour(lines.get(0), Terminal.BOLD));
        for (int i = 1; i < lines.size(); i++) {
            out.println(hot.get(i - 1) ? Terminal.colour(lines.get(i), Terminal.RED) : lines.get(i));
        }

        List<JsonNode> waiting = new ArrayList<>();
        for (JsonNode loop : loops) {
            for (JsonNode task : loop.path(Fields.LONGEST_WAITING)) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) task).put(Fields.LOOP, loop.path(Fields.NAME).asText());
                waiting.add(task);
            }
        }
        if (!waiting.isEmpty()) {
            waiting.sort(Comparator.comparingLong((JsonNode t) -> t.path(Fields.SUSPENDED_MILLIS).asLong()).reversed());
            out.println();
            out.println(Terminal.colour("WAITING LONGEST", Terminal.BOLD));
            for (JsonNode task : waiting.subList(0, Math.min(5, waiting.size()))) {
                out.println(Views.fit("  " + Text.printable(Views.task(task)) + " on '" + Text.printable(task.path(Fields.LOOP).asText())
                        + "', " + Views.duration(task.path(Fields.SUSPENDED_MILLIS).asLong()) + ": " + Text.printable(Views.awaiting(task)),
                        width));
            }
        }

        List<JsonNode> findings = new ArrayList<>();
        info.path(Fields.FINDINGS).path(Fields.DETECTIONS).forEach(findings::add);
        out.println();
        if (findings.isEmpty()) {
            out.println(Terminal.colour("FINDINGS: none", Terminal.BOLD));
            return;
        }
        StringBuilder counts = new StringBuilder();
        info.path(Fields.FINDINGS).path(Fields.SUMMARY).fields().forEachRemaining(kind ->
                counts.append(counts.isEmpty() ? "" : ", ").append(kind.getValue().asLong()).append(' ').append(kind.getKey()));
        out.println(Terminal.colour("FINDINGS: " + counts + " (the newest first)", Terminal.YELLOW));
        findings.sort(Comparator.comparing((JsonNode f) -> f.path(Fields.LAST_SEEN).asText()).reversed());
        for (JsonNode finding : findings.subList(0, Math.min(FINDINGS_SHOWN, findings.size()))) {
            out.println(Views.fit("  " + finding.path(Fields.KIND).asText() + " on loop '" + Text.printable(finding.path(Fields.LOOP).asText())
                    + "': " + Text.printable(finding.path(Fields.MESSAGE).asText()), width));
        }
    }

    /** {@code 0.2 ms}, {@code 14 ms}, {@code 6.4 s}. */
    private static String millis(double millis) {
        if (millis < 10) {
            return String.format("%.1f ms", millis);
        }
        return Views.duration(Math.round(millis));
    }
}
