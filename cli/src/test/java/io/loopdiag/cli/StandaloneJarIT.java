package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.cli.support.Jvms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loopdiag.jar} copied alone into an empty folder, as a user copies it to {@code ~/bin} or
 * a container image, is the whole tool: it attaches its own agent to a JVM started without one,
 * dumps it, and runs a command with the agent in its JVMs, with nothing of the checkout around it.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StandaloneJarIT {
    private final Jvms jvms = new Jvms();

    @AfterEach
    void stop() throws InterruptedException {
        jvms.close();
    }

    /** Runs {@code java -jar loopdiag.jar args} with {@code folder} as the current folder. */
    private Jvms.Run cli(Path folder, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Jvms.JAVA, "-jar", folder.resolve("loopdiag.jar").toString()));
        command.addAll(List.of(args));
        return Jvms.finish(jvms.track(new ProcessBuilder(command).directory(folder.toFile()).start()));
    }

    @Test
    void theJarAloneAttachesDumpsAndRuns(@TempDir Path folder) throws Exception {
        Files.copy(Jvms.CLI, folder.resolve("loopdiag.jar"));
        try (Stream<Path> alone = Files.list(folder)) {
            assertEquals(List.of(folder.resolve("loopdiag.jar")), alone.toList(), "nothing but the jar");
        }

        Jvms.Scenario target = jvms.start(null, "stuck-service");
        Jvms.Run attach = cli(folder, "attach", target.pidText());
        assertEquals(0, attach.exitCode(), attach.err());
        assertTrue(attach.out().contains("loaded the agent into JVM " + target.pidText()), attach.out());
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toRealPath();
        assertTrue(attach.out().contains("-javaagent:" + tmp), "the agent it carries, extracted to the temp folder:\n" + attach.out());

        Jvms.Run dump = cli(folder, "dump", target.pidText());
        assertEquals(0, dump.exitCode(), dump.err());
        assertTrue(dump.out().contains("loop 'stuck-service'"), dump.out());
        assertTrue(dump.out().contains("at io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:"), dump.out());

        Jvms.Run run = cli(folder, "run", "--", Jvms.JAVA, "-jar", Jvms.APPS.toString(), "blocking-sleep");
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("FAILED: "), run.out());
        assertTrue(run.out().contains("blocking-call"), run.out());
        try (Stream<Path> reports = Files.list(folder.resolve("target/loopdiag"))) {
            assertEquals(1, reports.filter(p -> p.getFileName().toString().matches("loopdiag-\\d+\\.json")).count(),
                    "the command's JVM wrote its report under the current folder");
        }
    }

    @Test
    void theExtractedAgentIsCheckedAndReplacedWhenItDoesNotMatch(@TempDir Path folder) throws Exception {
        Files.copy(Jvms.CLI, folder.resolve("loopdiag.jar"));
        Jvms.Scenario target = jvms.start(null, "stuck-service");
        Jvms.Run first = cli(folder, "attach", target.pidText());
        assertEquals(0, first.exitCode(), first.err());
        String line = first.out().lines().filter(l -> l.contains("-javaagent:")).findFirst().orElseThrow();
        Path extracted = Path.of(line.substring(line.indexOf("-javaagent:") + "-javaagent:".length(), line.indexOf(".jar") + 4));
        byte[] good = Files.readAllBytes(extracted);

        // Cut short, as a full disk or a killed CLI would leave it: the next use writes it again.
        Files.setPosixFilePermissions(extracted, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Files.write(extracted, new byte[] {'P', 'K'});
        Jvms.Scenario other = jvms.start(null, "stuck-service");
        Jvms.Run again = cli(folder, "attach", other.pidText());
        assertEquals(0, again.exitCode(), again.err());
        assertTrue(java.util.Arrays.equals(good, Files.readAllBytes(extracted)), "the damaged copy was replaced");
    }
}
