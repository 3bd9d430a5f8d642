package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The packaged CLI's demo, run as a user runs it: a child JVM, its output and exit code. */
@Timeout(120)
class DemoIT {

    @Test
    void theDemoShowsTheDetectionsAndDiagnosesTheStuckServiceByPid() throws Exception {
        Path cli = Path.of("target/loopdiag.jar");
        assertTrue(Files.isRegularFile(Path.of("../test-apps/target/test-apps.jar")), "test-apps must be built first");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process demo = new ProcessBuilder(java, "-jar", cli.toString(), "demo").redirectErrorStream(true).start();
        String output = new String(demo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(demo.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, demo.exitValue(), output);
        // The detections as they happened, from the service's stderr.
        assertTrue(output.contains("   | loopdiag: slow-callback on loop 'stuck-service'"), output);
        assertTrue(output.contains("   | loopdiag: blocking-call on loop 'stuck-service': java.util.concurrent.CompletableFuture.get"), output);
        assertTrue(output.contains("   | loopdiag: loop-stall on loop 'stuck-service'"), output);
        assertTrue(output.contains("   | loopdiag: lost-exception on loop 'stuck-service': task 'send-receipt'"), "reported at exit:\n" + output);
        // The live process, looked into by pid.
        assertTrue(output.matches("(?s).*loopdiag ps \\d+.*request-\\d+ .*"), output);
        assertTrue(output.contains("at io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:"), output);
        assertTrue(output.contains("(T) 'main' #1"), output);
        assertTrue(output.contains("   stuck: loop 'stuck-service' #1 has been held in one unit of work for "), "hang, first:\n" + output);
        assertTrue(output.contains("wait for lock held by 'refresh-cache' #3"), "pstree's grouped requests:\n" + output);
        assertTrue(output.contains("Done."), output);
    }
}
