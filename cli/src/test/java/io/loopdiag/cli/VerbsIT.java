package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The packaged CLI against test-apps scenarios running in child JVMs, by process id, as a user
 * runs it: its output and its exit code.
 */
@Timeout(120)
class VerbsIT {
    private static final String JAVA = ProcessHandle.current().info().command().orElseThrow();
    private static final Path CLI = Path.of("target/loopdiag.jar").toAbsolutePath();
    private static final Path AGENT = Path.of("../agent/target/loopdiag-agent.jar").toAbsolutePath();
    private static final Path APPS = Path.of("../test-apps/target/test-apps.jar").toAbsolutePath();

    private final List<Process> started = new ArrayList<>();

    /** What the CLI printed and returned. */
    record Run(int exitCode, String out, String err) {
    }

    @AfterEach
    void stopTargets() throws InterruptedException {
        for (Process target : started) {
            target.destroyForcibly();
            target.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Starts {@code scenario} (with the agent unless told not to) and returns once it says it is ready. */
    private Process start(String scenario, boolean withAgent) throws Exception {
        List<String> command = new ArrayList<>(List.of(JAVA));
        if (withAgent) {
            command.add("-javaagent:" + AGENT + "=log=off");
        }
        command.addAll(List.of("-jar", APPS.toString(), scenario));
        Process target = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        started.add(target);
        String ready = new BufferedReader(new InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(ready != null && (ready.endsWith(" ready") || ready.startsWith("echo-server listening")), "started: " + ready);
        return target;
    }

    private static Run cli(String... args) throws Exception {
        return cli(List.of(), args);
    }

    private static Run cli(List<String> prefix, String... args) throws Exception {
        return cliJar(CLI, prefix, args);
    }

    private static Run cliJar(Path jar, List<String> prefix, String... args) throws Exception {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(JAVA, "-jar", jar.toString()));
        command.addAll(List.of(args));
        Process cli = new ProcessBuilder(command).start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(cli.getErrorStream()));
        String out = read(cli.getInputStream());
        assertTrue(cli.waitFor(60, TimeUnit.SECONDS), "the CLI ended");
        return new Run(cli.exitValue(), out, err.join());
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void psAndDumpOfAStuckServiceShowTheHundredWaitingTasksAndTheBlockingFrame() throws Exception {
        String pid = Long.toString(start("stuck-service", true).pid());

        Run ps = cli("ps", "--sort", "waited", pid);
        assertEquals(0, ps.exitCode(), ps.err());
        List<String> waiting = ps.out().lines().filter(l -> l.contains(" request-") && l.contains(" lock ")).toList();
        assertEquals(100, waiting.size(), ps.out());
        assertTrue(ps.out().lines().allMatch(l -> l.length() <= Views.WIDTH), "fits 100 columns:\n" + ps.out());
        assertTrue(ps.out().matches("(?s).*loop 'stuck-service' has been running for [^:]+: step of Task\\[refresh-cache #3, running].*"), ps.out());
        assertTrue(ps.out().contains("StuckService.fetchConfigBlocking(StuckService.java:"), ps.out());

        Run dump = cli("dump", pid);
        assertEquals(0, dump.exitCode(), dump.err());
        assertTrue(dump.out().contains("  running for "), dump.out());
        assertTrue(dump.out().contains("    at java.base/java.util.concurrent.CompletableFuture.get("), dump.out());
        assertTrue(dump.out().contains("    at io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:"), dump.out());
        assertEquals(100, dump.out().lines().filter(l -> l.matches("task 'request-\\d+' #\\d+ \\[suspended .*, awaits lock .*")).count(),
                dump.out());
        assertTrue(dump.out().contains("blocking-call on loop 'stuck-service': java.util.concurrent.CompletableFuture.get"),
                "the findings so far:\n" + dump.out());

        Run json = cli("dump", "--json", pid);
        JsonNode root = new ObjectMapper().readTree(json.out());
        assertEquals("loopdiag-dump/1", root.path("schema").asText());
        assertEquals(102, root.path("loops").get(0).path("tasks").size());
        assertEquals(3, root.path("loops").get(0).path("running").path("taskId").asLong(), "refresh-cache is running");
    }

    @Test
    void pstreeFindsTheAwaitCycleWithBothTasksAndStillPrintsTheRest() throws Exception {
        String pid = Long.toString(start("await-deadlock", true).pid());
        Run tree = cli("pstree", pid);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, tree.exitCode(), "a cycle is a finding:\n" + tree.out() + tree.err());
        assertTrue(tree.out().contains("↺ await cycle: 'ledger' #2 → 'audit' #3 → 'ledger' #2"), tree.out());
        assertTrue(tree.out().contains("(T) 'main' #1"), tree.out());
        assertTrue(tree.out().contains("(T) 'heartbeat' #4"), "the rest of the tree:\n" + tree.out());
        assertTrue(tree.out().contains("at io.loopdiag.apps.AwaitDeadlock.auditLedger(AwaitDeadlock.java:"), tree.out());
        assertTrue(tree.out().lines().allMatch(l -> l.length() <= Views.WIDTH), "fits 100 columns:\n" + tree.out());
    }

    @Test
    void attachLoadsTheAgentIntoAJvmStartedWithoutIt() throws Exception {
        String pid = Long.toString(start("echo-server", false).pid());
        Run before = cli("ps", pid);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, before.exitCode());
        assertTrue(before.err().contains("runs without the loopdiag agent") && before.err().contains("loopdiag attach " + pid),
                before.err());

        Run attach = cli("attach", pid, "--options", "slow=50ms");
        assertEquals(0, attach.exitCode(), attach.err());
        assertTrue(attach.out().contains("loaded the agent into JVM " + pid), attach.out());
        assertTrue(attach.out().contains("-XX:+EnableDynamicAgentLoading"), "says how to avoid the JDK's warning:\n" + attach.out());

        Run ps = cli("ps", pid);
        assertEquals(0, ps.exitCode(), ps.err());
        assertTrue(ps.out().contains(" main "), ps.out());
        Run again = cli("attach", pid);
        assertEquals(0, again.exitCode());
        assertTrue(again.out().contains("already runs the loopdiag agent"), again.out());
    }

