package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.tools.attach.VirtualMachine;
import io.loopdiag.agent.support.AgentRun;
import io.loopdiag.agent.support.LiveChild;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The packaged agent jar: its manifest, and a child JVM that loads it. */
@Timeout(60)
class AgentJarIT {
    private static final Path JAR = Path.of("target/loopdiag-agent.jar");

    @Test
    void theManifestNamesTheEntryPointsAndRetransformation() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertEquals("io.loopdiag.agent.AgentLauncher", main.getValue("Premain-Class"));
            assertEquals("io.loopdiag.agent.AgentLauncher", main.getValue("Agent-Class"));
            assertEquals("true", main.getValue("Can-Retransform-Classes"));
        }
    }

    @Test
    void everythingShadedLivesUnderIoLoopdiag() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            List<String> outside = jar.stream().map(e -> e.getName())
                    .filter(name -> !name.equals("io/") && !name.startsWith("io/loopdiag/") && !name.startsWith("META-INF/"))
                    .toList();
            assertEquals(List.of(), outside, "entries outside io/loopdiag/ and META-INF/");
            assertTrue(jar.getEntry("io/loopdiag/shaded/jackson/databind/ObjectMapper.class") != null, "Jackson is relocated");
            assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith("io/loopdiag/loop/")), "loop-core is the application's, not shaded in");
        }
    }

    /** Malformed option strings, each with what its one line must say. */
    static Stream<Arguments> badOptions() {
        return Stream.of(
                Arguments.of("colour=red", "unknown option 'colour'"),
                Arguments.of("slow=", "option 'slow' has an empty value"),
                Arguments.of("slow=soon", "option 'slow' needs a duration"),
                Arguments.of("slow=-5ms", "option 'slow' needs a duration"),
                Arguments.of("slow=99999999999s", "option 'slow' needs a duration"),
                Arguments.of("slow=9999999999m", "option 'slow' is longer than 60 minutes"),
                Arguments.of("slow=1s,,log=off", "an empty option"),
                Arguments.of("slow=1s,", "an empty option"),
                Arguments.of("=", "an option without a name"),
                Arguments.of("slow=1s;blocking=off", "option 'slow' needs a duration"),
                Arguments.of("log=\uFFFD", "option 'log' is stderr or off"),
                Arguments.of("report=" + "r".repeat(10_000), "option 'report'"),
                Arguments.of("slow=" + "9".repeat(10_000), "option 'slow' needs a duration"));
    }

    @ParameterizedTest(name = "-javaagent:...={0}")
    @MethodSource("badOptions")
    void badOptionsAreOneLineAndTheApplicationStillRuns(String options, String expected) throws Exception {
        AgentRun run = AgentRun.run(options, "blocking-sleep");
        assertOneRefusal(run.stderr(), expected);
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals("blocking-sleep done", run.stdout().strip(), "the application ran on");
    }

    /** Bytes that are not UTF-8 reach the agent as replacement characters, which the line shows escaped. */
    @Test
    void optionsThatAreNotUtf8AreOneLine() throws Exception {
        List<String> java = AgentRun.command("log=X", "blocking-sleep");
        String command = String.join(" ", java.stream().map(word -> "'" + word + "'").toList())
                .replace("=log=X'", "=log='\"$(printf '\\377\\376')\"");
        Process child = new ProcessBuilder("/bin/sh", "-c", "exec " + command).start();
        String stdout = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String stderr = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertOneRefusal(stderr, "option 'log' is stderr or off");
        assertEquals(0, child.exitValue(), stderr);
        assertEquals("blocking-sleep done", stdout.strip());
    }

    /** The same strings given to {@code loadAgent} in a running JVM, as {@code loopdiag attach --options} does. */
    @ParameterizedTest(name = "attach --options {0}")
    @MethodSource("badOptions")
    void badOptionsOnAttachAreOneLineAndTheApplicationRunsOn(String options, String expected) throws Exception {
        try (LiveChild child = LiveChild.scenario(null, "blocking-on-cue")) {
            child.expectLine("blocking-on-cue ready");
            VirtualMachine vm = VirtualMachine.attach(Long.toString(child.pid()));
            try {
                vm.loadAgent(AgentRun.AGENT.toString(), options);
            } finally {
                vm.detach();
            }
            child.awaitStderr("the agent is not installed");
            child.cue(1);
            assertEquals(0, child.finish("blocking-on-cue done"), child.stderr());
            assertOneRefusal(child.stderr(), expected);
            assertFalse(child.stderr().contains("loopdiag: blocking-call"), "no agent, no detection:\n" + child.stderr());
        }
    }

    /** A typo in the options must fail the CI gate, not pass it unwatched: the report the options name says why. */
    @Test
    void refusedOptionsThatNameAReportLeaveOneThatSaysSo(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("loopdiag.json");
        AgentRun run = AgentRun.run("report=" + report + ",slwo=1s", "blocking-sleep");
        assertOneRefusal(run.stderr(), "unknown option 'slwo'");
        assertEquals("blocking-sleep done", run.stdout().strip(), "the application ran on");
        JsonNode written = AgentRun.report(report);
        assertEquals("loopdiag-report/1", written.path("schema").asText());
        assertTrue(written.path("refused").asText().contains("unknown option 'slwo'"), written.toString());
        assertFalse(written.has("options"), written.toString());
        assertEquals(0, written.path("detections").size(), written.toString());
    }

    /** The JVMs of a build that run no loop (Maven's own) leave a report too: the proof they were watched. */
    @Test
    void aJvmThatRunsNoLoopLeavesAnEmptyReportAtExit(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("loopdiag.json");
        // test-apps-netty41.jar without a scenario lists its scenarios and exits: no loop-core, no loop
        Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                "-javaagent:" + JAR.toAbsolutePath() + "=report=" + report, "-jar", AgentRun.APPS_NETTY41.toString())
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("netty-stuck"), "it listed its scenarios:\n" + output);
        JsonNode written = AgentRun.report(report);
        assertEquals(child.pid(), written.path("pid").asLong(), written.toString());
        assertEquals(0, written.path("detections").size(), written.toString());
        assertFalse(written.has("refused"), written.toString());
    }

    /**
     * The agent streams what it writes: starting, finding and reporting load none of Jackson's data
     * binding (an object mapper costs about 90 ms at every JVM's start, docs/agent.md).
     */
    @Test
    void startingFindingAndReportingLoadNoObjectMapper(@TempDir Path dir) throws Exception {
        Path classes = dir.resolve("classes.txt");
        Path report = dir.resolve("report.json");
        AgentRun run = AgentRun.run("log=off,report=" + report, "blocking-sleep", "-Xlog:class+load:file=" + classes);
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(AgentRun.report(report).path("summary").path("blocking-call").asLong() > 0, "the report holds the finding");
        List<String> loaded = Files.readAllLines(classes);
        assertTrue(loaded.stream().anyMatch(line -> line.contains("io.loopdiag.shaded.jackson.core.JsonFactory ")), "the log lists the agent's classes");
        assertEquals(List.of(), loaded.stream().filter(line -> line.contains(".jackson.databind.")).toList());
    }

    private static void assertOneRefusal(String stderr, String expected) {
        List<String> lines = stderr.lines().filter(l -> l.startsWith("loopdiag:")).toList();
        assertEquals(1, lines.size(), stderr);
        assertTrue(lines.get(0).contains(expected), stderr);
        assertTrue(lines.get(0).endsWith("the agent is not installed"), stderr);
        assertTrue(lines.get(0).length() < 500, "a readable line: " + lines.get(0).length() + " characters");
    }

    /** JAVA_TOOL_OPTIONS reaches every JVM of a build, old ones too: they must run on, not abort. */
    @Test
    void aJvmOlderThan21RunsOnWithoutTheAgent() throws Exception {
        Optional<Path> oldJava;
        try (Stream<Path> homes = Files.list(Path.of("/usr/lib/jvm"))) {
            oldJava = homes.filter(home -> feature(home) > 0 && feature(home) < 21)
                    .map(home -> home.resolve("bin/java")).filter(Files::isExecutable).findFirst();
        } catch (IOException noJvms) {
            oldJava = Optional.empty();
        }
        assumeTrue(oldJava.isPresent(), "no Java older than 21 under /usr/lib/jvm to try");
        Process child = new ProcessBuilder(oldJava.get().toString(), "-javaagent:" + JAR.toAbsolutePath(), "-version")
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        List<String> lines = output.lines().filter(l -> l.startsWith("loopdiag:")).toList();
        assertEquals(1, lines.size(), output);
        assertTrue(lines.get(0).startsWith("loopdiag: the agent needs Java 21 or newer; this JVM is Java "), output);
        assertTrue(output.contains("version"), output);
    }

    private static int feature(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=\"")) {
                    return Integer.parseInt(line.substring("JAVA_VERSION=\"".length()).split("[.\"]")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    @Test
    void loadingTheAgentTwiceInstallsItOnce() throws Exception {
        String agent = "-javaagent:" + JAR.toAbsolutePath();
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process child = new ProcessBuilder(java, agent, agent, "-version").redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        List<String> lines = output.lines().filter(l -> l.startsWith("loopdiag:")).toList();
        assertEquals(2, lines.size(), output);
        assertTrue(lines.get(0).contains("loaded"), output);
        assertTrue(lines.get(1).contains("already installed"), output);
        assertTrue(Files.size(JAR) > 0);
    }

    /**
     * The agent at start and then attached, or attached twice: the second says so and one agent
     * runs, so a blocking call is reported once, not once per agent.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-javaagent, then attach", "attach, then attach"})
    void aSecondLoadByAttachSaysSoAndOneAgentRuns(String how) throws Exception {
        try (LiveChild child = LiveChild.scenario(how.startsWith("-javaagent") ? "log=stderr" : null, "blocking-on-cue")) {
            child.expectLine("blocking-on-cue ready");
            int loads = how.startsWith("-javaagent") ? 1 : 2;
            for (int i = 0; i < loads; i++) {
                VirtualMachine vm = VirtualMachine.attach(Long.toString(child.pid()));
                try {
                    vm.loadAgent(AgentRun.AGENT.toString(), "");
                } finally {
                    vm.detach();
                }
            }
            child.awaitStderr("already installed");
            child.cue(1);
            assertEquals(0, child.finish("blocking-on-cue done"), child.stderr());
            List<String> said = child.stderr().lines().filter(line -> line.startsWith("loopdiag:")).toList();
            assertEquals(1, said.stream().filter(line -> line.contains(" loaded (")).count(), child.stderr());
            assertEquals(1, said.stream().filter(line -> line.contains("already installed")).count(), child.stderr());
            assertEquals(1, said.stream().filter(line -> line.startsWith("loopdiag: blocking-call")).count(),
                    "one agent, one report of the call:\n" + child.stderr());
        }
    }
}
