package io.loopdiag.cli;

import io.loopdiag.protocol.JvmFlags;
import io.loopdiag.protocol.Text;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The README's main job: starts the test-apps {@code stuck-service} with the agent, a service
 * whose loop a blocking call freezes with 100 requests waiting behind it; shows the agent's
 * detections as they happen (the service's stderr, marked {@code |}); then looks into the live
 * process by its pid as a user would, with {@code hang}, {@code ps}, {@code dump} and {@code pstree}; stops it
 * and shows what the agent reports at exit.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        header = "Runs a stuck service with the agent and diagnoses it live, as a user would.")
final class DemoCommand implements Callable<Integer> {
    private static final String SCENARIO = "stuck-service";
    /** Long enough for the stall to be reported at its limit and again at twice it. */
    private static final long LET_IT_STALL_MILLIS = 450;
    private static final int PS_ROWS_SHOWN = 8;

    @Spec
    CommandSpec spec;

    @Option(names = "--apps", paramLabel = "JAR", description = "test-apps.jar (default: the one built beside this jar in a checkout)")
    Path appsJar;

    @Option(names = "--agent", paramLabel = "JAR", description = "the agent jar (default: the one this jar carries)")
    Path agentJar;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path apps = appsJar != null ? appsJar.toAbsolutePath() : Jars.apps();
        if (apps == null || !Files.isRegularFile(apps)) {
            spec.commandLine().getErr().println("loopdiag: no test-apps.jar " + (apps != null ? "at " + apps : "beside this jar")
                    + " (build the project with ./build package, or give --apps JAR)");
            return ExitCodes.USAGE;
        }
        Path agent = agentJar != null ? agentJar.toAbsolutePath() : Jars.agent();
        if (!Files.isRegularFile(agent)) {
            spec.commandLine().getErr().println("loopdiag: no agent jar at " + agent + " (give --agent JAR)");
            return ExitCodes.USAGE;
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        // This JVM's java, 21 or newer, accepts the flags; nothing here debugs the service.
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(JvmFlags.WITHOUT_JVMTI_TRANSITIONS);
        command.addAll(List.of("-javaagent:" + agent, "-jar", apps.toString(), SCENARIO));
        out.println("== 1. A service on the loop, with the agent (the -XX flags make it cheaper on virtual threads):");
        out.println("   java " + String.join(" ", JvmFlags.WITHOUT_JVMTI_TRANSITIONS) + " -javaagent:" + agent + " -jar "
                + Path.of("").toAbsolutePath().relativize(apps) + " " + SCENARIO);
        out.println("   It handles 100 requests that all need the cache's lock; the task refreshing the cache");
        out.println("   holds it and calls CompletableFuture.get() on the loop. What the agent prints (|):");
        out.flush();
        Process service = new ProcessBuilder(command).start();
        Thread stderr = pump(service, out);
        try {
            String ready = new BufferedReader(new InputStreamReader(service.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (ready == null || !ready.equals(SCENARIO + " ready")) {
                spec.commandLine().getErr().println("loopdiag: the service did not start (it printed: " + ready + ")");
                return ExitCodes.FINDINGS_OR_FAILURE;
            }
            Thread.sleep(LET_IT_STALL_MILLIS);
            String pid = Long.toString(service.pid());
            synchronized (out) {
                title(out, "== 2. Every request times out, the CPU idles. What is stuck, and on what? loopdiag hang --interval 1s " + pid);
                printHead(out, verb("hang", "--interval", "1s", pid), 14);
                title(out, "== 3. Which task waits on what? loopdiag ps " + pid);
                printHead(out, verb("ps", "--sort", "waited", pid), PS_ROWS_SHOWN + 1);
                title(out, "== 4. The loop is inside one callback, at which line? loopdiag dump " + pid + " (start)");
                printHead(out, verb("dump", pid), 16);
                title(out, "== 5. Who waits on whom: loopdiag pstree " + pid);
                printHead(out, verb("pstree", pid), 8);
                title(out, "== 6. Stopping the service; at exit the agent reports what nobody retrieved:");
            }
        } finally {
            // SIGTERM through the handle: Process.destroy would also close the pipes, and lose
            // what the agent prints at exit.
            service.toHandle().destroy();
            if (!service.waitFor(10, TimeUnit.SECONDS)) {
                service.destroyForcibly();
            }
            stderr.join(TimeUnit.SECONDS.toMillis(10));
        }
        out.println();
        out.println("Done. The blocking call, its line, and the 100 tasks behind it, found in seconds;");
        out.println("'loopdiag --help' lists the verbs; docs/agent.md the agent's options.");
        return ExitCodes.OK;
    }

    /** Copies the service's stderr to {@code out} as it comes, each line marked. */
    private static Thread pump(Process service, PrintWriter out) {
        Thread thread = new Thread(() -> {
            try (BufferedReader err = new BufferedReader(new InputStreamReader(service.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = err.readLine()) != null) {
                    synchronized (out) {
                        out.println("   | " + Text.printable(line));
                        out.flush();
                    }
                }
            } catch (java.io.IOException ended) {
                // The service is gone.
            }
        }, "demo-stderr");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** What a verb prints, run in this JVM as the command line would run it. */
    private String verb(String... args) {
        StringWriter text = new StringWriter();
        PrintWriter writer = new PrintWriter(text, true);
        Main.commandLine(writer, writer).execute(args);
        return text.toString();
    }

    /** A step's title after a blank line, shown at once: the step's verb takes a moment. */
    private static void title(PrintWriter out, String title) {
        out.println();
        out.println(title);
        out.flush();
    }

    private static void printHead(PrintWriter out, String text, int lines) {
        List<String> all = text.lines().toList();
        all.stream().limit(lines).forEach(line -> out.println("   " + line));
        if (all.size() > lines) {
            out.println("   ... (" + (all.size() - lines) + " more lines)");
        }
    }
}
