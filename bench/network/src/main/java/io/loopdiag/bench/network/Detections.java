package io.loopdiag.bench.network;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a watching tool said on a server's stderr: its detection lines, whether it said it loaded,
 * and (the agent's) self-check problems. On a healthy server there must be no detection.
 */
record Detections(Tool tool, int count, boolean loaded, String first, List<String> selfChecks) {

    /** The tool whose lines are read, with the header line of each detection and the line it prints once installed. */
    enum Tool {
        /** The agent's Findings.print: {@code loopdiag: KIND on loop ...}; its loaded line; its self-check lines. */
        LOOPDIAG("^loopdiag: (slow-callback|loop-stall|blocking-call|never-awaited|lost-exception) .*",
                "^loopdiag: agent \\S+ loaded .*", "the agent"),
        /** {@link BlockHoundSupport}'s log mode: {@code blockhound: blocking call ...}; its installed line. */
        BLOCKHOUND("^" + Pattern.quote(BlockHoundSupport.BLOCKING_CALL) + ".*",
                "^" + Pattern.quote(BlockHoundSupport.INSTALLED) + " .*", "BlockHound");

        final Pattern detection;
        final Pattern loaded;
        final String label;

        Tool(String detection, String loaded, String label) {
            this.detection = Pattern.compile(detection);
            this.loaded = Pattern.compile(loaded);
            this.label = label;
        }

        /** {@code loopdiag} or {@code blockhound}; anything else is a usage error. */
        static Tool named(String name) {
            try {
                return valueOf(name.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--detector needs loopdiag or blockhound, got '" + name + "'");
            }
        }
    }

    private static final Pattern SELF_CHECK = Pattern.compile("^loopdiag: self-check: .*");

    /** The agent's lines in {@code stderr}. */
    static Detections read(Path stderr) throws IOException {
        return read(stderr, Tool.LOOPDIAG);
    }

    static Detections read(Path stderr, Tool tool) throws IOException {
        List<String> lines = Files.readAllLines(stderr);
        List<String> detections = lines.stream().filter(line -> tool.detection.matcher(line).matches()).toList();
        boolean loaded = lines.stream().anyMatch(line -> tool.loaded.matcher(line).matches());
        List<String> selfChecks = tool == Tool.LOOPDIAG
                ? lines.stream().filter(line -> SELF_CHECK.matcher(line).matches()).toList() : List.of();
        return new Detections(tool, detections.size(), loaded, detections.isEmpty() ? null : detections.get(0), selfChecks);
    }

    /** A note on what is wrong, or null if the tool loaded, detected nothing and found nothing wrong with itself. */
    String problem() {
        if (!loaded) {
            return tool.label + " did not say it loaded";
        }
        String problem = count == 0 ? null : count + " detection(s) on the healthy path, first: " + first;
        if (!selfChecks.isEmpty()) {
            String checks = selfChecks.size() + " self-check problem(s), first: " + selfChecks.get(0);
            problem = problem == null ? checks : problem + "; " + checks;
        }
        return problem;
    }
}
