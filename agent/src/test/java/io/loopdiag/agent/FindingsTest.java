package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.agent.support.AgentRun;
import io.loopdiag.protocol.Kind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The store of findings: deduplication by kind and stack, its bound, what it prints and writes. */
class FindingsTest {
    private static final List<StackTraceElement> AT_TOTAL = List.of(frame("com.acme.Cart", "total", 42), frame("com.acme.Main", "main", 7));
    private static final List<StackTraceElement> AT_LOAD = List.of(frame("com.acme.Cart", "load", 12), frame("com.acme.Main", "main", 7));

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final AtomicInteger changes = new AtomicInteger();
    private final Findings findings = new Findings(new PrintStream(log, true, StandardCharsets.UTF_8), changes::incrementAndGet);

    private static StackTraceElement frame(String type, String method, int line) {
        return new StackTraceElement(type, method, type.substring(type.lastIndexOf('.') + 1) + ".java", line);
    }

    private static Occurrence blocking(String message, List<StackTraceElement> stack, long millis) {
        return new Occurrence(Kind.BLOCKING_CALL, null, "orders", "'fetch' (#3)", message, stack, null, millis);
    }

    private String printed() {
        return log.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theSameKindAndStackIsOneFindingThatCounts() {
        assertTrue(findings.report(blocking("Thread.sleep in task 'fetch' (#3)", AT_TOTAL, 5)));
        assertFalse(findings.report(blocking("Thread.sleep in task 'fetch' (#3)", AT_TOTAL, 9)), "seen before");

        assertEquals(1, findings.all().size());
        Findings.Finding finding = findings.all().get(0);
        assertEquals(2, finding.count);
        assertEquals(9, finding.longestMillis);
        assertFalse(finding.lastSeen.isBefore(finding.firstSeen));
        assertEquals(1, AgentRun.blocks(printed(), "loopdiag: blocking-call").size(), "printed once:\n" + printed());
        assertEquals(2, changes.get(), "each occurrence marks the report out of date");
    }

    @Test
    void anotherStackOrAnotherKindIsAnotherFinding() {
        findings.report(blocking("a", AT_TOTAL, 0));
        findings.report(blocking("a", AT_LOAD, 0));
        findings.report(new Occurrence(Kind.SLOW_CALLBACK, null, "orders", null, "a", AT_TOTAL, null, 120));
        assertEquals(3, findings.all().size());
    }

    @Test
    void withoutAStackTheMessageTellsFindingsApart() {
        Occurrence fetch = new Occurrence(Kind.NEVER_AWAITED, null, "orders", null, "coroutine 'fetch' was never awaited", List.of(), null, 0);
        Occurrence store = new Occurrence(Kind.NEVER_AWAITED, null, "orders", null, "coroutine 'store' was never awaited", List.of(), null, 0);
        findings.report(fetch);
        findings.report(store);
        findings.report(fetch);
        assertEquals(2, findings.all().size());
        assertEquals(2, findings.all().get(0).count);
    }

    @Test
    void pastTheBoundNewFindingsAreOnlyCountedAsDroppedAndKeptOnesStillCount() {
        for (int i = 0; i < Findings.MAX_DISTINCT + 5; i++) {
            findings.report(blocking("call " + i, List.of(frame("com.acme.Storm", "call" + i, i)), 0));
        }
        assertEquals(Findings.MAX_DISTINCT, findings.all().size());
        assertEquals(5, findings.dropped());
        assertFalse(printed().contains("call " + Findings.MAX_DISTINCT), "a dropped finding is not printed");

        findings.report(blocking("call 0", List.of(frame("com.acme.Storm", "call0", 0)), 0));
        assertEquals(5, findings.dropped(), "a kept finding seen again is counted, not dropped");
        assertEquals(2, findings.all().stream().filter(f -> f.message.equals("call 0")).findFirst().orElseThrow().count);
    }

    @Test
    void theReportShowsOccurrencesByKindAndEachFindingWithItsStack() throws Exception {
        findings.report(blocking("a", AT_TOTAL, 0));
        findings.report(blocking("a", AT_TOTAL, 0));
        findings.report(new Occurrence(Kind.LOST_EXCEPTION, null, "orders", "'fail' (#4)", "task 'fail' (#4) failed", AT_LOAD, AT_TOTAL, 0));
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        try (JsonGenerator json = Json.FACTORY.createGenerator(written)) {
            json.writeStartObject();
            findings.writeTo(json);
            json.writeEndObject();
        }
        JsonNode root = new ObjectMapper().readTree(written.toByteArray());

        assertEquals("{\"blocking-call\":2,\"lost-exception\":1}", root.path("summary").toString());
        assertEquals(0, root.path("dropped").asLong());
        assertEquals(2, root.path("detections").size());
        var first = root.path("detections").get(0);
        assertEquals("blocking-call", first.path("kind").asText());
        assertEquals("orders", first.path("loop").asText());
        assertEquals("'fetch' (#3)", first.path("task").asText());
        assertEquals(2, first.path("count").asLong());
        assertEquals("[\"com.acme.Cart.total(Cart.java:42)\",\"com.acme.Main.main(Main.java:7)\"]", first.path("stack").toString());
        assertTrue(first.path("createdAt").isMissingNode(), "not recorded: absent");
        assertEquals("[\"com.acme.Cart.total(Cart.java:42)\",\"com.acme.Main.main(Main.java:7)\"]",
                root.path("detections").get(1).path("createdAt").toString());
    }

    @Test
    void theLogEscapesWhatTheApplicationNamed() {
        findings.report(new Occurrence(Kind.BLOCKING_CALL, null, "red\u001b[31m", null, "a\nb", AT_TOTAL, null, 0));
        assertEquals("loopdiag: blocking-call on loop 'red\\u001b[31m': a\\u000ab\n"
                + "    at com.acme.Cart.total(Cart.java:42)\n    at com.acme.Main.main(Main.java:7)\n", printed());
    }

    @Test
    void withLogOffNothingPrintsAndEverythingIsKept() {
        Findings quiet = new Findings(null, () -> { });
        assertTrue(quiet.report(blocking("a", AT_TOTAL, 0)));
        assertEquals(1, quiet.all().size());
    }
}
