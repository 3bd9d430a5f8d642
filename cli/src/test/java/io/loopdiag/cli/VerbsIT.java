package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.cli.support.Jvms;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged CLI against test-apps scenarios running in child JVMs, by process id, as a user
 * runs it: its output and its exit code.
 */
@Timeout(120)
class VerbsIT {
    private final Jvms jvms = new Jvms();

    @AfterEach
    void stopTargets() throws InterruptedException {
        jvms.close();
    }

    private Process start(String scenario, boolean withAgent) throws Exception {
        return jvms.start(withAgent ? "log=off" : null, scenario).process();
    }

    private Jvms.Run cli(String... args) throws Exception {
        return jvms.cli(args);
    }

    @Test
    void psAndDumpOfAStuckServiceShowTheHundredWaitingTasksAndTheBlockingFrame() throws Exception {
        String pid = Long.toString(start("stuck-service", true).pid());

        Jvms.Run ps = cli("ps", "--sort", "waited", pid);
        assertEquals(0, ps.exitCode(), ps.err());
        List<String> waiting = ps.out().lines().filter(l -> l.contains(" request-") && l.contains(" lock ")).toList();
        assertEquals(100, waiting.size(), ps.out());
        assertTrue(ps.out().lines().anyMatch(l -> l.matches("stuck-service +3 refresh-cache +running .*")),
                "to a pipe, every name whole:\n" + ps.out());
        assertTrue(ps.out().matches("(?s).*loop 'stuck-service' has been running for [^:]+: step of Task\\[refresh-cache #3, running].*"), ps.out());
        assertTrue(ps.out().contains("StuckService.fetchConfigBlocking(StuckService.java:"), ps.out());

        Jvms.Run tree = cli("pstree", pid);
        assertEquals(0, tree.exitCode(), tree.err());
        assertTrue(tree.out().contains("└── 100 tasks 'request-0'..'request-99' wait for lock held by 'refresh-cache' #3 [#4..#103, suspended, "),
                "the hundred waiters are one line, not a hundred roots:\n" + tree.out());
        assertTrue(tree.out().matches("(?s).*\n    └── \\(T\\) 'refresh-cache' #3 \\[running]\n.*"), "the holder under them:\n" + tree.out());

        Jvms.Run dump = cli("dump", pid);
        assertEquals(0, dump.exitCode(), dump.err());
        assertTrue(dump.out().contains("  running for "), dump.out());
        assertTrue(dump.out().contains("    at java.base/java.util.concurrent.CompletableFuture.get("), dump.out());
        assertTrue(dump.out().contains("    at io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:"), dump.out());
        assertEquals(100, dump.out().lines().filter(l -> l.matches("task 'request-\\d+' #\\d+ \\[suspended .*, awaits lock .*")).count(),
                dump.out());
        assertTrue(dump.out().contains("blocking-call on loop 'stuck-service': java.util.concurrent.CompletableFuture.get"),
                "the findings so far:\n" + dump.out());

        Jvms.Run grouped = cli("dump", "--group", pid);
        assertEquals(0, grouped.exitCode(), grouped.err());
        assertTrue(grouped.out().matches("(?s).*\n100 tasks 'request-0'\\.\\.'request-99' #4\\.\\.#103 \\[suspended [^,]+, awaits lock held by #3]:\n"
                + "    at io\\.loopdiag\\.loop\\.sync\\.Lock\\.withLock\\(Lock\\.java:\\d+\\)\n.*"), "one block for the hundred:\n" + grouped.out());
        assertTrue(grouped.out().lines().noneMatch(l -> l.startsWith("task 'request-")), grouped.out());

        Jvms.Run json = cli("dump", "--json", pid);
        JsonNode root = new ObjectMapper().readTree(json.out());
        assertEquals("loopdiag-dump/1", root.path("schema").asText());
        assertEquals(102, root.path("loops").get(0).path("tasks").size());
        assertEquals(3, root.path("loops").get(0).path("running").path("taskId").asLong(), "refresh-cache is running");
    }

    /** A dump saved with dump --json is read later, elsewhere, by ps, pstree and hang, as the live JVM would be. */
    @Test
    void psPstreeAndHangReadSavedDumps(@TempDir Path dir) throws Exception {
        String pid = Long.toString(start("await-deadlock", true).pid());
        List<Path> saved = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Jvms.Run dump = cli("dump", "--json", pid);
            assertEquals(0, dump.exitCode(), dump.err());
            saved.add(Files.writeString(dir.resolve("dump-" + i + ".json"), dump.out()));
            Thread.sleep(100); // the dumps' own times say how far apart they are
        }
        jvms.close(); // the JVM is gone: what follows reads the files alone

