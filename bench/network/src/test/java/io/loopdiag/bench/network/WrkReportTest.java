package io.loopdiag.bench.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WrkReportTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String WRK = """
            Running 10s test @ http://127.0.0.1:41234/
              2 threads and 100 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency     1.32ms  812.00us  31.20ms   91.50%
                Req/Sec    38.51k     2.10k   44.02k    70.00%
              Latency Distribution
                 50%  846.00us
                 75%    1.62ms
                 90%    2.02ms
                 99%    3.51ms
              766357 requests in 10.00s, 88.43MB read
              Socket errors: connect 0, read 12, write 0, timeout 0
            Requests/sec:  76628.41
            Transfer/sec:      8.84MB
            """;

    private static Map<String, Object> params() {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("connections", 100);
        params.put("threads", 2);
        params.put("seconds", 10);
        return params;
    }

    @Test
    void wrkOutputBecomesThroughputAndTwoPercentiles() throws Exception {
        List<Measurement> lines = WrkReport.parse(WRK, "netty", "default", params(),
                new WrkReport.Cpu(9.5, 10.2, 20.5), null, "load average 0.10");
        assertEquals(3, lines.size());
        JsonNode rate = JSON.readTree(lines.get(0).toJson());
        assertEquals("http", rate.get("workload").asText());
        assertEquals("netty", rate.get("subject").asText());
        assertEquals("req/s", rate.get("metric").asText());
        assertEquals(76628, rate.get("median").asLong());
        assertEquals(76628, rate.get("samples").get(0).asLong());
        assertTrue(rate.get("error").isNull());
        assertEquals(100, rate.get("params").get("connections").asInt());
        String note = rate.get("note").asText();
        assertTrue(note.contains("server 0.95 cores") && note.contains("wrk 1.02 cores")
                && note.contains("rest of the machine 0.08 cores"), note);
        assertTrue(note.contains("read 12") && note.endsWith("load average 0.10"), note);

        JsonNode p50 = JSON.readTree(lines.get(1).toJson());
        assertEquals("us", p50.get("metric").asText());
        assertEquals(50, p50.get("params").get("percentile").asInt());
        assertEquals(846.0, p50.get("median").asDouble());
        JsonNode p99 = JSON.readTree(lines.get(2).toJson());
        assertEquals(99, p99.get("params").get("percentile").asInt());
        assertEquals(3510.0, p99.get("median").asDouble());
    }

    @Test
    void outputThatIsNotWrksIsAnErrorOnEveryLine() throws Exception {
        List<Measurement> lines = WrkReport.parse("unable to connect to 127.0.0.1:1 Connection refused\n",
                "asyncio", "default", params(), WrkReport.Cpu.UNKNOWN, null, null);
        for (Measurement line : lines) {
            JsonNode json = JSON.readTree(line.toJson());
            assertTrue(json.get("median").isNull());
            assertEquals(0, json.get("samples").size());
            assertTrue(json.get("error").asText().contains("Connection refused"), json.toString());
        }
    }

    @Test
    void detectionsAreCountedAndAMissingAgentIsAnError() {
        List<Measurement> healthy = WrkReport.parse(WRK, "loop-core", "agent", params(), WrkReport.Cpu.UNKNOWN,
                new Detections(Detections.Tool.LOOPDIAG, 0, true, null, List.of()), null);
        assertNull(healthy.get(0).error());
        List<Measurement> noted = WrkReport.parse(WRK, "loop-core", "agent", params(), WrkReport.Cpu.UNKNOWN,
                new Detections(Detections.Tool.LOOPDIAG, 2, true, "loopdiag: blocking-call on loop 'x': ...", List.of()), null);
        assertNull(noted.get(0).error());
        assertTrue(noted.get(0).note().contains("2 detection(s)"), noted.get(0).note());
        List<Measurement> unloaded = WrkReport.parse(WRK, "loop-core", "agent", params(), WrkReport.Cpu.UNKNOWN,
                new Detections(Detections.Tool.LOOPDIAG, 0, false, null, List.of()), null);
        assertEquals("the agent did not say it loaded", unloaded.get(0).error());
    }

    @Test
    void wrkUnitsAreConvertedToMicroseconds() {
        assertEquals(812.0, WrkReport.micros("812.00", "us"));
        assertEquals(1320.0, WrkReport.micros("1.32", "ms"));
        assertEquals(2_000_000.0, WrkReport.micros("2.00", "s"));
        assertEquals(90_000_000.0, WrkReport.micros("1.50", "m"));
    }
}
