package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.agent.support.AgentRun;
import io.loopdiag.loop.EventLoop;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application that brings its own, older Byte Buddy and Jackson (target/app-libs, versions in
 * the parent pom): it sees and uses its own, and the agent, whose copies are relocated, still
 * detects and writes its JSON report.
 */
class LibrariesIT {

    @Test
    @Timeout(60)
    void anApplicationWithItsOwnByteBuddyAndJacksonSeesItsVersionsAndTheAgentStillWorks(@TempDir Path dir) throws Exception {
        String jackson = System.getProperty("app.jackson.version");
        String byteBuddy = System.getProperty("app.bytebuddy.version");
        assertTrue(jackson != null && byteBuddy != null, "run by failsafe, which passes the versions");
        List<String> classPath = new ArrayList<>();
        classPath.add(Path.of("target/test-classes").toAbsolutePath().toString());
        classPath.add(Path.of(EventLoop.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        classPath.add(Path.of(io.loopdiag.protocol.Frame.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        try (Stream<Path> jars = Files.list(Path.of("target/app-libs"))) {
            jars.map(jar -> jar.toAbsolutePath().toString()).forEach(classPath::add);
        }
        Path report = dir.resolve("report.json");
        Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                "-javaagent:" + AgentRun.AGENT + "=report=" + report, "-cp", String.join(File.pathSeparator, classPath),
                OwnLibrariesApp.class.getName()).start();
        CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(child.getErrorStream()));
        String stdout = read(child.getInputStream());
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), stderr.join());

        assertEquals(List.of("jackson " + jackson, "byte-buddy from byte-buddy-" + byteBuddy + ".jar", "{\"serialised\":\"by the application\"}",
                "made by the application", "own-libraries done"), stdout.lines().toList(), stderr.join());
        List<String> blocks = AgentRun.blocks(stderr.join(), "loopdiag: blocking-call on loop 'own-libraries'");
        assertEquals(1, blocks.size(), stderr.join());
        assertTrue(blocks.get(0).contains("at io.loopdiag.agent.OwnLibrariesApp.lambda$main$"), blocks.get(0));
        JsonNode written = AgentRun.report(report);
        assertEquals(io.loopdiag.protocol.Schemas.REPORT, written.path("schema").asText());
        assertEquals(1, written.path("summary").path("blocking-call").asLong(), written.toPrettyString());
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
