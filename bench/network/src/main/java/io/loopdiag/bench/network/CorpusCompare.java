package io.loopdiag.bench.network;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code corpus-compare --agent JAR}: runs {@link BlockingCorpus} in two JVMs, one with the
 * loopdiag agent ({@code log=stderr}) and one with BlockHound (its default, throwing mode), and
 * says per call which tool caught it. For the agent, caught means a {@code loopdiag: blocking-call
 * on loop '...'} line between the call's begin and end markers; for BlockHound, that the call
 * threw {@code BlockingOperationError}. Prints one JSON line per call and tool (workload
 * {@code blocking-corpus}, metric {@code caught}, 1 or 0) on {@code out}, and a table and the
 * calls BlockHound catches and the agent does not on {@code err}. Exit 0 when both JVMs ran every
 * call, whatever they caught; 1 otherwise.
 */
final class CorpusCompare {
    static final String[] OPTIONS = {"agent", "java"};
    static final String WORKLOAD = "blocking-corpus";
    private static final long JVM_TIMEOUT_SECONDS = 120;
    private static final Pattern BEGIN = Pattern.compile("^" + Pattern.quote(BlockingCorpus.BEGIN) + "(\\d+) (.*)$");
    private static final Pattern END = Pattern.compile("^" + Pattern.quote(BlockingCorpus.END) + "(\\d+) (caught|ran|failed) (\\d+) ?(.*)$");
    private static final Pattern AGENT_BLOCKING_CALL = Pattern.compile("^loopdiag: blocking-call on loop '.*");
    private static final Pattern AGENT_FINDING = Pattern.compile(
            "^loopdiag: (slow-callback|loop-stall|blocking-call|never-awaited|lost-exception) .*");

    private CorpusCompare() {
    }

    /** What one tool did with one call: caught it or not, the line that says so, and how long the call took. */
    record Outcome(boolean caught, String evidence, long millis, String failure, List<String> otherFindings) {
    }

    /** One call of the corpus with each tool's outcome (null: that JVM never reached it). */
    record Row(int number, String call, BlockingCorpus.Group group, Outcome loopdiag, Outcome blockHound) {
    }

    static int run(Options options, PrintStream out, PrintStream err) throws Exception {
        Path agent = options.path("agent");
        if (agent == null || !Files.isRegularFile(agent)) {
            throw new IllegalArgumentException("--agent needs the agent jar (agent/target/loopdiag-agent.jar), got " + agent);
        }
        String java = options.string("java", ProcessHandle.current().info().command().orElse("java"));
        String jar = new File(CorpusCompare.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        List<String> common = List.of("--sun-misc-unsafe-memory-access=allow");
        Run loopdiag = corpus(java, jar, common, List.of("-javaagent:" + agent.toAbsolutePath() + "=log=stderr"), "loopdiag", err);
        Run blockHound = corpus(java, jar, common, List.of("-XX:+AllowRedefinitionToAddDeleteMethods",
                "-XX:+EnableDynamicAgentLoading", "-Djdk.attach.allowAttachSelf=true"), "blockhound", err);
        List<String> problems = new ArrayList<>();
        problems.addAll(loopdiag.problems(Detections.Tool.LOOPDIAG));
        problems.addAll(blockHound.problems(Detections.Tool.BLOCKHOUND));
        List<Row> rows = rows(BlockingCorpus.calls(), loopdiag.lines, blockHound.lines);
        for (Row row : rows) {
            out.println(line(row, "loopdiag", row.loopdiag(), problems).toJson());
            out.println(line(row, "blockhound", row.blockHound(), problems).toJson());
        }
        out.flush();
        err.print(table(rows));
        problems.forEach(problem -> err.println("corpus-compare: " + problem));
        return problems.isEmpty() ? Main.EXIT_OK : Main.EXIT_FAILED;
    }

    /** One corpus JVM's exit code and stderr lines. */
    private record Run(String tool, int exitCode, List<String> lines) {
        List<String> problems(Detections.Tool detector) {
            List<String> problems = new ArrayList<>();
            if (exitCode != 0) {
                problems.add("the " + tool + " corpus JVM exited with " + exitCode);
            }
            Pattern loaded = detector.loaded;
            if (lines.stream().noneMatch(line -> loaded.matcher(line).matches())) {
                problems.add("the " + tool + " corpus JVM: " + detector.label + " did not say it loaded");
            }
            return problems;
        }
    }

    private static Run corpus(String java, String jar, List<String> common, List<String> flags, String tool, PrintStream err)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(common);
        command.addAll(flags);
        command.addAll(List.of("-cp", jar, Main.class.getName(), "corpus", "--tool", tool));
        err.println("corpus-compare: " + String.join(" ", command));
        Path stderr = Files.createTempFile("corpus-" + tool, ".err");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(false)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(stderr.toFile()).start();
            if (!process.waitFor(JVM_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
            List<String> lines = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            return new Run(tool, process.exitValue(), lines);
        } finally {
            Files.deleteIfExists(stderr);
        }
    }

    /** Pairs each call with what each JVM's stderr says about it, by the begin and end markers. */
    static List<Row> rows(List<BlockingCorpus.Call> calls, List<String> loopdiagLines, List<String> blockHoundLines) {
        Map<Integer, Outcome> loopdiag = outcomes(loopdiagLines, true);
        Map<Integer, Outcome> blockHound = outcomes(blockHoundLines, false);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            BlockingCorpus.Call call = calls.get(i);
            rows.add(new Row(i + 1, call.name(), call.group(), loopdiag.get(i + 1), blockHound.get(i + 1)));
        }
        return rows;
    }

