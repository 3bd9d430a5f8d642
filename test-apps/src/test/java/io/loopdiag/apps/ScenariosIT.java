package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each scenario of the packaged test-apps.jar in a child JVM without the agent: the finite ones
 * print {@code NAME done} as their only line and exit 0, so the agent's end-to-end tests can rely on it.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ScenariosIT {
    private static final Path JAR = Path.of("target", "test-apps.jar");
    /** Each finishes on its own in well under 5 s. */
    private static final List<String> FINITE = List.of(
            "healthy", "slow-callback",
            "blocking-sleep", "blocking-wait", "blocking-park", "blocking-future", "blocking-queue",
            "blocking-lock", "blocking-socket", "blocking-file", "blocking-process", "blocking-dns", "blocking-monitor", "blocking-pinned",
            "blocking-storm",
            "never-awaited", "lost-exception", "hostile-names",
            "vertx-blocking", "reactor-blocking", "swing-edt-freeze");
    /** Finite too, and each says on stderr which Netty it runs on (test-apps-netty41's Netty41JarIT runs them on 4.1). */
    private static final List<String> NETTY = List.of("netty-stuck", "netty-slow-handler", "netty-lost-write", "netty-healthy");
    /** The Netty line this jar is built with, from the build. */
    private static final String NETTY_VERSION = System.getProperty("expected.netty.version", "(not set by the build)");
    /**
     * These run until killed (blocking-on-cue: until its stdin ends); EchoServerIT covers echo-server,
     * HttpServerIT http-server, the agent's SoakServerIT soak-server.
     */
    private static final List<String> ENDLESS = List.of("echo-server", "http-server", "loop-stall", "stuck-service",
            "await-deadlock", "wait-graph", "half-busy", "twin-loops", "no-loop", "many-tasks", "blocking-on-cue", "soak-server", "closing-loops");

    static List<String> finiteScenarios() {
        return FINITE;
    }

    /** Each Netty scenario on NIO, then on the native epoll transport. */
    static List<String> nettyScenarios() {
        return Stream.of("", " --transport epoll").flatMap(transport -> NETTY.stream().map(name -> name + transport)).toList();
    }

    private static ProcessBuilder scenario(String... args) {
        assertTrue(Files.isRegularFile(JAR), JAR.toAbsolutePath() + " is missing: run mvn package first");
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-jar", JAR.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("finiteScenarios")
    void finiteScenarioPrintsOnlyItsDoneLineAndExitsZero(String name, @TempDir Path dir) throws Exception {
        Path stderr = dir.resolve("stderr.txt");
        Process child = scenario(name).redirectError(stderr.toFile()).start();
        try {
            String out = new String(child.getInputStream().readAllBytes(), UTF_8);
            assertTrue(child.waitFor(20, TimeUnit.SECONDS), name + " did not exit");
            String err = Files.readString(stderr);
            assertEquals(0, child.exitValue(), name + " failed:\n" + err);
            assertEquals(List.of(name + " done"), out.lines().toList(), "stdout of " + name);
            // Without the agent nothing is printed on stderr: a failure on a helper thread would be.
            assertEquals(List.of(), err.lines().filter(line -> !line.startsWith("Picked up ")).toList(),
                    "stderr of " + name);
        } finally {
            kill(child);
        }
    }

    /**
     * On stderr a Netty scenario says first which Netty it runs on, then only lines of its own, each
     * starting with its name (netty-stuck's say how long the health checks waited).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("nettyScenarios")
    void nettyScenarioNamesItsNettyFirstAndExitsZero(String command, @TempDir Path dir) throws Exception {
        String name = command.split(" ")[0];
        Path stderr = dir.resolve("stderr.txt");
        Process child = scenario(command.split(" ")).redirectError(stderr.toFile()).start();
        try {
            String out = new String(child.getInputStream().readAllBytes(), UTF_8);
            assertTrue(child.waitFor(20, TimeUnit.SECONDS), name + " did not exit");
            String err = Files.readString(stderr);
            assertEquals(0, child.exitValue(), name + " failed:\n" + err);
            assertEquals(List.of(name + " done"), out.lines().toList(), "stdout of " + name);
            List<String> lines = err.lines().filter(line -> !line.startsWith("Picked up ")).toList();
            assertEquals(name + ": Netty " + NETTY_VERSION + (command.endsWith("epoll") ? " on epoll" : ""), lines.get(0), "stderr of " + name);
            assertEquals(List.of(), lines.stream().filter(line -> !line.startsWith(name + ": ")).toList(), "stderr of " + name);
        } finally {
            kill(child);
        }
    }

    @Test
    void nettyStuckShowsTheHealthChecksWaitingForTheHeldLoop(@TempDir Path dir) throws Exception {
        Path stderr = dir.resolve("stderr.txt");
        Process child = scenario("netty-stuck", "--hold", "2").redirectError(stderr.toFile()).start();
        try {
            child.getInputStream().readAllBytes();
            assertTrue(child.waitFor(20, TimeUnit.SECONDS), "netty-stuck did not exit");
            String err = Files.readString(stderr);
            assertEquals(0, child.exitValue(), err);
            assertTrue(err.contains("netty-stuck: the loop is in the backend call for 2000 ms\n"), err);
            String waited = err.lines().filter(line -> line.startsWith("netty-stuck: 3 GET /health on other connections waited "))
                    .findFirst().orElseThrow(() -> new AssertionError("no line on the waits:\n" + err));
            for (String millis : waited.replaceAll(".* waited (.*) ms for the loop", "$1").split(", ")) {
                assertTrue(Long.parseLong(millis) >= 1000, "a health check did not wait for the loop: " + waited);
            }
        } finally {
            kill(child);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"loop-stall, loop-stall spinning", "stuck-service, stuck-service ready", "await-deadlock, await-deadlock ready", "wait-graph, wait-graph ready", "half-busy, half-busy ready",
        "twin-loops, twin-loops ready", "no-loop, no-loop ready", "many-tasks, many-tasks ready", "blocking-on-cue, blocking-on-cue ready",
        "closing-loops, closing-loops ready", "hostile-names --serve, hostile-names ready"})
    void anEndlessScenarioSaysItIsReadyAndNeverExits(String command, String firstLine) throws Exception {
        String name = command.split(" ")[0];
        Process child = scenario(command.split(" ")).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader stdout = new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8));
            assertEquals(firstLine, stdout.readLine());
            assertFalse(child.waitFor(300, TimeUnit.MILLISECONDS), name + " exited: it should run until killed");
        } finally {
            kill(child);
        }
    }

    @Test
    void everyListedScenarioIsCoveredHere() throws IOException, InterruptedException {
        Process listing = scenario().redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            String out = new String(listing.getInputStream().readAllBytes(), UTF_8);
            assertTrue(listing.waitFor(20, TimeUnit.SECONDS), "the listing did not exit");
            Set<String> listed = out.lines().filter(line -> line.startsWith("  "))
                    .map(line -> line.strip().split("\\s+")[0]).collect(Collectors.toCollection(TreeSet::new));
            Set<String> covered = new TreeSet<>(FINITE);
            covered.addAll(NETTY);
            covered.addAll(ENDLESS);
            assertEquals(covered, listed, "a scenario is listed but not tested here, or the other way round");
        } finally {
            kill(listing);
        }
    }
}
