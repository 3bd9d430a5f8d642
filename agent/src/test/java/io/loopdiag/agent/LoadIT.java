package io.loopdiag.agent;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.agent.support.AgentRun;
import io.loopdiag.agent.support.Conversations;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * test-apps' echo and HTTP servers with the packaged agent, under a thousand connections open at
 * once ({@link Conversations}): every byte comes back right and in order, every connection ends
 * normally, and the agent finds nothing, neither on stderr nor in the report it writes at exit.
 * Here, not in test-apps, because test-apps is built before the agent.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LoadIT {
    private static final int CONNECTIONS = 1_000;
    /**
     * The agent's slow limit here. Blocking calls, never-awaited coroutines and lost exceptions are
     * not timed, so the healthy path must have none at all. A callback's duration is: on two cores
     * shared by the server, this test's client and the rest of a CI machine, the cold server's
     * callback that accepts a burst of 100 connections was measured at 20 to 400 ms, descheduled
     * and not yet compiled. At a second only a callback that is really stuck is reported; a timing
     * threshold that the machine's load can cross has no place in a test.
     */
    private static final String SLOW_LIMIT = "1s";
    private static final int ECHO_MESSAGES = 20;
    private static final int HTTP_REQUESTS = 10;
    private static final byte[] HTTP_ANSWER = ("HTTP/1.1 200 OK\r\n"
            + "Content-Type: text/plain\r\n"
            + "Content-Length: 13\r\n"
            + "Connection: keep-alive\r\n"
            + "\r\n"
            + "Hello, World!").getBytes(US_ASCII);

    @Test
    void echoServerWithTheAgentEchoesEveryMessageOfAThousandConnectionsAndDetectsNothing(@TempDir Path dir) throws Exception {
        List<List<Conversations.Exchange>> scripts = new ArrayList<>();
        for (int connection = 0; connection < CONNECTIONS; connection++) {
            List<Conversations.Exchange> script = new ArrayList<>();
            for (int message = 0; message < ECHO_MESSAGES; message++) {
                byte[] bytes = echoMessage(connection, message);
                script.add(new Conversations.Exchange(bytes, bytes));
            }
            scripts.add(script);
        }
        assertServesAllAndDetectsNothing(dir, "echo-server", scripts);
    }

    @Test
    void httpServerWithTheAgentAnswersEveryRequestOfAThousandKeepAliveConnectionsAndDetectsNothing(@TempDir Path dir) throws Exception {
        List<List<Conversations.Exchange>> scripts = new ArrayList<>();
        for (int connection = 0; connection < CONNECTIONS; connection++) {
            List<Conversations.Exchange> script = new ArrayList<>();
            for (int request = 0; request < HTTP_REQUESTS; request++) {
                byte[] get = ("GET /c" + connection + "/r" + request + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(US_ASCII);
                script.add(new Conversations.Exchange(get, HTTP_ANSWER));
            }
            scripts.add(script);
        }
        assertServesAllAndDetectsNothing(dir, "http-server", scripts);
    }

    /** Message {@code message} of connection {@code connection}: its numbers in front, then 0 to 6 KB of bytes of its own. */
    private static byte[] echoMessage(int connection, int message) {
        byte[] head = ("c" + connection + " m" + message + " ").getBytes(US_ASCII);
        Random random = new Random(connection * 1_000L + message);
        byte[] bytes = new byte[head.length + random.nextInt(6_000)];
        random.nextBytes(bytes);
        System.arraycopy(head, 0, bytes, 0, head.length);
        return bytes;
    }

    private static void assertServesAllAndDetectsNothing(Path dir, String scenario, List<List<Conversations.Exchange>> scripts)
            throws Exception {
        assertEnoughFileDescriptors(scripts.size());
        Path report = dir.resolve("report.json");
        Path stderr = dir.resolve("stderr.txt");
        List<String> command = new ArrayList<>(AgentRun.command("slow=" + SLOW_LIMIT + ",report=" + report, scenario));
        command.addAll(List.of("--port", "0"));
        Process server = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        try {
            String line = new BufferedReader(new InputStreamReader(server.getInputStream(), UTF_8)).readLine();
            assertNotNull(line, "the server exited without printing its port:\n" + Files.readString(stderr));
            Matcher matcher = Pattern.compile(Pattern.quote(scenario) + " listening on 127\\.0\\.0\\.1:(\\d+)").matcher(line);
            assertTrue(matcher.matches(), "unexpected first line: " + line);

            Conversations.Outcome outcome = Conversations.run(Integer.parseInt(matcher.group(1)), scripts);

            assertEquals(null, outcome.failure(), "the first failure");
            assertEquals(scripts.size(), outcome.servedAtOnce(), "connections answered while all were open");
            assertEquals(scripts.size(), outcome.completed(), "connections that got every answer and a clean close");
            assertTrue(server.isAlive(), "the server serves on");
        } finally {
            server.destroy(); // SIGTERM: the agent writes its report in its exit hook
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
        List<String> lines = Files.readAllLines(stderr).stream().filter(l -> !l.startsWith("Picked up ")).toList();
        assertEquals(1, lines.size(), "stderr has only the line saying the agent is loaded:\n" + String.join("\n", lines));
        assertTrue(lines.get(0).startsWith("loopdiag: agent ") && lines.get(0).contains(" loaded ("), lines.get(0));
        JsonNode written = AgentRun.report(report);
        assertEquals(0, written.path("detections").size(), written.toPrettyString());
        assertEquals(0, written.path("summary").size(), written.toPrettyString());
        assertEquals(0, written.path("dropped").asLong(), written.toPrettyString());
    }

    /** Fails with advice, rather than with a connect error half way, when the process may not open enough sockets. */
    private static void assertEnoughFileDescriptors(int connections) throws IOException {
        Path limits = Path.of("/proc/self/limits");
        if (!Files.isReadable(limits)) {
            return; // not Linux: the connects themselves will say it
        }
        for (String line : Files.readAllLines(limits)) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                if (!soft.equals("unlimited")) {
                    int needed = connections + 200;
                    assertTrue(Long.parseLong(soft) >= needed, "this test opens " + connections
                            + " sockets in the test JVM and as many in the server: raise `ulimit -n` to at least " + needed
                            + " (now " + soft + ")");
                }
            }
        }
    }
}
