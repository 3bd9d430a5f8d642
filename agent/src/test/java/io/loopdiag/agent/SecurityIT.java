package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.tools.attach.VirtualMachine;
import io.loopdiag.agent.support.AgentRun;
import io.loopdiag.agent.support.LiveChild;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What the agent opens and writes on the machine, and what it lets the application's text do to a terminal. */
@Timeout(60)
class SecurityIT {
    private static final Set<PosixFilePermission> GROUP_OR_WORLD_WRITE =
            Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    @Test
    void withTheAgentAtStartTheProcessListensOnNoTcpOrUdpSocket() throws Exception {
        try (LiveChild child = LiveChild.scenario("log=off", "blocking-on-cue")) {
            child.expectLine("blocking-on-cue ready");
            child.cue(1);
            dump(child.pid());
            assertEquals(List.of(), listeningSockets(child.pid()));
        }
    }

    @Test
    void afterADynamicAttachAndADumpTheProcessListensOnNoTcpOrUdpSocket() throws Exception {
        try (LiveChild child = LiveChild.scenario(null, "blocking-on-cue")) {
            child.expectLine("blocking-on-cue ready");
            VirtualMachine vm = VirtualMachine.attach(Long.toString(child.pid()));
            try {
                vm.loadAgent(AgentRun.AGENT.toString(), "slow=50ms");
            } finally {
                vm.detach();
            }
            child.awaitStderr("loopdiag: agent ");
            child.cue(1);
            child.awaitStderr("loopdiag: blocking-call");
            dump(child.pid());
            assertEquals(List.of(), listeningSockets(child.pid()));
        }
    }