        Jvms.Run tree = cli("pstree", "--file", saved.get(1).toString());
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, tree.exitCode(), tree.out() + tree.err());
        assertTrue(tree.out().contains("↺ await cycle: 'ledger' #2 → 'audit' #3 → 'ledger' #2"), tree.out());
        Jvms.Run ps = cli("ps", "--json", "--file", saved.get(1).toString());
        assertEquals(0, ps.exitCode(), ps.err());
        assertTrue(ps.out().contains("\"pid\" : " + pid), "the saved dump's JVM: " + ps.out());
        Jvms.Run hang = cli("hang", "--file", saved.get(0).toString(), "--file", saved.get(1).toString());
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, hang.exitCode(), hang.out() + hang.err());
        assertTrue(hang.out().startsWith("loopdiag hang: STUCK in JVM " + pid + " (dumps "), hang.out());
        assertTrue(hang.out().contains("    → awaits 'audit' #3 → awaits 'ledger' #2: a cycle\n"), hang.out());

        Jvms.Run notADump = cli("pstree", "--file", dir.resolve("dump-0.json").getParent().toString());
        assertEquals(ExitCodes.USAGE, notADump.exitCode(), notADump.out() + notADump.err());
        assertEquals(1, notADump.err().lines().count(), notADump.err());
    }

    /** The gate cannot go green by accident: a run that watched no JVM, or a JVM whose agent refused its options, is exit 2. */
    @Test
    void runExitsTwoWhenNoJvmWasWatchedOrTheAgentRefusedItsOptions(@TempDir Path dir) throws Exception {
        Jvms.Run none = cli("run", "--report", dir.resolve("none").toString(), "--", "true");
        assertEquals(ExitCodes.USAGE, none.exitCode(), none.out() + none.err());
        assertTrue(none.out().contains("loopdiag run: no JVM of the command wrote a report in " + dir.resolve("none") + ", so none was watched"),
                none.out());

        Jvms.Run typo = cli("run", "--report", dir.resolve("typo").toString(), "--agent-options", "slwo=1s", "--",
                Jvms.JAVA, "-jar", Jvms.APPS.toString(), "blocking-sleep");
        assertEquals(ExitCodes.USAGE, typo.exitCode(), typo.out() + typo.err());
        assertTrue(typo.out().contains("blocking-sleep done"), "the command ran:\n" + typo.out());
        assertTrue(typo.err().contains(": the agent refused its options and watched nothing (bad agent options "), typo.err());
        assertTrue(typo.err().contains("unknown option 'slwo'"), typo.err());
    }

    /**
     * run turns the JVM's virtual-thread notifications off in the command's JVMs, unless asked to
     * keep them or a native agent (a debugger) is in the command; JVMs show the flag's final value.
     */
    @Test
    void runTurnsTheJvmtiTransitionsOffUnlessADebuggerOrTheOptionKeepsThem(@TempDir Path dir) throws Exception {
        String off = "DoJVMTIVirtualThreadTransitions\\s+= false";
        Jvms.Run lean = cli("run", "--report", dir.resolve("lean").toString(), "--", Jvms.JAVA, "-XX:+PrintFlagsFinal", "-version");
        assertEquals(0, lean.exitCode(), lean.out() + lean.err());
        assertTrue(java.util.regex.Pattern.compile(off).matcher(lean.out()).find(), lean.out());

        Jvms.Run kept = cli("run", "--report", dir.resolve("kept").toString(), "--keep-jvmti-transitions", "--",
                Jvms.JAVA, "-XX:+PrintFlagsFinal", "-version");
        assertEquals(0, kept.exitCode(), kept.out() + kept.err());
        assertTrue(kept.out().contains("UseSerialGC"), "the flags were printed:\n" + kept.out());
        assertFalse(java.util.regex.Pattern.compile(off).matcher(kept.out()).find(), kept.out());

        Jvms.Run debugged = cli("run", "--report", dir.resolve("debugged").toString(), "--", Jvms.JAVA,
                "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0", "-XX:+PrintFlagsFinal", "-version");
        assertEquals(0, debugged.exitCode(), debugged.out() + debugged.err());
        assertTrue(debugged.out().contains("UseSerialGC"), "the flags were printed:\n" + debugged.out());
        assertFalse(java.util.regex.Pattern.compile(off).matcher(debugged.out()).find(), debugged.out());
    }

    @Test
    void pstreeFindsTheAwaitCycleWithBothTasksAndStillPrintsTheRest() throws Exception {
        String pid = Long.toString(start("await-deadlock", true).pid());
        Jvms.Run tree = cli("pstree", pid);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, tree.exitCode(), "a cycle is a finding:\n" + tree.out() + tree.err());
        assertTrue(tree.out().contains("↺ await cycle: 'ledger' #2 → 'audit' #3 → 'ledger' #2"), tree.out());
        assertTrue(tree.out().contains("(T) 'main' #1"), tree.out());
        assertTrue(tree.out().contains("(T) 'heartbeat' #4"), "the rest of the tree:\n" + tree.out());
        assertTrue(tree.out().contains("at io.loopdiag.apps.AwaitDeadlock.auditLedger(AwaitDeadlock.java:"), tree.out());
    }

    @Test
    void attachLoadsTheAgentIntoAJvmStartedWithoutIt() throws Exception {
        String pid = Long.toString(start("echo-server", false).pid());
        Jvms.Run before = cli("ps", pid);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, before.exitCode());
        assertTrue(before.err().contains("runs without the loopdiag agent") && before.err().contains("loopdiag attach " + pid),
                before.err());

        Jvms.Run attach = cli("attach", pid, "--options", "slow=50ms");
        assertEquals(0, attach.exitCode(), attach.err());
        assertTrue(attach.out().contains("loaded the agent into JVM " + pid), attach.out());
        assertTrue(attach.out().contains("-XX:+EnableDynamicAgentLoading"), "says how to avoid the JDK's warning:\n" + attach.out());

        Jvms.Run ps = cli("ps", pid);
        assertEquals(0, ps.exitCode(), ps.err());
        assertTrue(ps.out().contains(" main "), ps.out());
        Jvms.Run again = cli("attach", pid);
        assertEquals(0, again.exitCode());
        assertTrue(again.out().contains("already runs the loopdiag agent"), again.out());
    }

    @Test
    void attachedToALoopAlreadyRunningTheAgentFindsABlockingCallInItsNextTask() throws Exception {
        Jvms.Scenario target = jvms.start(null, "blocking-on-cue"); // says ready from inside the running loop
        Jvms.Run attach = cli("attach", target.pidText(), "--options", "log=off");
        assertEquals(0, attach.exitCode(), attach.err());

        Writer cues = new OutputStreamWriter(target.process().getOutputStream(), StandardCharsets.UTF_8);
        cues.write("7\n");
        cues.flush();
        assertEquals("blocked 7", target.out().readLine());
        JsonNode findings = new ObjectMapper().readTree(Jvms.ask(target.pid(), "info")).path("findings").path("detections");
        assertEquals(1, findings.size(), findings.toString());
        assertEquals("blocking-call", findings.get(0).path("kind").asText(), findings.toString());
        assertTrue(findings.get(0).path("message").asText().startsWith("java.lang.Thread.sleep in task 'cue' (#"), findings.toString());
        assertTrue(findings.get(0).path("message").asText().contains(", called at io.loopdiag.apps.BlockingOnCue.blockAtDepth(BlockingOnCue.java:"),
                findings.toString());
    }

    @Test
    void listShowsTheJvmWithItsAgentAndLoops() throws Exception {
        long pid = start("stuck-service", true).pid();
        Jvms.Run list = cli("list", "--json");
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
    void aJvmWithoutAnOpenLoopOrWithoutTheAgentIsSaidSo() throws Exception {
        String noLoop = Long.toString(start("no-loop", true).pid());
        for (String verb : List.of("ps", "pstree", "dump")) {
            Jvms.Run run = cli(verb, noLoop);
            assertEquals(ExitCodes.FINDINGS_OR_FAILURE, run.exitCode(), run.err());
            assertEquals("loopdiag: JVM " + noLoop + " has no open event loop", run.err().strip());
        }
        String noAgent = Long.toString(start("no-loop", false).pid());
        Jvms.Run run = cli("dump", noAgent);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, run.exitCode(), run.err());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains("runs without the loopdiag agent"), run.err());
    }
}
