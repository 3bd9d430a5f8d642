package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.cli.support.Jvms;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code loopdiag top} on live services: its frames in a pipe (plain, one after another), its
 * JSON lines, and, once, in a real pseudo-terminal ({@code script}), where it is in colour unless
 * {@code NO_COLOR} is set.
 */
@Timeout(120)
class TopIT {
    private final Jvms jvms = new Jvms();

    @AfterEach
    void stopTargets() throws InterruptedException {
        jvms.close();
    }

    @Test
    void eachFrameShowsEveryLoopsHealthTheTasksWaitingLongestAndTheFindings() throws Exception {
        String pid = jvms.start("log=off", "stuck-service").pidText();
        Jvms.Run top = jvms.cli("top", "--count", "3", pid);
        assertEquals(0, top.exitCode(), top.err());
        String out = top.out();
        assertFalse(out.contains("\u001b"), "no escape sequence in a pipe:\n" + out);
        List<String> frames = List.of(out.split("\n\n(?=loopdiag top: )"));
        assertEquals(3, frames.size(), out);
        String last = frames.get(2);
        assertTrue(last.startsWith("loopdiag top: JVM " + pid + ", 1 loop, 102 tasks, "), last);
        assertTrue(last.matches("(?s).*\nstuck-service +loop-core +[0-9.]+ (s|ms) +100% +0 +0 +1 +102 +running for [^:]+: step of"
                + " Task\\[refresh-cache #3, running]\n.*"), "stuck: busy all the time, its lag growing:\n" + last);
        assertTrue(last.contains("\nWAITING LONGEST\n  'main' #1 on 'stuck-service', "), last);
        assertTrue(last.contains(": lock held by #3\n"), last);
        assertTrue(last.contains("\nFINDINGS: 1 blocking-call"), last);
        assertTrue(last.contains("  blocking-call on loop 'stuck-service': java.util.concurrent.CompletableFuture.get"), last);
    }

    @Test
    void withJsonEachFrameIsOneLineOfTheAgentsSummary() throws Exception {
        String pid = jvms.start("log=off", "half-busy").pidText();
        Jvms.Run top = jvms.cli("top", "--json", "--count", "3", pid);
        assertEquals(0, top.exitCode(), top.err());
        List<String> lines = top.out().lines().toList();
        assertEquals(3, lines.size(), top.out());
        JsonNode last = new ObjectMapper().readTree(lines.get(2));
        assertEquals("loopdiag-dump/1", last.path("schema").asText());
        JsonNode stats = last.path("loops").get(0).path("statistics");
        assertTrue(stats.path("utilization").asDouble() > 0.3 && stats.path("utilization").asDouble() < 0.7, "half busy: " + stats);
    }

    @Test
    void onATerminalItIsInColourUnlessNoColorIsSet() throws Exception {
        String pid = jvms.start("log=off", "stuck-service").pidText();
        String command = Jvms.JAVA + " -jar " + Jvms.CLI + " top --once " + pid;
        String coloured = script(command, false);
        assertTrue(coloured.contains("\u001b[1mloopdiag top: JVM " + pid), "bold heading on a terminal:\n" + coloured);
        String plain = script(command, true);
        assertTrue(plain.contains("loopdiag top: JVM " + pid), plain);
        assertFalse(plain.contains("\u001b["), "NO_COLOR: no escape sequence even on a terminal:\n" + plain);
    }

    /** What {@code command} prints in a pseudo-terminal that {@code script} makes for it. */
    private static String script(String command, boolean noColor) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("script", "-qec", command, "/dev/null").redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.PIPE);
        builder.environment().remove("NO_COLOR");
        if (noColor) {
            builder.environment().put("NO_COLOR", "1");
        }
        Process script = builder.start();
        String out = new String(script.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(script.waitFor(60, TimeUnit.SECONDS), "script ended");
        assertEquals(0, script.exitValue(), out);
        return out;
    }
}
