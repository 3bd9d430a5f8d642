package io.loopdiag.bench.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SoakTest {
    private static final Map<String, Long> INJECTED = Map.of(
            "blocking-call SoakServer.sleepSite", 3L, "slow-callback SoakServer.slowSite", 1L);
    private static final List<Soak.Sample> FLAT = List.of(
            new Soak.Sample(30, 7_000, 2, 2), new Soak.Sample(60, 7_100, 2, 3), new Soak.Sample(90, 7_050, 2, 4),
            new Soak.Sample(120, 7_200, 2, 4));

    private static EchoLoad.Result echoes() {
        LatencyHistogram latency = new LatencyHistogram();
        latency.record(1_000_000);
        return new EchoLoad.Result(1000, 1_000_000_000L, latency, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());
    }

    private static String summary(List<Soak.Sample> samples, Map<String, Long> report) {
        return Soak.summary(2, "a test", samples, INJECTED, report, report, echoes(), null);
    }

    @Test
    void findingsAreKeyedByKindAndTheSoakServerMethodOnTheirStack(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("report.json");
        Files.writeString(report, """
                {"schema": "loopdiag-report/1", "dropped": 0, "detections": [
                  {"kind": "blocking-call", "message": "java.lang.Thread.sleep ...", "count": 3, "stack": [
                    "java.base/java.lang.Thread.sleep(Thread.java:509)",
                    "io.loopdiag.apps.SoakServer.sleepSite(SoakServer.java:105)",
                    "io.loopdiag.apps.SoakServer.inject(SoakServer.java:80)"]},
                  {"kind": "slow-callback", "message": "step of Task[conn #7] took about 120 ms", "count": 1, "stack": [
                    "io.loopdiag.loop.net.ByteQueue.ensureRoom(ByteQueue.java:82)"]}
                ]}
                """);
        assertEquals(Map.of("blocking-call SoakServer.sleepSite", 3L,
                "slow-callback (not injected) step of Task[conn #7] took about 120 ms", 1L), Soak.findings(report));
    }

    @Test
    void everyCheckHoldsWhenTheReportIsWhatWasInjectedAndTheHeapIsFlat() {
        String summary = summary(FLAT, INJECTED);
        assertTrue(summary.endsWith("All checks held.\n"), summary);
        assertFalse(summary.contains("**FAIL"), summary);
    }

    @Test
    void aCountThatDiffersFromTheInjectorsFails() {
        String summary = summary(FLAT, Map.of("blocking-call SoakServer.sleepSite", 2L, "slow-callback SoakServer.slowSite", 1L));
        assertTrue(summary.contains("| every finding counted as injected | **FAIL** | blocking-call SoakServer.sleepSite: injected 3, report 2 |"), summary);
    }

    @Test
    void aFindingNobodyInjectedFailsTheStoreAndTheCounts() {
        String summary = summary(FLAT, Map.of("blocking-call SoakServer.sleepSite", 3L, "slow-callback SoakServer.slowSite", 1L,
                "loop-stall (not injected) gc", 1L));
        assertTrue(summary.contains("| detection store is flat | **FAIL** |"), summary);
        assertTrue(summary.contains("not injected: loop-stall (not injected) gc x1"), summary);
    }

    @Test
    void aHeapThatGrowsFails() {
        List<Soak.Sample> growing = List.of(new Soak.Sample(30, 7_000, 2, 2), new Soak.Sample(60, 7_100, 2, 3),
                new Soak.Sample(90, 9_000, 2, 4), new Soak.Sample(120, 9_500, 2, 4));
        String summary = summary(growing, INJECTED);
        assertTrue(summary.contains("| heap after GC is flat | **FAIL** |"), summary);
        assertTrue(summary.endsWith("**FAILED**\n"), summary);
    }
}
