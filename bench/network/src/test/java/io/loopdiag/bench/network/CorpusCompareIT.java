package io.loopdiag.bench.network;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The blocking corpus end to end: the packaged bench-network.jar runs it under the packaged agent
 * and under BlockHound. Both tools must see the plainest blocking call, the agent must report
 * none of the calls that do not wait, and every blocking call BlockHound catches the agent must
 * catch.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CorpusCompareIT {
    private static final Path JAR = Path.of("target", "bench-network.jar");
    private static final Path AGENT = Path.of("../../agent/target/loopdiag-agent.jar");

    @Test
    void everyBlockingCallBlockHoundCatchesTheAgentCatchesAndItReportsNoCallThatDoesNotWait() throws Exception {
        assertTrue(Files.isRegularFile(JAR), JAR.toAbsolutePath() + " is missing: run mvn package first");
        assertTrue(Files.isRegularFile(AGENT), AGENT.toAbsolutePath().normalize() + " is missing: package the agent first");
        Process compare = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-jar", JAR.toString(),
                "corpus-compare", "--agent", AGENT.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(compare.getInputStream().readAllBytes(), UTF_8);
        assertTrue(compare.waitFor(150, TimeUnit.SECONDS), "corpus-compare did not finish");
        assertEquals(0, compare.exitValue(), out);

        Map<String, Map<String, JsonNode>> byCall = new HashMap<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : out.lines().toList()) {
            JsonNode result = json.readTree(line);
            assertEquals(CorpusCompare.WORKLOAD, result.get("workload").asText(), line);
            assertTrue(result.get("median").isNumber(), line);
            byCall.computeIfAbsent(result.get("params").get("call").asText(), call -> new HashMap<>())
                    .put(result.get("subject").asText(), result);
        }
        assertEquals(BlockingCorpus.calls().size(), byCall.size(), out);
        assertEquals(1, byCall.get("Thread.sleep(long)").get("loopdiag").get("median").asInt(), out);
        assertEquals(1, byCall.get("Thread.sleep(long)").get("blockhound").get("median").asInt(), out);

        List<String> reportedWithoutWaiting = new ArrayList<>();
        List<String> missed = new ArrayList<>();
        for (BlockingCorpus.Call call : BlockingCorpus.calls()) {
            Map<String, JsonNode> tools = byCall.get(call.name());
            boolean agent = tools.get("loopdiag").get("median").asInt() == 1;
            boolean hound = tools.get("blockhound").get("median").asInt() == 1;
            if (call.group() == BlockingCorpus.Group.DOES_NOT_WAIT && agent) {
                reportedWithoutWaiting.add(call.name() + ": " + tools.get("loopdiag").get("note").asText());
            }
            if (call.group() == BlockingCorpus.Group.BLOCKS && hound && !agent) {
                missed.add(call.name());
            }
        }
        assertEquals(List.of(), reportedWithoutWaiting, "the agent reported calls that do not wait");
        assertEquals(List.of(), missed, "blocking calls BlockHound caught on the Netty loop and the agent did not");
    }
}