    /** The probe itself can fail: a scenario that serves TCP is seen listening. */
    @Test
    void theSocketProbeSeesAServersListeningSocket() throws Exception {
        List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(), "-jar", AgentRun.APPS.toString(),
                "echo-server", "--port", "0");
        try (LiveChild child = LiveChild.start(command, null)) {
            child.expectLineStarting("echo-server listening on 127.0.0.1:");
            assertEquals(1, listeningSockets(child.pid()).size());
        }
    }

    /**
     * Under umask 000 the report, its new folder, the control folder and its socket get no group or
     * world write, and nothing is left beside the report or in the working directory.
     */
    @Test
    void underAnOpenUmaskTheAgentsFilesAreNotGroupOrWorldWritable(@TempDir Path dir) throws Exception {
        assumeTrue(Files.getFileStore(dir).supportsFileAttributeView("posix"));
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Path work = Files.createDirectory(dir.resolve("work"));
        Path report = dir.resolve("reports/new/loopdiag.json"); // two folders the agent makes
        List<String> java = AgentRun.command("report=" + report, "blocking-on-cue", "-Djava.io.tmpdir=" + tmp);
        String command = "umask 000 && exec " + String.join(" ", java.stream().map(word -> "'" + word + "'").toList());
        Path control;
        try (LiveChild child = LiveChild.start(List.of("/bin/sh", "-c", command), work)) {
            child.expectLine("blocking-on-cue ready");
            child.cue(1);
            Path folder = tmp.resolve("loopdiag-" + System.getProperty("user.name"));
            control = folder.resolve(child.pid() + ".sock");
            assertEquals("rwx------", permissions(folder));
            assertTrue(Files.exists(control, LinkOption.NOFOLLOW_LINKS), "the control socket is at " + control);
            assertNoGroupOrWorldWrite(control);
            assertEquals(0, child.finish("blocking-on-cue done"), child.stderr());
        }
        assertNoGroupOrWorldWrite(report);
        assertNoGroupOrWorldWrite(report.getParent());
        assertNoGroupOrWorldWrite(report.getParent().getParent());
        assertEquals(List.of(report), list(report.getParent()), "only the report: no temporary file left");
        assertEquals(List.of(), list(work), "nothing written in the working directory");
        assertEquals(List.of(control.getParent()), list(tmp), "in the temp dir only the control folder");
        assertFalse(Files.exists(control, LinkOption.NOFOLLOW_LINKS), "the socket is removed at exit");
    }

    @Test
    void namesAndMessagesWithControlCharactersAreEscapedOnStderrAndIntactInTheReport(@TempDir Path dir) throws Exception {
        String hostile = "red\u001b[31mRED\rback\u0007bell\nnext line\u009b2J \"quoted\" back\\slash \uD83D\uDE00 end";
        String shown = "red\\u001b[31mRED\\u000dback\\u0007bell\\u000anext line\\u009b2J \"quoted\" back\\slash \uD83D\uDE00 end";
        AgentRun run = AgentRun.runWithReport(dir, "hostile-names");

        List<Character> controls = new ArrayList<>();
        run.stderr().chars().filter(c -> c != '\n' && Character.isISOControl(c)).forEach(c -> controls.add((char) c));
        assertEquals(List.of(), controls, "no raw control character reaches the terminal:\n" + run.stderr());
        List<String> blocking = run.blocks("blocking-call on loop '" + shown + "'");
        assertEquals(1, blocking.size(), run.stderr());
        String header = blocking.get(0).lines().findFirst().orElseThrow();
        assertTrue(header.contains("in task '" + shown + "' (#1)"), "the whole name on the header line:\n" + header);
        List<String> lost = run.blocks("lost-exception on loop '" + shown + "'");
        assertEquals(1, lost.size(), run.stderr());
        assertTrue(lost.get(0).lines().findFirst().orElseThrow().contains("IllegalStateException: " + shown), lost.get(0));

        JsonNode report = run.report();
        int found = 0;
        for (JsonNode detection : report.path("detections")) {
            assertEquals(hostile, detection.path("loop").asText());
            assertTrue(detection.path("task").asText().startsWith("'" + hostile + "' (#"), detection.toString());
            if (detection.path("kind").asText().equals("lost-exception")) {
                assertTrue(detection.path("message").asText().contains("IllegalStateException: " + hostile), detection.toString());
                found++;
            } else if (detection.path("kind").asText().equals("blocking-call")) {
                assertTrue(detection.path("message").asText().contains("in task '" + hostile + "' (#1)"), detection.toString());
                found++;
            }
        }
        assertEquals(2, found, report.toPrettyString());
    }

    /** The inode numbers of the process's TCP sockets in state LISTEN (0A) and of its bound UDP sockets. */
    static List<String> listeningSockets(long pid) throws IOException {
        Set<String> mine = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        mine.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // Not a socket of interest any more.
                }
            }
        }
        List<String> listening = new ArrayList<>();
        for (String table : List.of("tcp", "tcp6", "udp", "udp6")) {
            Path file = Path.of("/proc", Long.toString(pid), "net", table);
            if (!Files.exists(file)) {
                continue;
            }
            for (String line : Files.readAllLines(file).stream().skip(1).toList()) {
                String[] fields = line.trim().split("\\s+");
                boolean counts = table.startsWith("udp") || fields[3].equals("0A");
                if (counts && mine.contains(fields[9])) {
                    listening.add(table + " " + fields[1] + " inode " + fields[9]);
                }
            }
        }
        return listening;
    }

    /** Asks the agent for a dump over its control socket, as {@code loopdiag dump} does; checks it answered. */
    private static void dump(long pid) throws IOException {
        Path socket = Path.of(System.getProperty("java.io.tmpdir"), "loopdiag-" + System.getProperty("user.name"), pid + ".sock");
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(ByteBuffer.wrap("dump\n".getBytes(StandardCharsets.US_ASCII)));
            String answer = new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.contains("\"blocking-on-cue\""), answer);
        }
    }

    private static String permissions(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    private static void assertNoGroupOrWorldWrite(Path path) throws IOException {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
        assertTrue(permissions.stream().noneMatch(GROUP_OR_WORLD_WRITE::contains), path + " is " + permissions(path));
    }

    private static List<Path> list(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.sorted().toList();
        }
    }
}
