package io.loopdiag.cli;

import io.loopdiag.protocol.AgentOptionNames;
import io.loopdiag.protocol.JvmFlags;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag run -- COMMAND...}: runs a command with the agent in every JVM it starts, through
 * {@code JAVA_TOOL_OPTIONS} (so a Maven build's test forks are covered), each JVM keeping its own
 * report; then judges the reports as {@code check} does. The command's own failure comes first.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        header = "Runs a command with the agent in every JVM it starts, then checks their reports.",
        description = {"Example: loopdiag run -- mvn test",
            "Exit codes: the command's own exit code if it failed; else 0 no new finding of a failing kind, 1 there is one;"
                    + " 2 bad usage, the command cannot be started, no JVM of it wrote a report (none was watched),"
                    + " or a report says the agent refused its options."})
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    CheckOptions options;

    @Option(names = "--report", paramLabel = "DIR", defaultValue = "target/loopdiag",
            description = "Where each JVM writes its report, loopdiag-PID.json (default: ${DEFAULT-VALUE}).")
    Path reportDir;

    @Option(names = "--agent-options", paramLabel = "OPTIONS",
            description = "More agent options, such as slow=250ms,allow=com.acme.Cache#load (not report).")
    String agentOptions;

    @Option(names = "--keep-jvmti-transitions",
            description = "Keep the JVM's JVMTI notifications at each virtual-thread mount, which a debugger of virtual threads needs."
                    + " By default run turns them off (they make any agent's task switch slower) when the command's java accepts it"
                    + " and nothing in the command or its JVM options loads a native agent such as jdwp.")
    boolean keepJvmtiTransitions;

    @Parameters(paramLabel = "COMMAND", arity = "1..*", description = "The command and its arguments, after --.")
    List<String> command;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        Path agent;
        try {
            agent = Jars.agent();
        } catch (IOException e) {
            err.println("loopdiag: cannot put the agent jar where the command's JVMs can load it (" + e.getMessage() + ")");
            return ExitCodes.FINDINGS_OR_FAILURE;
        }
        Path reports = reportDir.toAbsolutePath().normalize();
        String reportOption = AgentOptionNames.REPORT + "=";
        String problem = unsafe(agent.toString()) ? "the agent jar's path " + agent + " has a space, comma or quote, which JAVA_TOOL_OPTIONS cannot carry"
                : unsafe(reports.toString()) ? "--report " + reports + " has a space, comma or quote, which JAVA_TOOL_OPTIONS cannot carry"
                : agentOptions != null && (agentOptions.contains(reportOption) || unsafe(agentOptions.replace(",", "")))
                        ? "--agent-options cannot set report (use --report) or hold spaces or quotes" : null;
        if (problem != null) {
            err.println("loopdiag: " + problem);
            return ExitCodes.USAGE;
        }
        Files.createDirectories(reports);
        String javaAgent = "-javaagent:" + agent + "=" + reportOption + reports.resolve("loopdiag-" + AgentOptionNames.PID_PLACEHOLDER + ".json")
                + (agentOptions != null && !agentOptions.isBlank() ? AgentOptionNames.SEPARATOR + agentOptions : "");
        String inherited = System.getenv("JAVA_TOOL_OPTIONS");
        List<String> jvmOptions = new ArrayList<>();
        if (inherited != null && !inherited.isBlank()) {
            jvmOptions.add(inherited);
        }
        jvmOptions.addAll(withoutJvmtiTransitions());
        jvmOptions.add(javaAgent);
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().put("JAVA_TOOL_OPTIONS", String.join(" ", jvmOptions));

        Instant started = Instant.now().minusSeconds(1); // file times may be coarser than the clock
        Process child;
        try {
            child = builder.start();
        } catch (IOException e) {
            err.println("loopdiag: cannot run '" + Text.printable(command.get(0)) + "' (" + e.getMessage() + ")");
            return ExitCodes.USAGE;
        }
        Thread stopChild = new Thread(child::destroy, "loopdiag-run-stop");
        Runtime.getRuntime().addShutdownHook(stopChild); // a TERM to us reaches the command
        int exit = child.waitFor();
        Runtime.getRuntime().removeShutdownHook(stopChild);

        PrintWriter out = spec.commandLine().getOut();
        List<Path> written = reportsSince(reports, started);
        out.println();
        if (written.isEmpty()) {
            out.println("loopdiag run: no JVM of the command wrote a report in " + reports + ", so none was watched"
                    + " (every JVM with the agent writes one at exit: is the command a Java 21+ build, and does it keep JAVA_TOOL_OPTIONS?)");
            out.flush();
            return exit != 0 ? exit : ExitCodes.USAGE;
        }
        int verdict = Verdict.judge(written, options, out, err);
        if (exit != 0) {
            out.println("loopdiag run: the command failed with exit code " + exit);
            out.flush();
            return exit;
        }
        return verdict;
    }

    /**
     * The flags that turn the JVM's virtual-thread mount notifications off, or none: none when asked
     * to keep them, when the command or the JVM options it inherits load a native agent (a debugger
     * needs them), or when the java the command runs (its first word if that is java, else
     * JAVA_HOME's, else the one on PATH) refuses the flags, as one older than JDK 20 does.
     */
    private List<String> withoutJvmtiTransitions() {
        List<String> none = List.of();
        if (keepJvmtiTransitions) {
            return none;
        }
        Stream<String> options = Stream.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS", "GRADLE_OPTS").map(System::getenv);
        if (Stream.concat(command.stream(), options).anyMatch(text -> text != null && JvmFlags.loadsNativeAgent(text))) {
            return none;
        }
        Path java = javaOfCommand();
        if (java == null) {
            return none;
        }
        List<String> probe = new ArrayList<>();
        probe.add(java.toString());
        probe.addAll(JvmFlags.WITHOUT_JVMTI_TRANSITIONS);
        probe.add("-version");
        ProcessBuilder builder = new ProcessBuilder(probe).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        try {
            Process process = builder.start();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return none;
            }
            return process.exitValue() == 0 ? JvmFlags.WITHOUT_JVMTI_TRANSITIONS : none;
        } catch (IOException e) {
            return none;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return none;
        }
    }

    /** The java the command will most likely run, or null if none is found. */
    private Path javaOfCommand() {
        String first = command.get(0);
        if (first.equals("java")) {
            return onPath("java");
        }
        if (first.endsWith("/java")) {
            return Path.of(first);
        }
        String javaHome = System.getenv("JAVA_HOME");
        if (javaHome != null && !javaHome.isBlank() && Files.isExecutable(Path.of(javaHome, "bin", "java"))) {
            return Path.of(javaHome, "bin", "java");
        }
        return onPath("java");
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String folder : path.split(java.io.File.pathSeparator)) {
            if (!folder.isEmpty() && Files.isExecutable(Path.of(folder, name))) {
                return Path.of(folder, name);
            }
        }
        return null;
    }

    private static boolean unsafe(String text) {
        return text.chars().anyMatch(c -> Character.isWhitespace(c) || c == ',' || c == '"' || c == '\'');
    }

    /** The reports in {@code folder} written since {@code started}: this run's JVMs', not an earlier run's. */
    private static List<Path> reportsSince(Path folder, Instant started) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> p.getFileName().toString().matches("loopdiag-\\d+\\.json"))
                    .filter(p -> {
                        try {
                            return Files.getLastModifiedTime(p).toInstant().isAfter(started);
                        } catch (IOException gone) {
                            return false;
                        }
                    })
                    .sorted().toList();
        }
    }
}
