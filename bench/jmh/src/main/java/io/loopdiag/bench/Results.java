package io.loopdiag.bench;

import com.sun.tools.attach.VirtualMachine;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** One measurement as a line of the shared JSON Lines format that {@code bench/run} collects. */
final class Results {
    /**
     * loop-core's fast setup, in every fork that runs loop-core: {@code java.lang} opened, so that each
     * loop gets its own carrier thread ({@code LoopCarrier}). The other subjects ignore it.
     */
    static final String LOOP_CORE_SETUP = "--add-opens=java.base/java.lang=ALL-UNNAMED";

    private Results() {
    }

    /**
     * Loads the agent into this JVM as {@code loopdiag attach} does, when the fork was started with
     * {@code -Djdk.attach.allowAttachSelf=true -Dloopdiag.bench.attach=AGENT-JAR}: the cost of an
     * agent attached to a running JVM, which cannot be given JVM flags.
     */
    static void attachAgentIfAsked() throws Exception {
        String jar = System.getProperty("loopdiag.bench.attach");
        if (jar == null) {
            return;
        }
        VirtualMachine self = VirtualMachine.attach(Long.toString(ProcessHandle.current().pid()));
        try {
            self.loadAgent(jar, "log=off");
        } finally {
            self.detach();
        }
    }

    /** {@code params} is a JSON object's text; the median and the error (half the range) come from {@code samples}. */
    static String line(String workload, String subject, String variant, String metric, double[] samples, String params, String note) {
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        double median = sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
        double error = (sorted[sorted.length - 1] - sorted[0]) / 2;
        return String.format(Locale.ROOT,
                "{\"workload\": \"%s\", \"subject\": \"%s\", \"variant\": \"%s\", \"metric\": \"%s\", \"median\": %.3f, \"error\": %.3f,"
                        + " \"samples\": [%s], \"params\": %s, \"note\": \"%s\"}",
                workload, subject, variant, metric, median, error,
                Arrays.stream(samples).mapToObj(v -> String.format(Locale.ROOT, "%.3f", v)).collect(Collectors.joining(", ")),
                params, note.replace("\"", "'"));
    }
}
