package io.loopdiag.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/** Runs a {@link Sample} class through the Jupiter engine, in this JVM, and tells what became of each of its tests. */
final class SampleRun {
    /** The configuration parameter that enables the samples; only {@link #of} sets it. */
    static final String PARAMETER = "loopdiag.junit.sample";

    private SampleRun() {
    }

    /**
     * What became of a sample's tests, by method name in the order they finished.
     *
     * @param passed the tests that passed
     * @param failed the tests that failed, with what they failed with
     */
    record Outcomes(List<String> passed, Map<String, Throwable> failed) {
        /** The failure of {@code test}, which must have failed. */
        Throwable failureOf(String test) {
            Throwable failure = failed.get(test);
            if (failure == null) {
                throw new AssertionError(test + " did not fail: " + this);
            }
            return failure;
        }
    }

    /**
     * Runs {@code sample} and checks that nothing but its tests' own outcomes happened: the class
     * ran (it was not skipped and did not fail), and every test that started finished, passed or
     * failed, none skipped or aborted.
     */
    static Outcomes of(Class<?> sample) {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter(PARAMETER, "true")
                .selectors(selectClass(sample))
                .execute();
        List<String> containers = new ArrayList<>();
        for (Event event : results.containerEvents().finished().list()) {
            TestExecutionResult result = event.getRequiredPayload(TestExecutionResult.class);
            if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                containers.add(event.getTestDescriptor().getDisplayName() + ": " + result);
            }
        }
        assertEquals(List.of(), containers, "the sample's containers that did not succeed");
        assertEquals(0, results.allEvents().skipped().count(), "skipped: " + results.allEvents().skipped().list());
        assertEquals(results.testEvents().started().count(), results.testEvents().finished().count(), "every test that started finished");

        List<String> passed = new ArrayList<>();
        Map<String, Throwable> failed = new LinkedHashMap<>();
        for (Event event : results.testEvents().finished().list()) {
            String name = ((MethodSource) event.getTestDescriptor().getSource().orElseThrow()).getMethodName();
            TestExecutionResult result = event.getRequiredPayload(TestExecutionResult.class);
            switch (result.getStatus()) {
                case SUCCESSFUL -> passed.add(name);
                case FAILED -> failed.put(name, result.getThrowable().orElseThrow());
                case ABORTED -> throw new AssertionError(name + " was aborted", result.getThrowable().orElse(null));
            }
        }
        return new Outcomes(passed, failed);
    }

    /** The number of the one line of {@code source} (under src/test/java) that ends with the comment {@code // @line NAME}. */
    static int line(Class<?> source, String name) throws IOException {
        Class<?> top = source;
        while (top.getEnclosingClass() != null) {
            top = top.getEnclosingClass();
        }
        Path file = Path.of("src/test/java", top.getName().replace('.', '/') + ".java");
        List<String> lines = Files.readAllLines(file);
        List<Integer> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).endsWith("// @line " + name)) {
                found.add(i + 1);
            }
        }
        assertEquals(1, found.size(), "lines marked '// @line " + name + "' in " + file + ": " + found);
        return found.get(0);
    }
}
