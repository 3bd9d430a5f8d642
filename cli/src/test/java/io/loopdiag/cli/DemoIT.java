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
    void theDemoEchoesThroughALoopInAnotherJvmAndExitsZero() throws Exception {
        Path cli = Path.of("target/loopdiag.jar");
        assertTrue(Files.isRegularFile(Path.of("../test-apps/target/test-apps.jar")), "test-apps must be built first");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process demo = new ProcessBuilder(java, "-jar", cli.toString(), "demo").redirectErrorStream(true).start();
        String output = new String(demo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(demo.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, demo.exitValue(), output);
        assertTrue(output.matches("(?s).*started the echo server in JVM \\d+ on 127\\.0\\.0\\.1:\\d+.*"), output);
        assertTrue(output.contains("sent \"hello, loop\", got back \"hello, loop\""), output);
        assertTrue(output.contains("sent \"in order\", got back \"in order\""), output);
    }
}
