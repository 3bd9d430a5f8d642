package io.loopdiag.bench.network;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/** What the loopdiag agent said on a server's stderr: its detection lines, and whether it loaded. */
record Detections(int count, boolean agentLoaded, String first) {
    /** The header line of each detection block (the agent's Detections.print): {@code loopdiag: KIND on loop ...}. */
    private static final Pattern DETECTION = Pattern.compile(
            "^loopdiag: (slow-callback|loop-stall|blocking-call|never-awaited|lost-exception) .*");
    private static final Pattern LOADED = Pattern.compile("^loopdiag: agent \\S+ loaded .*");

    static Detections read(Path stderr) throws IOException {
        List<String> lines = Files.readAllLines(stderr);
        List<String> detections = lines.stream().filter(line -> DETECTION.matcher(line).matches()).toList();
        boolean loaded = lines.stream().anyMatch(line -> LOADED.matcher(line).matches());
        return new Detections(detections.size(), loaded, detections.isEmpty() ? null : detections.get(0));
    }

    /** A note on what is wrong, or null if the agent loaded and detected nothing. */
    String problem() {
        if (!agentLoaded) {
            return "the agent did not say it loaded";
        }
        return count == 0 ? null : count + " detection(s) on the healthy path, first: " + first;
    }
}
