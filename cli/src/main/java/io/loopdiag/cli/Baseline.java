package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Schemas;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The findings a team has accepted ({@link Schemas#BASELINE}): by fingerprint, with the
 * kind, place and message beside each so that a reviewer can read the file.
 */
final class Baseline {
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
        if (root == null || !Schemas.BASELINE.equals(root.path(Fields.SCHEMA).asText(null))) {
            throw new Reports.Unreadable(path + ": not a loopdiag baseline (expected schema " + Schemas.BASELINE + ")");
        }
        Set<String> fingerprints = new HashSet<>();
        for (JsonNode finding : root.path(Fields.FINDINGS)) {
            fingerprints.add(finding.path(Fields.FINGERPRINT).asText());
        }
        return fingerprints;
    }

    /** Writes {@code findings} as the baseline at {@code path}. */
    static void write(Path path, List<Reports.Finding> findings) throws IOException {
        ObjectMapper json = Json.mapper();
        ObjectNode root = json.createObjectNode();
        root.put(Fields.SCHEMA, Schemas.BASELINE);
        root.put(Fields.WRITTEN, Instant.now().toString());
        ArrayNode list = root.putArray(Fields.FINDINGS);
        for (Reports.Finding finding : findings) {
            ObjectNode entry = list.addObject();
            entry.put(Fields.KIND, finding.kind());
            entry.put(Fields.FINGERPRINT, finding.fingerprint());
            entry.put(Fields.WHERE, finding.frame() != null ? finding.frame().text() : null);
            entry.put(Fields.MESSAGE, finding.message());
        }
        Path parent = path.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        json.writerWithDefaultPrettyPrinter().writeValue(path.toFile(), root);
    }
}
