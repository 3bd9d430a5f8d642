package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.agent.support.AgentRun;
import io.loopdiag.agent.support.LiveChild;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What goes wrong around the agent while the application runs: the report can no longer be
 * written, or detections come in a storm. The application runs on, and the agent says so once.
 */
class FaultsIT {
    private static final String CANNOT_WRITE = "loopdiag: cannot write the report ";
    private static final String BLOCKING = "loopdiag: blocking-call on loop 'blocking-on-cue'";

    /** A folder replaced by a file stops every write, as root too (where a read-only folder would not). */
    @Test
    @Timeout(60)
    void aReportFolderThatBecomesAFileMidRunIsOneWarningAndFindingsGoOn(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("reports");
        Path report = folder.resolve("loopdiag.json");
        try (LiveChild child = LiveChild.scenario("report=" + report, "blocking-on-cue")) {
            child.expectLine("blocking-on-cue ready");
            child.cue(1);
            assertTrue(Files.isRegularFile(report), "the first report is written at start");

            Files.move(folder, dir.resolve("reports-gone"));
            Files.writeString(folder, "not a folder");
            child.cue(2);
            child.awaitStderr(CANNOT_WRITE);
            for (int cue = 3; cue <= 5; cue++) {
                child.cue(cue); // each a new finding: the report is due again, and again fails
            }
            assertEquals(0, child.finish("blocking-on-cue done"), child.stderr()); // the exit hook tries once more

            assertEquals(1, countLines(child.stderr(), CANNOT_WRITE), "one warning, not one per write:\n" + child.stderr());
            assertEquals(5, AgentRun.blocks(child.stderr(), BLOCKING).size(), "every detection still prints:\n" + child.stderr());
            assertEquals("not a folder", Files.readString(folder));
        }
    }

    /**
     * A full disk, made with the file-size limit ({@code ulimit -f}, which the JVM turns into an
     * error on the write rather than a signal): the first report fits, the report with a 300-frame
     * stack does not.
     */
    @Test
    @Timeout(60)
    void aReportThatNoLongerFitsOnTheDiskIsOneWarningAndNoTemporaryFileIsLeft(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("loopdiag.json");
        List<String> java = AgentRun.command("report=" + report, "blocking-on-cue");
        String command = "ulimit -f 8 && exec " + String.join(" ", java.stream().map(FaultsIT::quoted).toList());
        try (LiveChild child = LiveChild.start(List.of("/bin/sh", "-c", command), null)) {
            child.expectLine("blocking-on-cue ready");
            child.cue(1);
            String first = Files.readString(report);
            child.cue(300);
            child.awaitStderr(CANNOT_WRITE);
            child.cue(301);
            child.cue(2);
            assertEquals(0, child.finish("blocking-on-cue done"), child.stderr());

            assertEquals(1, countLines(child.stderr(), CANNOT_WRITE), child.stderr());
            assertTrue(child.stderr().contains("File too large"), child.stderr());
            assertEquals(4, AgentRun.blocks(child.stderr(), BLOCKING).size(), child.stderr());
            JsonNode kept = AgentRun.report(report); // the last complete report, not a torn one
            assertTrue(kept.path("detections").size() <= 1, kept.toPrettyString());
            assertTrue(first.length() <= Files.size(report), "the report kept grew from the first one");
            try (Stream<Path> files = Files.list(dir)) {
                assertEquals(List.of(report), files.toList(), "no temporary file is left beside the report");
            }
        }
    }

    /**
     * A million blocking calls from 16,384 call paths: the agent keeps 10,000 distinct findings,
     * counts the rest as dropped, and fits with the application in a 64 MB heap. slow=10m keeps
     * the storm's own steps from being findings, so every occurrence is a blocking call.
     */
    @Test
    @Timeout(300)
    void aStormOfAMillionBlockingCallsStaysWithinA64MbHeapAndCountsWhatItDrops(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("storm.json");
        AgentRun run = AgentRun.run("slow=10m,report=" + report, "blocking-storm", "-Xmx64m");
        assertEquals(0, run.exitCode(), tail(run.stderr()));
        assertEquals("blocking-storm done", run.stdout().strip(), "the application finished its work");
        assertFalse(run.stderr().contains("OutOfMemoryError"), tail(run.stderr()));
        assertFalse(run.stderr().contains("cannot write the report"), tail(run.stderr()));

        JsonNode root = AgentRun.report(report);
        long kept = 0;
        for (JsonNode detection : root.path("detections")) {
            assertEquals("blocking-call", detection.path("kind").asText());
            kept += detection.path("count").asLong();
        }
        assertEquals(Findings.MAX_DISTINCT, root.path("detections").size());
        assertEquals(kept, root.path("summary").path("blocking-call").asLong(), "the summary adds up the findings");
        assertEquals(1, root.path("summary").size(), root.path("summary").toString());
        assertTrue(root.path("dropped").asLong() > 0, "calls past the cap are dropped, and counted");
        assertEquals(1_000_000, kept + root.path("dropped").asLong(), "every call is counted once");
        assertEquals(Findings.MAX_DISTINCT, run.blocks("blocking-call").size(), "each kept finding printed once, no more");
    }

    private static long countLines(String text, String prefix) {
        return text.lines().filter(line -> line.startsWith(prefix)).count();
    }

    private static String quoted(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    private static String tail(String text) {
        return text.length() <= 4000 ? text : "..." + text.substring(text.length() - 4000);
    }
}
