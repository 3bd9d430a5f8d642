package io.loopdiag.loop;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static io.loopdiag.loop.Async.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The example in README.md, word for word between the markers: if it stops working, so does this. */
@Timeout(10)
class ReadmeExampleTest {

    @Test
    void theReadmeExampleRuns() throws Exception {
        // README example start
        String answer = EventLoop.run(() -> {                  // asyncio.run: new loop, main task, cleanup
            Task<String> slow = createTask("slow", () -> {     // asyncio.create_task
                sleep(Duration.ofMillis(50));                  // suspends this task only
                return "slow done";
            });
            String fast = waitFor(Coroutine.of("fast", () -> "fast done"), Duration.ofSeconds(1));
            return fast + ", " + await(slow);                  // await re-throws the task's exception
        });
        // README example end
        assertEquals("fast done, slow done", answer);
    }

    @Test
    void theReadmeShowsThisExample() throws Exception {
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("../README.md"));
        String source = java.nio.file.Files.readString(
                java.nio.file.Path.of("src/test/java/io/loopdiag/loop/ReadmeExampleTest.java"));
        String example = source.substring(source.indexOf("// README example start") + "// README example start".length(),
                source.indexOf("        // README example end"));
        for (String line : example.strip().lines().toList()) {
            String code = line.strip();
            assertTrue(readme.contains(code), "README.md lacks the example's line: " + code);
        }
    }
}
