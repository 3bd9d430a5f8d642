package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the packaged test-apps.jar in a child JVM, as users and the end-to-end tests do. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EchoServerIT {
    private static final Path JAR = Path.of("target", "test-apps.jar");
    private static final Pattern LISTENING = Pattern.compile("echo-server listening on 127\\.0\\.0\\.1:(\\d+)");

    private static Process start(String... args) throws IOException {
        assertTrue(Files.isRegularFile(JAR), JAR.toAbsolutePath() + " is missing: run mvn package first");
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>(List.of(java, "-jar", JAR.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Test
    void echoServerPrintsItsPortAndEchoesEveryByteBack() throws Exception {
        Process server = start("echo-server", "--port", "0");
        try {
            BufferedReader stdout = new BufferedReader(new InputStreamReader(server.getInputStream(), UTF_8));
            String line = stdout.readLine();
            assertNotNull(line, "the echo server exited without printing its port");
            Matcher matcher = LISTENING.matcher(line);
            assertTrue(matcher.matches(), "unexpected first line: " + line);
            int port = Integer.parseInt(matcher.group(1));
            assertTrue(port > 0, line);

            for (int client = 0; client < 3; client++) {
                byte[] sent = new byte[200_000 + client];
                new Random(client).nextBytes(sent);
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                    byte[] received = new byte[sent.length];
                    Thread writer = Thread.ofPlatform().start(() -> {
                        try {
                            OutputStream out = socket.getOutputStream();
                            for (int offset = 0; offset < sent.length; offset += 10_000) {
                                out.write(sent, offset, Math.min(10_000, sent.length - offset));
                            }
                            out.flush();
                            socket.shutdownOutput();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
                    InputStream in = socket.getInputStream();
                    int total = 0;
                    int n;
                    while (total < received.length && (n = in.read(received, total, received.length - total)) > 0) {
                        total += n;
                    }
                    writer.join();
                    assertEquals(sent.length, total, "bytes echoed");
                    assertArrayEquals(sent, received);
                    assertEquals(-1, in.read(), "the server closes after the client's EOF, sending nothing more");
                }
            }
            assertTrue(server.isAlive(), "the echo server should serve until killed");
        } finally {
            kill(server);
        }
    }

    @Test
    void noArgumentListsTheScenariosAndExitsZero() throws Exception {
        Process listing = start();
        try {
            String out = new String(listing.getInputStream().readAllBytes(), UTF_8);
            assertTrue(listing.waitFor(30, TimeUnit.SECONDS), "the listing did not exit");
            assertEquals(0, listing.exitValue(), out);
            assertTrue(out.lines().anyMatch(l -> l.matches("\\s+echo-server\\s+\\S.*")),
                    "echo-server with a description should be listed:\n" + out);
        } finally {
            kill(listing);
        }
    }

    @Test
    void anUnknownScenarioPrintsOneLineToStderrAndExitsTwo() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process unknown = new ProcessBuilder(java, "-jar", JAR.toString(), "no-such-scenario").start();
        try {
            String out = new String(unknown.getInputStream().readAllBytes(), UTF_8);
            String err = new String(unknown.getErrorStream().readAllBytes(), UTF_8);
            assertTrue(unknown.waitFor(30, TimeUnit.SECONDS), "the unknown scenario did not exit");
            assertEquals(2, unknown.exitValue());
            assertEquals("", out);
            assertEquals(1, err.lines().count(), err);
            assertTrue(err.contains("no-such-scenario"), err);
        } finally {
            kill(unknown);
        }
    }
}
