package io.loopdiag.bench.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MergeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Map<String, Object> params(Object... keysAndValues) {
        Map<String, Object> params = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            params.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return params;
    }

    private static List<JsonNode> merge(List<Measurement> lines) throws Exception {
        StringBuilder in = new StringBuilder();
        lines.forEach(line -> in.append(line.toJson()).append('\n'));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Merge.run(new ByteArrayInputStream(in.toString().getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8).lines().map(line -> {
            try {
                return JSON.readTree(line);
            } catch (Exception e) {
                throw new AssertionError(line, e);
            }
        }).toList();
    }

    @Test
    void roundsOfTheSameMeasurementBecomeSamplesWithTheirMedian() throws Exception {
        List<JsonNode> merged = merge(List.of(
                Measurement.of("echo", "netty", "default", "msg/s", 300, params("connections", 100), "a"),
                Measurement.of("echo", "netty", "default", "us", 9, params("connections", 100, "percentile", 50), "a"),
                Measurement.of("echo", "netty", "default", "msg/s", 100, params("connections", 100), "b"),
                Measurement.of("echo", "netty", "default", "us", 7, params("connections", 100, "percentile", 50), "b"),
                Measurement.of("echo", "netty", "default", "msg/s", 200, params("connections", 100), "c"),
                Measurement.of("echo", "netty", "default", "us", 8, params("connections", 100, "percentile", 50), "c")));
        assertEquals(2, merged.size(), merged.toString());
        assertEquals("msg/s", merged.get(0).get("metric").asText());
        assertEquals(200, merged.get(0).get("median").asLong());
        assertEquals("[300,100,200]", merged.get(0).get("samples").toString());
        assertEquals("round 1: a | round 2: b | round 3: c", merged.get(0).get("note").asText());
        assertEquals(8, merged.get(1).get("median").asLong());
        assertEquals(50, merged.get(1).get("params").get("percentile").asInt());
    }

    @Test
    void detectionsAreSummedAndAFailedRoundIsNoted() throws Exception {
        List<JsonNode> merged = merge(List.of(
                Measurement.of("http", "loop-core", "agent", "req/s", 10, params("connections", 100, "detections", 0), "x"),
                Measurement.failed("http", "loop-core", "agent", "req/s", "the server did not start", params("connections", 100), null),
                Measurement.of("http", "loop-core", "agent", "req/s", 20, params("connections", 100, "detections", 2), "y")));
        assertEquals(1, merged.size(), merged.toString());
        JsonNode line = merged.get(0);
        assertTrue(line.get("error").isNull());
        assertEquals(15.0, line.get("median").asDouble());
        assertEquals(2, line.get("params").get("detections").asInt());
        assertTrue(line.get("note").asText().contains("round 2: failed: the server did not start"), line.toString());
    }

    @Test
    void aMeasurementWithNoSampleStaysAnError() throws Exception {
        List<JsonNode> merged = merge(List.of(
                Measurement.failed("echo", "node", "default", "msg/s", "boom", params(), null),
                Measurement.failed("echo", "node", "default", "msg/s", "boom", params(), null)));
        assertEquals("boom", merged.get(0).get("error").asText());
        assertTrue(merged.get(0).get("median").isNull());
    }

    @Test
    void aSingleRoundPassesThroughUnchanged() {
        Measurement line = Measurement.of("echo", "asyncio", "default", "msg/s", 5, params("size", 64), "n");
        List<Measurement> merged = Merge.merge(List.of(line));
        assertEquals(line.toJson(), merged.get(0).toJson());
        assertNull(merged.get(0).error());
    }
}
