package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.protocol.Control;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.States;
import io.loopdiag.protocol.Text;
import io.loopdiag.views.Views;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag hang PID}: takes several dumps a moment apart and says what did not move between
 * them and why ({@link Hang}): a loop held in one callback, tasks in a wait cycle or behind a lock
 * whose holder holds the loop, a worker thread that did not move; the idle (a server waiting for
 * its next client) apart from the stuck. What a user runs first on a hung service.
 */
@Command(name = "hang", mixinStandardHelpOptions = true,
        header = "Takes a few dumps a moment apart (or reads saved ones) and reports what is stuck, and on what, oldest first.",
        description = "Exit codes: 0 nothing stuck (all idle or moving), 1 something is stuck (or the JVM cannot be dumped),"
                + " 2 bad usage.")
final class HangCommand implements Callable<Integer> {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,6})(ms|s)");
    private static final int MAX_SAMPLES = 20;

    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target;

    @Option(names = "--samples", paramLabel = "N", description = "how many dumps to take, 2 to " + MAX_SAMPLES + " (default: 3)")
    int samples = 3;

    @Option(names = "--interval", paramLabel = "DURATION", description = "the time between two dumps, such as 500ms or 2s (default: 2s)")
    String interval = "2s";

    @Option(names = "--json", description = "print the verdicts as JSON (schema " + Schemas.HANG + ")")
    boolean json;

    @Override
    public Integer call() throws Exception {
        if (samples < 2 || samples > MAX_SAMPLES) {
            throw new ParameterException(spec.commandLine(), "--samples needs a number from 2 to " + MAX_SAMPLES + ", got " + samples);
        }
        Matcher matcher = DURATION.matcher(interval);
        if (!matcher.matches()) {
            throw new ParameterException(spec.commandLine(), "--interval needs a duration such as 500ms or 2s, got '"
                    + Text.printable(interval) + "'");
        }
        Duration between = matcher.group(2).equals("s") ? Duration.ofSeconds(Long.parseLong(matcher.group(1)))
                : Duration.ofMillis(Long.parseLong(matcher.group(1)));
        target.check(spec, MAX_SAMPLES);
        if (target.files != null && target.files.size() < 2) {
            throw new ParameterException(spec.commandLine(), "hang compares dumps: give --file at least twice, the oldest first");
        }
        PrintWriter out = spec.commandLine().getOut();
        List<JsonNode> dumps = new ArrayList<>();
        long pid;
        try {
            if (target.files != null) {
                for (java.nio.file.Path file : target.files) {
                    dumps.add(Verbs.readDump(file));
                }
                pid = dumps.get(0).path(Fields.PID).asLong();
                between = apart(dumps.get(0), dumps.get(1), between);
            } else {
                pid = target.pid;
                ControlClient agent = new ControlClient(Jvm.of(pid));
                for (int i = 0; i < samples; i++) {
                    if (i > 0) {
                        Thread.sleep(between.toMillis());
                    }
                    dumps.add(agent.request(Control.DUMP));
                }
            }
        } catch (Failure failure) {
            spec.commandLine().getErr().println("loopdiag: " + failure.getMessage());
            return failure.exitCode;
        }
        if (dumps.get(0).path(Fields.LOOPS).isEmpty()) {
            spec.commandLine().getErr().println("loopdiag: JVM " + pid + " has no open event loop");
            return ExitCodes.FINDINGS_OR_FAILURE;
        }
        Hang hang = Hang.of(dumps);
        if (json) {
            Json.print(document(hang, pid, between), out);
        } else {
            print(hang, pid, between, out);
        }
        return hang.isStuck() ? ExitCodes.FINDINGS_OR_FAILURE : ExitCodes.OK;
    }

    /** How far apart two saved dumps were taken, by their {@code taken} times; {@code otherwise} if either lacks one. */
    private static Duration apart(JsonNode first, JsonNode second, Duration otherwise) {
        try {
            return Duration.between(java.time.Instant.parse(first.path(Fields.TAKEN).asText()),
                    java.time.Instant.parse(second.path(Fields.TAKEN).asText())).abs();
        } catch (java.time.format.DateTimeParseException unknown) {
            return otherwise;
        }
    }

    /**
     * The report: a count line, then each stuck loop, then the stuck tasks and the idle ones, the
     * longest waiting first, tasks alike as one entry with their count, each with the chain it
     * waits on to its end.
     */
    static void print(Hang hang, long pid, Duration between, PrintWriter out) {
        long stuckLoops = hang.loops().stream().filter(l -> l.verdict() == Hang.Verdict.STUCK).count();
        Map<Hang.Verdict, Long> tasks = new LinkedHashMap<>();
        for (Hang.Verdict verdict : Hang.Verdict.values()) {
            tasks.put(verdict, hang.tasks().stream().filter(t -> t.verdict() == verdict).count());
        }
        out.println("loopdiag hang: " + (hang.isStuck() ? "STUCK" : "nothing stuck") + " in JVM " + pid + " (dumps "
                + Views.duration(between.toMillis()) + " apart): " + plural(stuckLoops, "loop") + " and "
                + plural(tasks.get(Hang.Verdict.STUCK), "task") + " stuck, " + tasks.get(Hang.Verdict.IDLE) + " idle, "
                + tasks.get(Hang.Verdict.MOVING) + " moving");
        for (Hang.LoopVerdict loop : hang.loops()) {
            if (loop.verdict() == Hang.Verdict.STUCK) {
                out.println();
                out.println(Terminal.colour("stuck: loop '" + Text.printable(loop.loop().path(Fields.NAME).asText()) + "' #"
                        + loop.loop().path(Fields.ID).asLong() + kind(loop.loop()) + " " + Text.printable(loop.reason()), Terminal.RED));
                if (!loop.where().isEmpty()) {
                    out.println("    at " + Text.printable(loop.where()));
                }
            }
        }
        for (Hang.Verdict verdict : List.of(Hang.Verdict.STUCK, Hang.Verdict.IDLE)) {
            for (List<Hang.TaskVerdict> group : grouped(hang.tasks(), verdict)) {
                out.println();
                printTasks(group, out);
            }
        }
    }

    private static String kind(JsonNode loop) {
        return Views.isForeign(loop) ? " [" + Text.printable(Views.kind(loop)) + "]" : "";
    }

    private static String plural(long count, String noun) {
        return count + " " + noun + (count == 1 ? "" : "s");
    }

    /** The tasks of {@code verdict}, those alike (same loop, frame, chain and end) together, in order. */
    private static List<List<Hang.TaskVerdict>> grouped(List<Hang.TaskVerdict> all, Hang.Verdict verdict) {
        Map<String, List<Hang.TaskVerdict>> groups = new LinkedHashMap<>();
        for (Hang.TaskVerdict task : all) {
            if (task.verdict() == verdict && !task.holdsItsLoop()) { // the loop's own line names that one
                List<Long> beyond = task.chain().stream().skip(1).map(Hang.Step::id).toList();
                String key = task.loop().path(Fields.ID).asLong() + "\n" + task.where() + "\n" + beyond + "\n" + task.end()
                        + "\n" + Views.awaiting(task.task()).replaceAll("\\(due in .*\\)", "");
                groups.computeIfAbsent(key, k -> new ArrayList<>()).add(task);
            }
        }
        return new ArrayList<>(groups.values());
    }

    private static void printTasks(List<Hang.TaskVerdict> group, PrintWriter out) {
        Hang.TaskVerdict first = group.get(0);
        JsonNode task = first.task();
        String verdict = first.verdict().name().toLowerCase(java.util.Locale.ROOT);
        long longest = group.stream().mapToLong(t -> t.task().path(Fields.SUSPENDED_MILLIS).asLong()).max().orElse(0);
        String state = task.path(Fields.STATE).asText();
        String waited = state.equals(States.SUSPENDED) ? state + ", " + Views.duration(longest) : state;
        String loop = " on loop '" + Text.printable(first.loop().path(Fields.NAME).asText()) + "'";
        String colour = first.verdict() == Hang.Verdict.STUCK ? Terminal.RED : Terminal.BOLD;
        if (group.size() == 1) {
            out.println(Terminal.colour(verdict + ": (T) " + Text.printable(Views.task(task)) + " [" + waited + "]" + loop, colour));
        } else {
            List<JsonNode> byId = group.stream().map(Hang.TaskVerdict::task)
                    .sorted(java.util.Comparator.comparingLong(t -> t.path(Fields.ID).asLong())).toList();
            JsonNode low = byId.get(0);
            JsonNode high = byId.get(byId.size() - 1);
            out.println(Terminal.colour(verdict + ": " + group.size() + " tasks '" + Text.printable(low.path(Fields.NAME).asText()) + "'..'"
                    + Text.printable(high.path(Fields.NAME).asText()) + "' [#" + low.path(Fields.ID).asLong() + "..#"
                    + high.path(Fields.ID).asLong() + ", " + waited + "]" + loop, colour));
        }
        if (!first.where().isEmpty()) {
            out.println("    at " + Text.printable(first.where()));
        }
        List<String> steps = new ArrayList<>();
        for (Hang.Step step : first.chain().subList(1, first.chain().size())) {
            steps.add("→ " + relationWords(step.relation()) + " "
                    + (step.task() != null ? Text.printable(Views.task(step.task())) : "#" + step.id()));
        }
        out.println("    " + (steps.isEmpty() ? "" : String.join(" ", steps) + ": ") + Text.printable(first.end()));
    }

    /** The relation of a chain's step in words, before the task it leads to. */
    private static String relationWords(String relation) {
        return switch (relation == null ? "" : relation) {
            case AwaitKinds.TASK -> "awaits";
            case AwaitKinds.LOCK -> "lock held by";
            case AwaitKinds.SEMAPHORE -> "semaphore permit held by";
            case AwaitKinds.CONDITION -> "condition whose lock is held by";
            case AwaitKinds.GATHER -> "gathers";
            case AwaitKinds.WAIT, AwaitKinds.AS_COMPLETED -> "waits for";
            case AwaitKinds.GROUP -> "its task group's";
            case AwaitKinds.SHIELD -> "shields";
            default -> relation;
        };
    }

    /** The verdicts as JSON ({@link Schemas#HANG}). */
    static ObjectNode document(Hang hang, long pid, Duration between) {
        ObjectNode root = Json.mapper().createObjectNode();
        root.put(Fields.SCHEMA, Schemas.HANG);
        root.put(Fields.PID, pid);
        root.put(Fields.INTERVAL_MILLIS, between.toMillis());
        root.put(Fields.STUCK, hang.isStuck());
        ArrayNode loops = root.putArray(Fields.LOOPS);
        for (Hang.LoopVerdict loop : hang.loops()) {
            loops.addObject()
                    .put(Fields.ID, loop.loop().path(Fields.ID).asLong())
                    .put(Fields.NAME, loop.loop().path(Fields.NAME).asText())
                    .put(Fields.KIND, Views.kind(loop.loop()))
                    .put(Fields.VERDICT, loop.verdict().name().toLowerCase(java.util.Locale.ROOT))
                    .put(Fields.REASON, loop.reason())
                    .put(Fields.WHERE, loop.where());
        }
        ArrayNode tasks = root.putArray(Fields.TASKS);
        for (Hang.TaskVerdict verdict : hang.tasks()) {
            JsonNode task = verdict.task();
            ObjectNode row = tasks.addObject()
                    .put(Fields.LOOP, verdict.loop().path(Fields.NAME).asText())
                    .put(Fields.ID, task.path(Fields.ID).asLong())
                    .put(Fields.NAME, task.path(Fields.NAME).asText())
                    .put(Fields.STATE, task.path(Fields.STATE).asText())
                    .put(Fields.SUSPENDED_MILLIS, task.path(Fields.SUSPENDED_MILLIS).asLong())
                    .put(Fields.VERDICT, verdict.verdict().name().toLowerCase(java.util.Locale.ROOT))
                    .put(Fields.WHERE, verdict.where());
            ArrayNode chain = row.putArray(Fields.CHAIN);
            for (Hang.Step step : verdict.chain().subList(1, verdict.chain().size())) {
                ObjectNode link = chain.addObject().put(Fields.ID, step.id()).put(Fields.RELATION, step.relation());
                link.put(Fields.NAME, step.task() != null ? step.task().path(Fields.NAME).asText() : null);
            }
            row.put(Fields.REASON, verdict.end());
        }
        return root;
    }
}
