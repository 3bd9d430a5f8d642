package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.agent.support.AgentRun;
import io.loopdiag.agent.support.LiveChild;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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

    /**
     * The agent's jar rewritten in place under the running JVM (a build, or a copy over it): a
     * class the agent had not loaded yet can no longer be read. A dump that needs one is answered
     * with an error that says so, and in one line on stderr; the control server lives on (the next
     * request is answered, not left waiting), and so does the application, whose tasks the agent's
     * hooks see as they are created.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hung application leaves a read waiting
    void anAgentJarRewrittenUnderTheJvmFailsADumpInOneLineAndTheServerGoesOn(@TempDir Path dir) throws Exception {
        Path jar = dir.resolve("loopdiag-agent.jar");
        Files.copy(AgentRun.AGENT, jar);
        List<String> command = new ArrayList<>(AgentRun.command("log=off", "blocking-on-cue"));
        command.set(1, "-javaagent:" + jar + "=log=off");
        try (LiveChild child = LiveChild.start(command, null)) {
            child.expectLine("blocking-on-cue ready");
            Files.write(jar, new byte[(int) Files.size(jar)]); // the same file, its bytes gone

            String changed = "the agent's jar " + jar + " changed on disk after this JVM had opened it";
            String answer = dump(child.pid());
            assertTrue(answer.startsWith("{\"error\": \"" + changed), answer);
            for (int request = 2; request <= 3; request++) {
                dump(child.pid()); // answered, however short: a dead server would leave it waiting
            }
            child.awaitStderr("loopdiag: a request to the agent failed (");
            assertTrue(child.stderr().contains(changed), child.stderr());
            assertFalse(child.stderr().contains("Exception in thread \"loopdiag-control\""), child.stderr());
            child.cue(0); // a task created and run on the loop: "blocked 0"
            assertEquals(0, child.finish("blocking-on-cue done"), child.stderr());
        }
    }

    /** Sends {@code dump} to the agent in {@code pid} and reads the answer to its end. */
    private static String dump(long pid) throws IOException {
        return ask(Path.of(System.getProperty("java.io.tmpdir"), "loopdiag-" + System.getProperty("user.name"), pid + ".sock"), "dump");
    }

    /** Sends {@code command} to the agent listening on {@code socket} and reads the answer to its end. */
    private static String ask(Path socket, String command) throws IOException {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
            return new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * A JVM killed with SIGKILL leaves its control socket behind. The next agent to start removes
     * it, as its process is gone and it refuses a connection, and nothing else: not such a socket
     * younger than a minute (a JVM that has bound its socket but does not listen yet refuses too),
     * nor one not named {@code PID.sock}, nor a link named so to a dead socket.
     */
    @Test
    @Timeout(60)
    void aSocketLeftByAKilledJvmIsRemovedByTheNextAgentAndOnlyIt(@TempDir Path dir) throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Path folder = tmp.resolve("loopdiag-" + System.getProperty("user.name"));
        List<String> command = AgentRun.command("log=off", "blocking-on-cue", "-Djava.io.tmpdir=" + tmp);
        FileTime twoMinutesAgo = FileTime.from(Instant.now().minus(Duration.ofMinutes(2)));
        long pid;
        Path stale;
        try (LiveChild killed = LiveChild.start(command, dir)) {
            killed.expectLine("blocking-on-cue ready"); // the agent binds its socket before main runs
            pid = killed.pid();
            stale = folder.resolve(pid + ".sock");
            assertTrue(Files.exists(stale, LinkOption.NOFOLLOW_LINKS), "the control socket is at " + stale);
        } // destroyForcibly, and waits for the exit
        assertFalse(ProcessHandle.of(pid).isPresent(), "the killed JVM is gone");
        assertTrue(Files.exists(stale, LinkOption.NOFOLLOW_LINKS), "SIGKILL leaves the socket behind");
        Files.setLastModifiedTime(stale, twoMinutesAgo);

        // Never a pid: Linux keeps pids below 2^22 = 4194304.
        Path young = deadSocket(folder.resolve("4194304.sock"));
        Path foreign = deadSocket(folder.resolve("echo.sock"));
        Files.setLastModifiedTime(foreign, twoMinutesAgo);
        Path link = Files.createSymbolicLink(folder.resolve("4194305.sock"), foreign);
        Files.getFileAttributeView(link, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setTimes(twoMinutesAgo, null, null);

        try (LiveChild next = LiveChild.start(command, dir)) {
            next.expectLine("blocking-on-cue ready");
            awaitTrue(() -> !Files.exists(stale, LinkOption.NOFOLLOW_LINKS), "the stale socket " + stale + " removed");
            // Answered only once the sweep is over: the control thread sweeps before it serves.
            assertTrue(ask(folder.resolve(next.pid() + ".sock"), "info").contains("\"blocking-on-cue\""));
            assertTrue(Files.exists(young, LinkOption.NOFOLLOW_LINKS), "a young stale socket stays");
            assertTrue(Files.exists(foreign, LinkOption.NOFOLLOW_LINKS), "a socket not named PID.sock stays");
            assertTrue(Files.isSymbolicLink(link), "a link stays, and so does what it points to");
            assertEquals(List.of(), next.stderr().lines().filter(line -> !line.startsWith("loopdiag: agent ")).toList(),
                    "the agent says nothing past its banner");
        }
    }

    /** A socket nobody listens on, as a killed JVM leaves it: bound, then closed (which keeps the file). */
    private static Path deadSocket(Path path) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
        }
        return path;
    }

    /** Polls {@code condition} until it holds; gives up after 30 s, a hang guard and not a measure. */
    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < giveUpAt, "gave up waiting: " + what);
            Thread.sleep(20);
        }
    }

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
