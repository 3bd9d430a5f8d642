package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.cli.support.Jvms;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Netty service stuck in a blocking call on its only event loop, dumped live by process id while
 * it is stuck, as a user would, on Netty 4.2 and 4.1.
 */
@Timeout(120)
class ForeignLoopsIT {
    private static final Path NETTY41 = Path.of("../test-apps-netty41/target/test-apps-netty41.jar").toAbsolutePath();
    private final Jvms jvms = new Jvms();

    @AfterEach
    void stopTargets() throws InterruptedException {
        jvms.close();
    }

    /** Starts netty-stuck holding its loop for a minute and returns once the loop is in the backend call. */
    private Process stuck(Path apps, boolean withAgent) throws Exception {
        List<String> command = new ArrayList<>(List.of(Jvms.JAVA));
        if (withAgent) {
            command.add("-javaagent:" + Jvms.AGENT + "=log=off");
        }
        command.addAll(List.of("-jar", apps.toString(), "netty-stuck", "--hold", "60"));
        Process target = jvms.track(new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
        BufferedReader err = new BufferedReader(new InputStreamReader(target.getErrorStream(), StandardCharsets.UTF_8));
        StringBuilder said = new StringBuilder();
        for (String line; (line = err.readLine()) != null; ) {
            said.append(line).append('\n');
            if (line.startsWith("netty-stuck: the loop is in the backend call")) {
                Thread.ofVirtual().start(() -> err.lines().forEach(ignored -> { })); // keep its stderr flowing
                return target;
            }
        }
        throw new AssertionError("netty-stuck never got stuck:\n" + said);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"4.2", "4.1"})
    void dumpShowsTheStuckLoopInTheBlockingCallWithoutStoppingIt(String line) throws Exception {
        String pid = Long.toString(stuck(line.equals("4.2") ? Jvms.APPS : NETTY41, true).pid());

        Jvms.Run json = jvms.cli("dump", "--json", pid);
        assertEquals(0, json.exitCode(), json.err());
        JsonNode loop = null;
        for (JsonNode each : new ObjectMapper().readTree(json.out()).path("loops")) {
            if (each.path("name").asText().equals("netty-stuck-loop-1")) {
                loop = each;
            }
        }
        assertTrue(loop != null, json.out());
        assertEquals("netty", loop.path("kind").asText());
        assertEquals("running", loop.path("state").asText());
        assertEquals("I/O of handler 'orders' (io.loopdiag.apps.NettyStuck$OrderHandler)", loop.path("running").path("description").asText());
        assertTrue(loop.path("channelCount").asInt() >= 2, "the server's and the order's channel at least:\n" + loop);
        assertTrue(loop.path("running").path("stack").toString().contains("NettyStuck$OrderHandler.fetchPrice(NettyStuck.java:"), loop.toString());

        Jvms.Run dump = jvms.cli("dump", pid);
        assertEquals(0, dump.exitCode(), dump.err());
        assertTrue(dump.out().contains("loop 'netty-stuck-loop-1'"), dump.out());
        assertTrue(dump.out().contains("[netty]"), dump.out());
        assertTrue(dump.out().contains("    at io.loopdiag.apps.NettyStuck$OrderHandler.fetchPrice(NettyStuck.java:"), dump.out());

        Jvms.Run ps = jvms.cli("ps", pid);
        assertEquals(0, ps.exitCode(), ps.err());
        assertTrue(ps.out().lines().anyMatch(row -> row.matches("netty-stuck-loop-1 +netty +running .*I/O of handler 'orders'.*"
                + " NettyStuck\\.java:\\d+ .*")), "one row: the loop, its kind and state, the unit and the application's line:\n" + ps.out());
    }

    /** The user's first move on a hung service started without the agent: attach, then dump. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"4.2", "4.1"})
    void attachedToALoopStuckSinceBeforeTheAgentTheDumpShowsItRunning(String line) throws Exception {
        String pid = Long.toString(stuck(line.equals("4.2") ? Jvms.APPS : NETTY41, false).pid());

        Jvms.Run attach = jvms.cli("attach", pid, "--options", "log=off");
        assertEquals(0, attach.exitCode(), attach.err());
        Jvms.Run json = jvms.cli("dump", "--json", pid);
        assertEquals(0, json.exitCode(), json.err());
        JsonNode loop = null;
        for (JsonNode each : new ObjectMapper().readTree(json.out()).path("loops")) {
            if (each.path("name").asText().equals("netty-stuck-loop-1")) {
                loop = each;
            }
        }
        assertTrue(loop != null, "the loop is listed though it began no unit since the attach:\n" + json.out());
        assertEquals("netty", loop.path("kind").asText());
        assertEquals("running", loop.path("state").asText(), loop.toString());
        assertEquals("I/O of handler io.loopdiag.apps.NettyStuck$OrderHandler, begun before the agent was attached",
                loop.path("running").path("description").asText());
        assertTrue(loop.path("running").path("stack").toString().contains("NettyStuck$OrderHandler.fetchPrice(NettyStuck.java:"), loop.toString());
    }
}
