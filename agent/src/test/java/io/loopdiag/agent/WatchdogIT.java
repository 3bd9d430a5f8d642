package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agent in a child JVM running the slow-callback scenario (callbacks of 90, 120 and 250 ms):
 * what the user sees on stderr.
 */
@Timeout(60)
class WatchdogIT {

    @Test
    void slowCallbacksAndStallsAreReportedWithTheirStacksAndA90msCallbackIsNot() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process child = new ProcessBuilder(java, "-javaagent:" + Path.of("target/loopdiag-agent.jar").toAbsolutePath(),
                "-jar", Path.of("../test-apps/target/test-apps.jar").toString(), "slow-callback").start();
        String stdout = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String stderr = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), stderr);
        assertEquals("slow-callback done", stdout.strip(), "the application ran as without the agent");

        List<String> slow = AgentRun.blocks(stderr, "loopdiag: slow-callback");
        assertEquals(2, slow.size(), stderr);
        assertTrue(slow.get(0).contains("at io.loopdiag.apps.SlowCallback.blockFor120Millis("), stderr);
        assertTrue(slow.get(1).contains("at io.loopdiag.apps.SlowCallback.blockFor250Millis("), stderr);
        assertTrue(slow.get(1).contains("the loop-stall reported above has ended"), stderr);
        assertFalse(stderr.contains("blockFor90Millis"), "a 90 ms callback is under the 100 ms limit:\n" + stderr);

        List<String> stalls = AgentRun.blocks(stderr, "loopdiag: loop-stall");
        assertTrue(stalls.stream().anyMatch(b -> b.contains("still running") && b.contains("blockFor250Millis")), stderr);
        // Reported again at growing intervals, not every sample: 100 ms into the 120 ms callback, and
        // 100 and 200 ms into the 250 ms one, whose update does not repeat the unchanged stack.
        assertEquals(3, stalls.size(), stderr);
        assertEquals(1, stalls.stream().filter(b -> b.strip().endsWith("still running (same stack)")).count(), stderr);
    }

    @Test
    void theReportHoldsEachFindingOnceWithItsStackAndLogOffPrintsNone(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path report = dir.resolve("reports/loopdiag.json"); // its folder does not exist yet
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process child = new ProcessBuilder(java,
                "-javaagent:" + Path.of("target/loopdiag-agent.jar").toAbsolutePath() + "=log=off,report=" + report,
                "-jar", Path.of("../test-apps/target/test-apps.jar").toString(), "slow-callback").start();
        child.getInputStream().readAllBytes();
        String stderr = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), stderr);
        assertFalse(stderr.contains("slow-callback on"), "log=off prints no detection:\n" + stderr);

        com.fasterxml.jackson.databind.JsonNode root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(report.toFile());
        assertEquals("loopdiag-report/1", root.path("schema").asText());
        assertEquals(2, root.path("summary").path("slow-callback").asLong(), root.toPrettyString());
        assertEquals(0, root.path("dropped").asLong());
        List<String> slowStacks = new ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode detection : root.path("detections")) {
            if (detection.path("kind").asText().equals("slow-callback")) {
                assertEquals(1, detection.path("count").asLong());
                assertTrue(detection.path("longestMillis").asLong() >= 100, detection.toPrettyString());
                slowStacks.add(detection.path("stack").toString());
            }
        }
        assertTrue(slowStacks.get(0).contains("blockFor120Millis"), slowStacks.toString());
        assertTrue(slowStacks.get(1).contains("blockFor250Millis"), slowStacks.toString());
        String permissions = PosixFilePermissions.toString(Files.getPosixFilePermissions(report));
        assertEquals("rw-r--r--", permissions, "no group or world write");
    }
}
