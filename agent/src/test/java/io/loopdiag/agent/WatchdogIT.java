package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.agent.support.AgentRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watchdog in a child JVM running the slow-callback scenario (callbacks of 90, 120 and 250 ms):
 * what the user sees. The limits are far from the callbacks' durations (a 250 ms callback against
 * a 30 ms limit, 90 ms against 1 s), so a loaded machine cannot move a callback across one; the
 * watchdog's arithmetic at the edges of its limit is {@link WatchdogTest}'s.
 */
@Timeout(60)
class WatchdogIT {

    @Test
    void aLongCallbackIsAStallWhileItRunsThenASlowCallbackWithItsStack() throws Exception {
        AgentRun run = AgentRun.run("slow=30ms", "slow-callback");
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals("slow-callback done", run.stdout().strip(), "the application ran as without the agent");

        List<String> slow = run.blocks("slow-callback").stream().filter(b -> b.contains("blockFor250Millis(")).toList();
        assertEquals(1, slow.size(), run.stderr());
        assertTrue(slow.get(0).contains("limit 30 ms); the loop-stall reported above has ended"), slow.get(0));
        assertTrue(slow.get(0).contains("\n    at io.loopdiag.apps.SlowCallback.blockFor250Millis(SlowCallback.java:"), slow.get(0));
        assertTrue(run.blocks("loop-stall").stream().anyMatch(b -> b.contains("still running") && b.contains("blockFor250Millis(")),
                "reported while it ran:\n" + run.stderr());
    }

    /**
     * The loop idles 400 ms before each callback: the watchdog sleeps through each idle spell, and
     * the hook at the loop's wake-up wakes it, so that it times each callback from its start. Were
     * it left asleep until its housekeeping, once a second, it would see a callback late or not at
     * all, and the 120 ms one would be too short to report.
     */
    @Test
    void aCallbackAfterAnIdleSpellIsTimedFromItsStart(@TempDir Path dir) throws Exception {
        AgentRun run = AgentRun.runWithReport(AgentRun.APPS, dir, "", "slow-callback", "--apart", "400");
        List<String> slow = run.blocks("slow-callback");
        assertTrue(slow.stream().anyMatch(b -> b.contains("blockFor120Millis(")), "the 120 ms callback:\n" + run.stderr());
        assertTrue(slow.stream().anyMatch(b -> b.contains("blockFor250Millis(")), "the 250 ms callback:\n" + run.stderr());
        assertTrue(slow.stream().noneMatch(b -> b.contains("blockFor90Millis(")), "not the 90 ms one:\n" + run.stderr());
    }

    @Test
    void callbacksFarUnderTheLimitAreNotReported() throws Exception {
        AgentRun run = AgentRun.run("slow=1s", "slow-callback");
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals(List.of(), run.blocks("slow-callback"), run.stderr());
        assertEquals(List.of(), run.blocks("loop-stall"), run.stderr());
    }

    @Test
    void theReportHoldsEachFindingOnceWithItsStackAndLogOffPrintsNone(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("reports/loopdiag.json"); // its folder does not exist yet
        AgentRun run = AgentRun.run("slow=30ms,log=off,report=" + report, "slow-callback");
        assertEquals(0, run.exitCode(), run.stderr());
        assertFalse(run.stderr().contains("slow-callback on"), "log=off prints no finding:\n" + run.stderr());

        JsonNode root = AgentRun.report(report);
        assertEquals("loopdiag-report/1", root.path("schema").asText());
        assertEquals(0, root.path("dropped").asLong());
        assertTrue(root.path("selfCheck").isArray() && root.path("selfCheck").isEmpty(), "every hook in place: " + root.path("selfCheck"));
        List<JsonNode> slow = new ArrayList<>();
        for (JsonNode finding : root.path("detections")) {
            if (finding.path("kind").asText().equals("slow-callback") && finding.path("stack").toString().contains("blockFor250Millis")) {
                slow.add(finding);
            }
        }
        assertEquals(1, slow.size(), root.toPrettyString());
        assertEquals(1, slow.get(0).path("count").asLong());
        assertTrue(slow.get(0).path("longestMillis").asLong() >= 30, slow.get(0).toPrettyString());
        String permissions = PosixFilePermissions.toString(Files.getPosixFilePermissions(report));
        assertEquals("rw-r--r--", permissions, "no group or world write");
    }
}
