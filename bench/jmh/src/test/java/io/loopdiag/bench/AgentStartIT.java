package io.loopdiag.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code bench/agent-start} runs each start once and prints a row with figures for each: the JVM
 * alone, an empty agent, the loopdiag agent and BlockHound. No figure is judged here.
 */
@Timeout(300)
class AgentStartIT {
    private static final Path TOP = Path.of("../..").toAbsolutePath().normalize();
    private static final Pattern ROW = Pattern.compile("\\| (.+?) \\| \\d+ \\(\\d+-\\d+\\) \\| \\d+ \\| \\d+\\.\\d\\dx \\| \\d+\\.\\d\\dx \\|");

    @Test
    void eachStartRunsAndGetsARowWithItsFigures() throws Exception {
        Process run = new ProcessBuilder("python3", TOP.resolve("bench/agent-start").toString(), "--runs", "1")
                .directory(TOP.toFile()).redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(240, TimeUnit.SECONDS));
        assertEquals(0, run.exitValue(), output);
        List<String> rows = output.lines().map(ROW::matcher).filter(java.util.regex.Matcher::matches).map(m -> m.group(1)).toList();
        assertEquals(List.of("the JVM alone", "an agent that does nothing", "loopdiag (-javaagent)", "BlockHound (installed in main)"), rows,
                output);
    }
}