    /**
     * The outcome of each call number in one JVM's stderr. {@code byAgentLines}: caught means an
     * agent blocking-call line between the markers; otherwise it means the end marker says caught.
     */
    static Map<Integer, Outcome> outcomes(List<String> lines, boolean byAgentLines) {
        Map<Integer, Outcome> outcomes = new LinkedHashMap<>();
        Integer current = null;
        List<String> between = new ArrayList<>();
        for (String line : lines) {
            Matcher begin = BEGIN.matcher(line);
            Matcher end = END.matcher(line);
            if (begin.matches()) {
                current = Integer.valueOf(begin.group(1));
                between.clear();
            } else if (end.matches() && current != null && current.equals(Integer.valueOf(end.group(1)))) {
                String blockingCall = between.stream().filter(l -> AGENT_BLOCKING_CALL.matcher(l).matches()).findFirst().orElse(null);
                List<String> others = between.stream()
                        .filter(l -> AGENT_FINDING.matcher(l).matches() && !AGENT_BLOCKING_CALL.matcher(l).matches()).toList();
                String result = end.group(2);
                boolean caught = byAgentLines ? blockingCall != null : result.equals("caught");
                String evidence = byAgentLines ? blockingCall : result.equals("caught") ? end.group(4) : null;
                String failure = result.equals("failed") ? end.group(4) : null;
                outcomes.put(current, new Outcome(caught, evidence, Long.parseLong(end.group(3)), failure, others));
                current = null;
            } else if (current != null) {
                between.add(line);
            }
        }
        return outcomes;
    }

    private static Measurement line(Row row, String tool, Outcome outcome, List<String> problems) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("call", row.call());
        params.put("group", row.group() == BlockingCorpus.Group.BLOCKS ? "blocks" : "does-not-wait");
        if (outcome == null) {
            String error = problems.isEmpty() ? "the " + tool + " corpus JVM did not run this call" : String.join("; ", problems);
            return Measurement.failed(WORKLOAD, tool, "default", "caught", error, params, null);
        }
        params.put("millis", outcome.millis());
        StringBuilder note = new StringBuilder();
        note.append(outcome.caught() ? outcome.evidence() : "not caught");
        if (outcome.failure() != null) {
            note.append("; the call failed: ").append(outcome.failure());
        }
        if (!outcome.otherFindings().isEmpty()) {
            note.append("; also: ").append(String.join(" | ", outcome.otherFindings()));
        }
        return Measurement.of(WORKLOAD, tool, "default", "caught", outcome.caught() ? 1 : 0, params, note.toString());
    }

    /** The table for a reader, and the calls BlockHound caught that the agent did not. */
    static String table(List<Row> rows) {
        StringBuilder table = new StringBuilder(String.format("%-52s %-13s %-8s %-10s%n", "call", "group", "loopdiag", "BlockHound"));
        Map<BlockingCorpus.Group, List<String>> missed = new LinkedHashMap<>();
        for (Row row : rows) {
            table.append(String.format("%-52s %-13s %-8s %-10s%n", row.call(),
                    row.group() == BlockingCorpus.Group.BLOCKS ? "blocks" : "does not wait", mark(row.loopdiag()), mark(row.blockHound())));
            if (onlyBlockHoundCaught(row)) {
                missed.computeIfAbsent(row.group(), group -> new ArrayList<>()).add(row.call());
            }
        }
        if (missed.isEmpty()) {
            table.append("every call BlockHound caught, loopdiag caught\n");
        }
        missed.forEach((group, calls) -> table.append("BlockHound caught, loopdiag did not (")
                .append(group == BlockingCorpus.Group.BLOCKS ? "calls that block" : "calls that do not wait").append("): ")
                .append(String.join(", ", calls)).append('\n'));
        return table.toString();
    }

    /** True if BlockHound caught the call and the agent did not (or never ran it). */
    static boolean onlyBlockHoundCaught(Row row) {
        return row.blockHound() != null && row.blockHound().caught() && (row.loopdiag() == null || !row.loopdiag().caught());
    }

    private static String mark(Outcome outcome) {
        return outcome == null ? "(not run)" : outcome.caught() ? "caught" : "-";
    }
}
