package io.loopdiag.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The benchmark suite's smoke pass, so that it never rots: {@code bench/run --smoke} runs every
 * benchmark once at tiny sizes, and each workload comes back with loop-core's figure and its
 * peers', and the Netty part with Netty's three variants and the blocking corpus. No figure is
 * judged here: speed is the full run's business, not a test's.
 */
@Timeout(900)
class BenchSmokeIT {
    private static final Path TOP = Path.of("../..").toAbsolutePath().normalize();

    @Test
    void everyBenchmarkRunsOnceAndReportsEveryPeer() throws Exception {
        Process run = new ProcessBuilder("python3", TOP.resolve("bench/run").toString(), "--smoke", "--skip-build")
                .directory(TOP.toFile()).redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(800, TimeUnit.SECONDS));
        assertEquals(0, run.exitValue(), output);

        JsonNode results = new ObjectMapper().readTree(TOP.resolve("bench/results/smoke/latest.json").toFile()).path("results");
        Set<String> seen = new HashSet<>();
        for (JsonNode result : results) {
            seen.add(result.path("workload").asText() + " " + result.path("subject").asText() + " " + result.path("variant").asText());
            assertTrue(result.path("median").isNumber(), result.toString());
        }
        for (String expected : List.of(
                "callback-chain loop-core default", "callback-chain loop-core agent", "callback-chain netty default",
                "callback-chain kotlinx default", "callback-chain asyncio default", "callback-chain asyncio debug", "callback-chain node default",
                "task-switch loop-core default", "task-switch loop-core agent", "task-switch kotlinx default", "task-switch asyncio default",
                "task-switch node default", "hand-off jvm default", "hand-off jvm start-join", "task-switch loop-core agent-lean", "create-await loop-core agent-attached", "create-await loop-core eager",
                "create-await loop-core default", "create-await kotlinx default", "create-await asyncio default", "create-await node default",
                "timers loop-core default", "timers netty default", "timers kotlinx default", "timers asyncio default", "timers node default",
                "suspended-memory loop-core default", "suspended-memory kotlinx default", "suspended-memory asyncio default",
                "suspended-memory node default",
                "echo loop-core default", "echo loop-core agent", "echo netty default", "echo asyncio default", "echo node default",
                "echo netty agent", "echo netty blockhound", "blocking-corpus loopdiag default", "blocking-corpus blockhound default",
                "dump-100k loop-core agent", "dump-stall loop-core agent", "dump-100k-first loop-core agent", "dump-100k jcmd default",
                "dump-100k-first jcmd default", "dump-stall jcmd default", "dump-100k asyncio default", "dump-walk jvm default",
                "dump-100k-first-cpu loop-core agent", "dump-100k-first-cpu jcmd default",
                "blocking-check jvm default", "blocking-check jvm agent", "blocking-check blockhound default",
                "callback-chain loop-core agent-nostats", "echo loop-core agent-nostats")) {
            assertTrue(seen.contains(expected), "no result for " + expected + " in " + seen + "\n" + output);
        }
        String markdown = Files.readString(TOP.resolve("bench/results/smoke/latest.md"));
        assertTrue(markdown.contains("| callback chain (1M) |"), markdown);
        assertTrue(markdown.contains("| attached to the running JVM |"), markdown);
        assertTrue(markdown.contains("With eager tasks (`EventLoop.setEagerTasks(true)`"), markdown);
        assertTrue(markdown.contains("The floor under a task switch: one hand-off between two virtual threads"), markdown);
        assertTrue(markdown.contains("The floor under a create + await: a virtual thread starting another"), markdown);
        assertTrue(markdown.contains("The floor under a first dump: the JDK's own walk of every task's stack"), markdown);
        assertTrue(markdown.contains("What a first dump costs (medians): loopdiag's took "), markdown);
        assertTrue(markdown.contains("## Netty with the agent") && markdown.contains("| Thread.sleep(long) | yes |"), markdown);
        assertTrue(markdown.contains("## The cost of loop health") && markdown.contains("| callback chain (1M `execute`) | "), markdown);
        assertTrue(Files.readString(TOP.resolve("bench/results/smoke/ratios.svg")).startsWith("<svg"));
    }
}
