package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.cli.support.Jvms;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM that cannot be attached to ({@code -XX:+DisableAttachMechanism}) still gives its dump:
 * where its agent's socket is where the CLI looks first, through it; else the agent, started with
 * {@code signal=USR1}, writes it on {@code kill -USR1}, as text on its stderr or as JSON to the
 * {@code dump} file, which the CLI then reads with {@code --file}.
 */
@Timeout(120)
class SignalDumpIT {
    private final Jvms jvms = new Jvms();
    @TempDir
    Path targetTemp;

    @AfterEach
    void stopTargets() throws InterruptedException {
        jvms.close();
    }

    /**
     * stuck-service, attach disabled, with the agent and {@code options}; its stderr to {@code err}.
     * Its temporary folder is not the CLI's, as in a container: the CLI does not find the agent's
     * socket where it looks first.
     */
    private Process stuckService(String options, Path err) throws Exception {
        return stuckService(options, err, List.of("-Djava.io.tmpdir=" + targetTemp));
    }

    private Process stuckService(String options, Path err, List<String> jvmOptions) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Jvms.JAVA, "-XX:+DisableAttachMechanism"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-javaagent:" + Jvms.AGENT + "=" + options, "-jar", Jvms.APPS.toString(), "stuck-service"));
        Process target = jvms.track(new ProcessBuilder(command).redirectError(err.toFile()).start());
        BufferedReader out = new BufferedReader(new InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("stuck-service ready", out.readLine());
        return target;
    }

    private static void signal(Process target) throws Exception {
        Process kill = new ProcessBuilder("kill", "-USR1", Long.toString(target.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -USR1");
    }

    /** Waits until {@code err} holds {@code text} {@code times} times, and returns it. */
    private static String await(Path err, String text, int times) throws Exception {
        while (true) {
            String written = Files.readString(err);
            if (written.split(java.util.regex.Pattern.quote(text), -1).length - 1 >= times) {
                return written;
            }
            Thread.sleep(100);
        }
    }

    @Test
    void attachDisabledTheSignalWritesTheDumpAsTextOnStderr(@TempDir Path dir) throws Exception {
        Path err = dir.resolve("stderr.txt");
        Process target = stuckService("log=off,signal=USR1", err);
        String pid = Long.toString(target.pid());

        Jvms.Run refused = jvms.cli("dump", pid);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, refused.exitCode(), refused.out() + refused.err());
        assertEquals("loopdiag: cannot attach to JVM " + pid + " (The VM does not support the attach mechanism); with the agent option"
                + " signal=USR1 it writes its dump on 'kill -USR1 " + pid + "'", refused.err().strip());

        signal(target);
        String text = await(err, "loopdiag: end of the dump of JVM " + pid, 1);
        assertTrue(text.contains("\nloopdiag: dump of JVM " + pid + " at "), text);
        assertTrue(text.contains("\nloop 'stuck-service' #1, running on loopdiag-loop-stuck-service: "), text);
        assertTrue(text.contains("    at io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:"), text);
        assertEquals(100, text.lines().filter(l -> l.matches("task 'request-\\d+' #\\d+ \\[suspended .*, awaits lock held by #3]:")).count(), text);
        assertTrue(text.contains("  blocking-call on loop 'stuck-service': java.util.concurrent.CompletableFuture.get"), "the findings: " + text);

        signal(target);
        await(err, "loopdiag: end of the dump of JVM " + pid, 2);
        assertTrue(target.isAlive(), "the JVM runs on after its dumps");
    }

    @Test
    void attachDisabledTheCliStillReachesAnAgentWhoseSocketIsWhereItLooksFirst(@TempDir Path dir) throws Exception {
        Process target = stuckService("log=off", dir.resolve("stderr.txt"), List.of());

        Jvms.Run dump = jvms.cli("dump", Long.toString(target.pid()));
        assertEquals(0, dump.exitCode(), dump.err());
        assertEquals(100, dump.out().lines().filter(l -> l.matches("task 'request-\\d+' #\\d+ \\[suspended .*, awaits lock held by #3]:")).count(),
                dump.out());
    }

    @Test
    void theDumpFileIsReadByTheCliAsALiveJvmWouldBe(@TempDir Path dir) throws Exception {
        Path err = dir.resolve("stderr.txt");
        Process target = stuckService("log=off,signal=USR1,dump=" + dir.resolve("dump-%p.json"), err);
        Path file = dir.resolve("dump-" + target.pid() + ".json");

        signal(target);
        await(err, "loopdiag: dump written to " + file + " (read it with loopdiag dump --file)", 1);
        assertEquals(List.of("dump-" + target.pid() + ".json", "stderr.txt"),
                Files.list(dir).map(path -> path.getFileName().toString()).sorted().toList(), "no partial file left");

        Jvms.Run tree = jvms.cli("pstree", "--file", file.toString());
        assertEquals(0, tree.exitCode(), tree.err());
        assertTrue(tree.out().contains("└── 100 tasks 'request-0'..'request-99' wait for lock held by 'refresh-cache' #3 [#4..#103, suspended, "),
                tree.out());
        Jvms.Run dump = jvms.cli("dump", "--file", file.toString());
        assertEquals(0, dump.exitCode(), dump.err());
        assertEquals(100, dump.out().lines().filter(l -> l.matches("task 'request-\\d+' #\\d+ \\[suspended .*, awaits lock held by #3]:")).count(),
                dump.out());
    }
}