    @Test
    void listShowsTheJvmWithItsAgentAndLoops() throws Exception {
        long pid = start("stuck-service", true).pid();
        Run list = cli("list", "--json");
        assertEquals(0, list.exitCode(), list.err());
        JsonNode jvms = new ObjectMapper().readTree(list.out()).path("jvms");
        JsonNode row = null;
        for (JsonNode jvm : jvms) {
            if (jvm.path("pid").asLong() == pid) {
                row = jvm;
            }
        }
        assertTrue(row != null, list.out());
        assertEquals(1, row.path("loops").asInt(), row.toString());
        assertEquals(102, row.path("tasks").asInt(), row.toString());
        assertTrue(row.path("main").asText().contains("stuck-service"), row.toString());
    }

    @Test
    void badProcessIdsGetOneLineAndTheirExitCode() throws Exception {
        Process notJava = new ProcessBuilder("sleep", "60").start();
        started.add(notJava);
        String[][] cases = {
            {"0", "2", "not a process id"},
            {"abc", "2", "'abc'"},
            {"2147483647", "1", "no process with id 2147483647"},
            {Long.toString(notJava.pid()), "1", "is not a Java virtual machine"},
        };
        for (String[] c : cases) {
            for (String verb : List.of("ps", "pstree", "dump", "attach")) {
                Run run = cli(verb, c[0]);
                assertEquals(Integer.parseInt(c[1]), run.exitCode(), verb + " " + c[0] + ": " + run.err());
                assertEquals(1, run.err().lines().count(), verb + " " + c[0] + ": one line:\n" + run.err());
                assertTrue(run.err().startsWith("loopdiag: ") && run.err().contains(c[2]), verb + " " + c[0] + ": " + run.err());
            }
        }
    }

    @Test
    void aJvmWithoutAnOpenLoopOrWithoutTheAgentIsSaidSo() throws Exception {
        String noLoop = Long.toString(start("no-loop", true).pid());
        for (String verb : List.of("ps", "pstree", "dump")) {
            Run run = cli(verb, noLoop);
            assertEquals(ExitCodes.FINDINGS_OR_FAILURE, run.exitCode(), run.err());
            assertEquals("loopdiag: JVM " + noLoop + " has no open event loop", run.err().strip());
        }
        String noAgent = Long.toString(start("no-loop", false).pid());
        Run run = cli("dump", noAgent);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, run.exitCode(), run.err());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains("runs without the loopdiag agent"), run.err());
    }

    @Test
    void anotherUsersJvmIsRefused() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "needs root and setpriv to run the CLI as another user");
        String pid = Long.toString(start("stuck-service", true).pid());
        // The other user must be able to read the CLI: a copy in a folder open to all.
        Path open = Files.createTempDirectory("loopdiag-cli", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path jar = Files.copy(CLI, open.resolve("loopdiag.jar"));
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-r--r--"));
        Run run = cliJar(jar, List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"), "ps", pid);
        Files.delete(jar);
        Files.delete(open);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains("belongs to user 'root'"), run.err());
    }
}
