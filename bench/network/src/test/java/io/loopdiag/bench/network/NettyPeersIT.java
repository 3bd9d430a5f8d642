package io.loopdiag.bench.network;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The packaged bench-network.jar in child JVMs: the Netty peers' exact answers, and echo-load's JSON lines. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NettyPeersIT {
    private static final Path JAR = Path.of("target", "bench-network.jar");
    private static final String ANSWER = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n"
            + "Connection: keep-alive\r\n\r\nHello, World!";
    private static final String GET = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() throws InterruptedException {
        for (Process child : children) {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private Process start(String... args) throws IOException {
        return start(List.of(), ProcessBuilder.Redirect.INHERIT, args);
    }

    private Process start(List<String> jvmFlags, ProcessBuilder.Redirect stderr, String... args) throws IOException {
        assertTrue(Files.isRegularFile(JAR), JAR.toAbsolutePath() + " is missing: run mvn package first");
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--sun-misc-unsafe-memory-access=allow"));
        command.addAll(jvmFlags);
        command.addAll(List.of("-jar", JAR.toString()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectError(stderr).start();
        children.add(child);
        return child;
    }

    /** Starts a server and returns its port from the {@code NAME listening on 127.0.0.1:PORT} line. */
    private int startServer(String command, String name) throws IOException {
        Process server = start(command, "--port", "0");
        String line = new BufferedReader(new InputStreamReader(server.getInputStream(), UTF_8)).readLine();
        assertNotNull(line, command + " exited without printing its port");
        Matcher matcher = Pattern.compile(Pattern.quote(name) + " listening on 127\\.0\\.0\\.1:(\\d+)").matcher(line);
        assertTrue(matcher.matches(), "unexpected first line: " + line);
        return Integer.parseInt(matcher.group(1));
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    @Test
    void nettyHttpAnswersWithTheSharedBytesAndClosesOnRequest() throws Exception {
        int port = startServer("netty-http", "http-server");
        try (Socket socket = connect(port)) {
            socket.getOutputStream().write(GET.getBytes(US_ASCII));
            assertEquals(ANSWER, new String(socket.getInputStream().readNBytes(ANSWER.length()), US_ASCII));
            socket.getOutputStream().write((GET + GET + "GET / HTTP/1.1\r\nConnection: close\r\n\r\n").getBytes(US_ASCII));
            assertEquals(ANSWER.repeat(3), new String(socket.getInputStream().readAllBytes(), US_ASCII),
                    "three pipelined answers, then the close the last request asked for");
        }
    }

    @Test
    void nettyEchoSendsEveryByteBack() throws Exception {
        int port = startServer("netty-echo", "echo-server");
        byte[] sent = new byte[100_000];
        new Random(7).nextBytes(sent);
        try (Socket socket = connect(port)) {
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    socket.getOutputStream().write(sent);
                    socket.shutdownOutput();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertArrayEquals(sent, socket.getInputStream().readAllBytes());
            writer.join();
        }
    }

    @Test
    void nettyEchoWithBlockHoundProvesItSeesTheLoopAndEchoesWithoutADetection(@TempDir Path dir) throws Exception {
        Path stderr = dir.resolve("server.err");
        Process server = start(List.of("-XX:+AllowRedefinitionToAddDeleteMethods", "-XX:+EnableDynamicAgentLoading",
                "-Djdk.attach.allowAttachSelf=true"), ProcessBuilder.Redirect.to(stderr.toFile()),
                "netty-echo", "--port", "0", "--blockhound", "log");
        String line = new BufferedReader(new InputStreamReader(server.getInputStream(), UTF_8)).readLine();
        assertNotNull(line, "netty-echo --blockhound log exited without printing its port: " + Files.readString(stderr));
        int port = Integer.parseInt(line.substring(line.lastIndexOf(':') + 1));
        try (Socket socket = connect(port)) {
            socket.getOutputStream().write("ping".getBytes(US_ASCII));
            assertEquals("ping", new String(socket.getInputStream().readNBytes(4), US_ASCII));
        }
        Detections detections = Detections.read(stderr, Detections.Tool.BLOCKHOUND);
        assertTrue(detections.loaded(), Files.readString(stderr));
        assertTrue(Files.readString(stderr).contains("NettyBlockHoundIntegration"), "Netty's integration was not loaded: "
                + Files.readString(stderr));
        assertEquals(0, detections.count(), Files.readString(stderr));
    }

    @Test
    void echoLoadPrintsThroughputAndTwoPercentilesAsJsonLines() throws Exception {
        int port = startServer("netty-echo", "echo-server");
        Process load = start("echo-load", "--port", Integer.toString(port), "--connections", "10",
                "--seconds", "1", "--warmup", "0", "--subject", "netty");
        String out = new String(load.getInputStream().readAllBytes(), UTF_8);
        assertTrue(load.waitFor(30, TimeUnit.SECONDS), "echo-load did not finish");
        assertEquals(0, load.exitValue(), out);
        List<String> lines = out.lines().toList();
        assertEquals(3, lines.size(), out);
        ObjectMapper json = new ObjectMapper();
        JsonNode rate = json.readTree(lines.get(0));
        assertEquals("echo", rate.get("workload").asText());
        assertEquals("msg/s", rate.get("metric").asText());
        assertTrue(rate.get("median").asDouble() > 0, lines.get(0));
        assertEquals(10, rate.get("params").get("connections").asInt());
        assertEquals(64, rate.get("params").get("size").asInt());
        JsonNode p50 = json.readTree(lines.get(1));
        JsonNode p99 = json.readTree(lines.get(2));
        assertEquals(50, p50.get("params").get("percentile").asInt());
        assertEquals(99, p99.get("params").get("percentile").asInt());
        assertTrue(p50.get("median").asDouble() > 0 && p50.get("median").asDouble() <= p99.get("median").asDouble(),
                lines.get(1) + "\n" + lines.get(2));
    }

    @Test
    void echoLoadWithoutAServerIsOneErrorPerMetricAndExitsOne() throws Exception {
        int closedPort;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        Process load = start("echo-load", "--port", Integer.toString(closedPort), "--seconds", "1", "--warmup", "0");
        String out = new String(load.getInputStream().readAllBytes(), UTF_8);
        assertTrue(load.waitFor(30, TimeUnit.SECONDS), "echo-load did not finish");
        assertEquals(1, load.exitValue(), out);
        for (String line : out.lines().toList()) {
            JsonNode json = new ObjectMapper().readTree(line);
            assertTrue(json.get("median").isNull(), line);
            assertTrue(json.get("error").asText().startsWith("echo load failed"), line);
        }
        assertEquals(3, out.lines().count(), out);
    }
}
