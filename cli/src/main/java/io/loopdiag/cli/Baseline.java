package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The findings a team has accepted ({@code schema: loopdiag-baseline/1}): by fingerprint, with the
 * kind, place and message beside each so that a reviewer can read the file.
 */
final class Baseline {
    static final String SCHEMA = "loopdiag-baseline/1";
    /** A baseline holds at most what reports can: well under this. */
    private static final long MAX_BYTES = 64L << 20;

    private Baseline() {
    }

    /** The fingerprints in {@code path}. */
    static Set<String> read(Path path) throws Reports.Unreadable {
        JsonNode root;
        try {
            if (Files.size(path) > MAX_BYTES) {
                throw new Reports.Unreadable(path + ": larger than any baseline (" + Files.size(path) + " bytes): not a loopdiag baseline");
            }
            root = Json.mapper().readTree(path.toFile());
        } catch (NoSuchFileException e) {
            throw new Reports.Unreadable(path + ": no such file");
        } catch (IOException e) {
            throw new Reports.Unreadable(path + ": not a loopdiag baseline (" + e.getClass().getSimpleName() + ")");
        }
        if (root == null || !SCHEMA.equals(root.path("schema").asText(null))) {
            throw new Reports.Unreadable(path + ": not a loopdiag baseline (expected schema " + SCHEMA + ")");
        }
        Set<String> fingerprints = new HashSet<>();
        for (JsonNode finding : root.path("findings")) {
            fingerprints.add(finding.path("fingerprint").asText());
        }
        return fingerprints;
    }

    /** Writes {@code findings} as the baseline at {@code path}. */
    static void write(Path path, List<Reports.Finding> findings) throws IOException {
        ObjectMapper json = Json.mapper();
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("written", Instant.now().toString());
        ArrayNode list = root.putArray("findings");
        for (Reports.Finding finding : findings) {
            ObjectNode entry = list.addObject();
            entry.put("kind", finding.kind());
            entry.put("fingerprint", finding.fingerprint());
            entry.put("where", finding.frame() != null ? finding.frame().text() : null);
            entry.put("message", finding.message());
        }
        Path parent = path.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        json.writerWithDefaultPrettyPrinter().writeValue(path.toFile(), root);
    }
}
