package io.loopdiag.bench.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MeasurementTest {
    @Test
    void aLineHasTheSharedFieldsInTheirOrder() {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("connections", 100);
        params.put("size", 64);
        params.put("seconds", 10);
        Measurement line = Measurement.of("echo", "netty", "default", "msg/s", 123456, params, "say \"hi\"\n");
        assertEquals("{\"workload\": \"echo\", \"subject\": \"netty\", \"variant\": \"default\", \"metric\": \"msg/s\", "
                + "\"median\": 123456, \"error\": null, \"samples\": [123456], "
                + "\"params\": {\"connections\": 100, \"size\": 64, \"seconds\": 10}, \"note\": \"say \\\"hi\\\"\\n\"}",
                line.toJson());
    }

    @Test
    void aFailedLineHasNoMedianAndNoSamples() {
        Measurement line = Measurement.failed("http", "node", "default", "req/s", "the server did not start", Map.of(), null);
        assertEquals("{\"workload\": \"http\", \"subject\": \"node\", \"variant\": \"default\", \"metric\": \"req/s\", "
                + "\"median\": null, \"error\": \"the server did not start\", \"samples\": [], \"params\": {}, \"note\": null}",
                line.toJson());
    }

    @Test
    void theMedianIsTheMiddleSampleAndNumbersKeepATenth() {
        Measurement odd = new Measurement("echo", "s", "v", "us", List.of(3.0, 1.0, 2.0), null, Map.of(), null);
        assertEquals(2.0, odd.median());
        Measurement even = new Measurement("echo", "s", "v", "us", List.of(4.0, 1.0, 2.0, 3.0), null, Map.of(), null);
        assertEquals(2.5, even.median());
        assertEquals("1234.6", Measurement.number(1234.56));
        assertEquals("17", Measurement.number(17.0));
        assertEquals("null", Measurement.number(Double.NaN));
    }
}
