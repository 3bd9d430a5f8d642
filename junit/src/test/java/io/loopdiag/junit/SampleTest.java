package io.loopdiag.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/** The guard on the samples: run in any other way than through {@link SampleRun}, a sample is skipped, saying why. */
@Timeout(60)
class SampleTest {
    @Sample
    static class AlwaysFails {
        @Test
        void fails() {
            throw new AssertionError("a sample ran outside SampleRun");
        }
    }

    @Test
    void aSampleRunWithoutTheParameterIsSkipped() {
        var results = EngineTestKit.engine("junit-jupiter").selectors(selectClass(AlwaysFails.class)).execute();
        assertEquals(0, results.testEvents().started().count(), "tests started");
        List<Event> skipped = results.containerEvents().skipped().list();
        assertEquals(1, skipped.size(), "containers skipped: " + skipped);
        assertEquals("a sample: it runs only through SampleRun, whose test looks at its outcome",
                skipped.get(0).getRequiredPayload(String.class));
    }

    @Test
    void throughSampleRunItRuns() {
        assertEquals(List.of("fails"), List.copyOf(SampleRun.of(AlwaysFails.class).failed().keySet()));
    }
}
