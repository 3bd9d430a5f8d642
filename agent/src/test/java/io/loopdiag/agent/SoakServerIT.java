package io.loopdiag.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.agent.support.AgentRun;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code soak-server} scenario that bench/soak runs for minutes, here for two seconds: the
 * agent's report holds exactly the findings its injector says it caused, one per call site and
 * kind, each counted as many times as it was done.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SoakServerIT {
    private static final Pattern INJECTED = Pattern.compile("soak-server injected (\\S+) (\\S+) (\\d+)");

    @Test
    void theReportCountsEveryInjectedBlockingCallAndSlowCallbackBySite(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("report.json");
        List<String> command = new ArrayList<>(AgentRun.command("report=" + report, "soak-server"));
        command.addAll(List.of("--port", "0", "--inject-seconds", "2", "--every-ms", "50", "--slow-every", "10"));
        Process server = new ProcessBuilder(command).redirectError(dir.resolve("stderr.txt").toFile()).start();
        Map<String, Long> injected = new TreeMap<>();
        try {
            BufferedReader stdout = new BufferedReader(new InputStreamReader(server.getInputStream(), UTF_8));
            String line;
            while ((line = stdout.readLine()) != null && !line.equals("soak-server injector done")) {
                Matcher matcher = INJECTED.matcher(line);
                if (matcher.matches()) {
                    injected.put(matcher.group(1) + " " + matcher.group(2), Long.parseLong(matcher.group(3)));
                }
            }
            assertEquals("soak-server injector done", line, "the injector ended and said so");
        } finally {
            server.destroy(); // SIGTERM: the report is written at exit
            server.waitFor(30, TimeUnit.SECONDS);
            server.destroyForcibly();
        }
        // 40 rounds: 36 blocking calls over 5 sites, and 4 slow callbacks (each a blocking call, a stall, a slow callback).
        assertEquals(8, injected.size(), injected.toString());
        assertEquals(48, injected.values().stream().mapToLong(Long::longValue).sum(), injected.toString());

        Map<String, Long> found = new TreeMap<>();
        JsonNode written = AgentRun.report(report);
        for (JsonNode detection : written.path("detections")) {
            String site = "(none)";
            for (JsonNode frame : detection.path("stack")) {
                if (frame.asText().startsWith("io.loopdiag.apps.SoakServer.")) {
                    site = frame.asText().replaceAll("\\(.*", "");
                    break;
                }
            }
            assertTrue(found.put(detection.path("kind").asText() + " " + site, detection.path("count").asLong()) == null,
                    "one finding per kind and site:\n" + written.toPrettyString());
        }
        assertEquals(injected, found, written.toPrettyString());
    }
}
