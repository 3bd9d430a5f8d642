package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.cli.support.Jvms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CLI run by another OS user ({@code nobody}) against a JVM of root's with the agent: refused
 * in one line, and the target unharmed. Needs root (as CI runs) and setpriv; skipped otherwise.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OtherUserIT {
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    private static final List<String> AS_NOBODY = List.of(SETPRIV.toString(), "--reuid=65534", "--regid=65534", "--clear-groups");

    private final Jvms jvms = new Jvms();

    @AfterEach
    void stop() throws InterruptedException {
        jvms.close();
    }

    @Test
    void anotherUsersCliIsRefusedInOneLineAndDoesNotListTheJvm() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(SETPRIV),
                "needs root and setpriv to run the CLI as another user (nobody)");
        assumeTrue(Files.isReadable(Path.of(Jvms.JAVA)) && Path.of(Jvms.JAVA).startsWith("/usr/"),
                "needs a JDK that nobody can run, such as one under /usr/lib/jvm");
        Jvms.Scenario target = jvms.start("log=off", "await-deadlock");
        // nobody must be able to read the CLI: a copy in a folder open to all (a CI clone may be in a 0700 folder).
        Path open = Files.createTempDirectory("loopdiag-cli", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path jar = Files.copy(Jvms.CLI, open.resolve("loopdiag.jar"));
        Path agent = Files.copy(Jvms.AGENT, open.resolve("loopdiag-agent.jar"));
        try {
            Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-r--r--"));
            Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rw-r--r--"));
            for (List<String> args : List.of(List.of("ps"), List.of("pstree"), List.of("dump"), List.of("attach", "--agent", agent.toString()))) {
                String verb = args.get(0);
                List<String> command = new java.util.ArrayList<>(args);
                command.add(target.pidText());
                Jvms.Run run = jvms.cli(AS_NOBODY, jar, List.of(), command.toArray(String[]::new));
                assertEquals(ExitCodes.FINDINGS_OR_FAILURE, run.exitCode(), verb + ": " + run.out() + run.err());
                assertEquals("loopdiag: process " + target.pid() + " belongs to user 'root'; loopdiag reaches only JVMs of its own"
                        + " user (the JDK's attach mechanism admits no other)", run.err().strip(), verb);
                assertEquals("", run.out(), verb);
            }
            Jvms.Run list = jvms.cli(AS_NOBODY, jar, List.of(), "list", "--json");
            assertEquals(0, list.exitCode(), list.err());
            for (JsonNode jvm : new ObjectMapper().readTree(list.out()).path("jvms")) {
                assertFalse(jvm.path("pid").asLong() == target.pid(), "nobody's list shows root's JVM:\n" + list.out());
            }
        } finally {
            Files.delete(agent);
            Files.delete(jar);
            Files.delete(open);
        }
        Jvms.Run dump = jvms.cli("dump", target.pidText());
        assertEquals(0, dump.exitCode(), "the target is unharmed: " + dump.err());
        assertTrue(dump.out().contains("task 'heartbeat' #4 ["), dump.out());
    }
}
