package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.cli.support.Jvms;
import io.loopdiag.protocol.Control;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How the CLI finds the agent: straight to {@code TMPDIR/loopdiag-USER/PID.sock} where that folder
 * is the user's alone, else at the path the JVM publishes, read through the attach mechanism.
 * (Reached with attach disabled: {@link SignalDumpIT}.)
 */
@Timeout(120)
class ControlSocketIT {
    private final Jvms jvms = new Jvms();

    @AfterEach
    void stopTargets() throws InterruptedException {
        jvms.close();
    }

    private static void assertTheStuckService(Jvms.Run ps) {
        assertEquals(0, ps.exitCode(), ps.out() + ps.err());
        assertTrue(ps.out().lines().anyMatch(l -> l.matches("stuck-service +3 refresh-cache +running .*")), ps.out());
    }

    @Test
    void aJvmWhoseTemporaryFolderIsNotTheClisIsReachedThroughTheAttachMechanism(@TempDir Path temp) throws Exception {
        Jvms.Scenario target = jvms.start(List.of("-Djava.io.tmpdir=" + temp), "log=off", "stuck-service");
        assertTrue(Files.exists(temp.resolve("loopdiag-" + System.getProperty("user.name")).resolve(target.pid() + ".sock")),
                "the agent's socket is in the JVM's own temporary folder");

        assertTheStuckService(jvms.cli("ps", target.pidText()));
    }

    @Test
    void aSocketInAFolderOpenToOthersIsNotTakenForTheAgents(@TempDir Path cliTemp) throws Exception {
        Jvms.Scenario target = jvms.start("log=off", "stuck-service");
        Path folder = Files.createDirectory(cliTemp.resolve("loopdiag-" + System.getProperty("user.name")));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (ServerSocketChannel impostor = answering(folder.resolve(target.pid() + ".sock"), "{\"error\": \"an impostor answered\"}\n")) {
            assertTheStuckService(jvms.cli(List.of(), Jvms.CLI, List.of("-Djava.io.tmpdir=" + cliTemp), "ps", target.pidText()));

            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
            Jvms.Run trusted = jvms.cli(List.of(), Jvms.CLI, List.of("-Djava.io.tmpdir=" + cliTemp), "ps", target.pidText());
            assertEquals("loopdiag: the agent in JVM " + target.pid() + " answered an impostor answered", trusted.err().strip(),
                    "a folder of the user's alone is taken at its word, as the user's own");
        }
    }

    /**
     * {@code dump --json} passes the agent's answer on as it is, and tells one cut short by its
     * missing newline, even where what arrived is a whole JSON document.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"whole", "without its newline", "cut in a stack"})
    void dumpJsonTellsAnAnswerCutShortByItsNewline(String how, @TempDir Path cliTemp) throws Exception {
        Jvms.Scenario target = jvms.start("log=off", "stuck-service");
        String dump = "{\"schema\":\"loopdiag-dump/1\",\"pid\":" + target.pid() + ",\"loops\":[{\"id\":1,\"kind\":\"loop-core\","
                + "\"name\":\"a\",\"tasks\":[{\"id\":2,\"stack\":[\"x.Y.z(Y.java:1)\"]}]}],\"findings\":{}}";
        String answer = switch (how) {
            case "whole" -> dump + "\n";
            case "without its newline" -> dump;
            default -> dump.substring(0, dump.indexOf("(Y.java"));
        };
        Path folder = Files.createDirectory(cliTemp.resolve("loopdiag-" + System.getProperty("user.name")));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
        try (ServerSocketChannel agent = answering(folder.resolve(target.pid() + ".sock"), answer)) {
            Jvms.Run dumped = jvms.cli(List.of(), Jvms.CLI, List.of("-Djava.io.tmpdir=" + cliTemp), "dump", target.pidText(), "--json");
            if (how.equals("whole")) {
                assertEquals(0, dumped.exitCode(), dumped.err());
                assertEquals(answer, dumped.out());
            } else {
                assertEquals(ExitCodes.FINDINGS_OR_FAILURE, dumped.exitCode(), dumped.out());
                assertEquals("loopdiag: the agent in JVM " + target.pid() + " answered with broken JSON (the answer ends before its newline)",
                        dumped.err().strip());
            }
        }
    }

    /** A server on {@code socket} that answers each connection's command line with {@code answer}, then closes it. */
    private static ServerSocketChannel answering(Path socket, String answer) throws java.io.IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread.ofVirtual().start(() -> {
            while (true) {
                try (SocketChannel client = server.accept()) {
                    ByteBuffer command = ByteBuffer.allocate(Control.MAX_COMMAND_BYTES);
                    while (client.read(command) > 0 && command.get(command.position() - 1) != '\n') {
                        // the command line, read to its end as the agent does, so that the CLI's write never meets a closed socket
                    }
                    client.write(ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8)));
                } catch (java.io.IOException closed) {
                    return;
                }
            }
        });
        return server;
    }
}
