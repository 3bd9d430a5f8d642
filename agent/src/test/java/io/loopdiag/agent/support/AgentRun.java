package io.loopdiag.agent.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** A test-apps scenario run to its end in a child JVM with the packaged agent: what a user sees. */
public record AgentRun(int exitCode, String stdout, String stderr, Path reportPath) {
    public static final Path AGENT = Path.of("target/loopdiag-agent.jar").toAbsolutePath();
    public static final Path APPS = Path.of("../test-apps/target/test-apps.jar").toAbsolutePath();
    /** The Netty scenarios built against Netty 4.1. */
    public static final Path APPS_NETTY41 = Path.of("../test-apps-netty41/target/test-apps-netty41.jar").toAbsolutePath();

    /** Runs {@code scenario} with the agent given {@code options} (null: none) and the JVM options before {@code -jar}. */
    public static AgentRun run(String options, String scenario, String... jvmOptions) throws IOException, InterruptedException {
        return run(options, null, scenario, jvmOptions);
    }

    /** Runs {@code scenario} with {@code report=DIR/report.json}, checks it ended well, and keeps the report's path. */
    public static AgentRun runWithReport(Path dir, String scenario) throws IOException, InterruptedException {
        return runWithReport(dir, "", scenario);
    }

    /** Like {@link #runWithReport(Path, String)}, with more agent options first ({@code "slow=1s,"}). */
    public static AgentRun runWithReport(Path dir, String options, String scenario) throws IOException, InterruptedException {
        Path report = dir.resolve("report.json");
        AgentRun run = run(options + "report=" + report, report, scenario);
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals(scenario + " done", run.stdout().strip(), "the application ran as without the agent");
        return run;
    }

    private static AgentRun run(String options, Path report, String scenario, String... jvmOptions)
            throws IOException, InterruptedException {
        return run(command(options, scenario, jvmOptions), report);
    }

    /**
     * Runs {@code scenario} of {@code apps} (a test-apps jar) with {@code arguments}, the agent and
     * {@code report=DIR/report.json}, as it ends.
     */
    public static AgentRun runWithReport(Path apps, Path dir, String options, String scenario, String... arguments)
            throws IOException, InterruptedException {
        Path report = dir.resolve("report.json");
        List<String> command = command(options + "report=" + report, scenario);
        command.set(command.indexOf(APPS.toString()), apps.toString());
        command.addAll(List.of(arguments));
        AgentRun run = run(command, report);
        assertEquals(0, run.exitCode(), run.stderr());
        return run;
    }

    private static AgentRun run(List<String> command, Path report) throws IOException, InterruptedException {
        Process child = new ProcessBuilder(command).start();
        CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> read(child.getInputStream()));
        String stderr = read(child.getErrorStream());
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the scenario ended");
        return new AgentRun(child.exitValue(), stdout.join(), stderr, report);
    }

    /** The JSON report of a run made with {@link #runWithReport}. */
    public JsonNode report() throws IOException {
        return report(reportPath);
    }

    public static List<String> command(String options, String scenario, String... jvmOptions) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("-javaagent:" + AGENT + (options != null ? "=" + options : ""));
        command.addAll(List.of(jvmOptions));
        command.add("-jar");
        command.add(APPS.toString());
        command.add(scenario);
        return command;
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The stderr blocks whose first line starts with {@code loopdiag: KIND}, each with the lines under it. */
    public List<String> blocks(String kind) {
        return blocks(stderr, "loopdiag: " + kind);
    }

    public static List<String> blocks(String text, String header) {
        List<StringBuilder> blocks = new ArrayList<>();
        StringBuilder current = null;
        for (String line : text.lines().toList()) {
            if (line.startsWith(header)) {
                current = new StringBuilder(line).append('\n');
                blocks.add(current);
            } else if (current != null && line.startsWith("  ")) {
                current.append(line).append('\n');
            } else {
                current = null;
            }
        }
        return blocks.stream().map(StringBuilder::toString).toList();
    }

    /** The agent's {@code io.loopdiag.Detection} events in the JFR recording at {@code recording}, in order. */
    public static List<RecordedEvent> detectionEvents(Path recording) throws IOException {
        List<RecordedEvent> events = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
            if (event.getEventType().getName().equals("io.loopdiag.Detection")) {
                events.add(event);
            }
        }
        return events;
    }

    public static JsonNode report(Path path) throws IOException {
        return new ObjectMapper().readTree(path.toFile());
    }
}
