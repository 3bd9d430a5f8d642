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
        try (ServerSocketChannel impostor = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            impostor.bind(UnixDomainSocketAddress.of(folder.resolve(target.pid() + ".sock")));
            Thread.ofVirtual().start(() -> {
                while (true) {
                    try (SocketChannel client = impostor.accept()) {
                        ByteBuffer command = ByteBuffer.allocate(Control.MAX_COMMAND_BYTES);
                        while (client.read(command) > 0 && command.get(command.position() - 1) != '\n') {
                            // the command line, read to its end as the agent does, so that the CLI's write never meets a closed socket
                        }
                        client.write(ByteBuffer.wrap("{\"error\": \"an impostor answered\"}".getBytes(StandardCharsets.UTF_8)));
                    } catch (java.io.IOException closed) {
                        return;
                    }
                }
            });

            assertTheStuckService(jvms.cli(List.of(), Jvms.CLI, List.of("-Djava.io.tmpdir=" + cliTemp), "ps", target.pidText()));

            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
            Jvms.Run trusted = jvms.cli(List.of(), Jvms.CLI, List.of("-Djava.io.tmpdir=" + cliTemp), "ps", target.pidText());
            assertEquals("loopdiag: the agent in JVM " + target.pid() + " answered an impostor answered", trusted.err().strip(),
                    "a folder of the user's alone is taken at its word, as the user's own");
        }
    }
}
