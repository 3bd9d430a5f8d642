package io.loopdiag.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.Kind;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * The findings as SARIF 2.1.0, which code-scanning UIs read: one rule per kind (its name, title,
 * description and help: what to do about it), one result per finding, located at its application
 * frame (the file under the source root and the line; a frame whose file is not there has only its
 * logical location, not a path that matches nothing), with the finding's fingerprint as its
 * partial fingerprints (GitHub tracks alerts by {@code primaryLocationLineHash} alone) and, when a
 * baseline is given, {@code baselineState}. Given where the docs are published, the driver's
 * {@code informationUri} is that page and each rule's {@code helpUri} its section. Paths are
 * relative to {@code %SRCROOT%}, which code-scanning UIs take as the repository. CheckCommandTest
 * validates it against the schema.
 */
final class Sarif {
    static final String VERSION = "2.1.0";
    static final String SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json";

    private Sarif() {
    }

    /**
     * Writes the file; {@code againstBaseline} says whether a baseline was given, for each result's
     * {@code baselineState}; {@code docs}, where docs/agent.md is published, or null for no links.
     */
    static void write(Path path, List<Verdict.Judged> judged, Sources sources, boolean againstBaseline, URI docs) throws IOException {
        ObjectMapper json = Json.mapper();
        ObjectNode root = json.createObjectNode();
        root.put("$schema", SCHEMA_URI);
        root.put("version", VERSION);
        ObjectNode run = root.putArray("runs").addObject();
        ObjectNode driver = run.putObject("tool").putObject("driver");
        driver.put("name", "loopdiag");
        String version = Sarif.class.getPackage().getImplementationVersion();
        driver.put("version", version != null ? version : "development");
        if (docs != null) {
            driver.put("informationUri", docs.toString());
        }
        ArrayNode rules = driver.putArray("rules");
        for (Kind kind : Kind.values()) {
            ObjectNode rule = rules.addObject();
            rule.put("id", kind.id());
            rule.put("name", kind.ruleName());
            rule.putObject("shortDescription").put("text", title(kind));
            rule.putObject("fullDescription").put("text", kind.description());
            rule.putObject("help")
                    .put("text", kind.description() + "\n\n" + kind.advice())
                    .put("markdown", "**" + title(kind) + "**: " + kind.description() + "\n\n" + kind.advice());
            if (docs != null) {
                rule.put("helpUri", docs + "#" + section(kind));
            }
            rule.putObject("properties").putArray("tags").add("event-loop").add("performance");
        }
        ArrayNode results = run.putArray("results");
        for (Verdict.Judged j : judged) {
            Reports.Finding finding = j.finding();
            ObjectNode result = results.addObject();
            result.put("ruleId", finding.kind());
            result.put("ruleIndex", Kind.ids().indexOf(finding.kind()));
            result.put("level", j.failing() ? "error" : "warning");
            result.putObject("message").put("text", JunitXml.text(finding).stripTrailing());
            Frame frame = finding.frame();
            if (frame != null) {
                ObjectNode location = result.putArray("locations").addObject();
                String file = sources.pathOf(frame);
                if (file != null) {
                    ObjectNode physical = location.putObject("physicalLocation");
                    ObjectNode artifact = physical.putObject("artifactLocation");
                    artifact.put("uri", file);
                    artifact.put("uriBaseId", "%SRCROOT%");
                    if (frame.line() > 0) {
                        physical.putObject("region").put("startLine", frame.line());
                    }
                }
                location.putArray("logicalLocations").addObject()
                        .put("fullyQualifiedName", frame.className() + "." + frame.method()).put("kind", "function");
            }
            result.putObject("partialFingerprints")
                    .put("primaryLocationLineHash", finding.fingerprint())
                    .put("loopdiagFingerprint/v1", finding.fingerprint());
            if (againstBaseline) {
                result.put("baselineState", j.inBaseline() ? "unchanged" : "new");
            }
            result.putObject("properties").put("occurrences", finding.count());
        }
        JunitXml.createParent(path);
        json.writerWithDefaultPrettyPrinter().writeValue(path.toFile(), root);
    }

    /** The anchor of the kind's section in docs/agent.md, as Git hosts render the heading. */
    private static String section(Kind kind) {
        return kind == Kind.LOOP_STALL || kind == Kind.SLOW_CALLBACK ? "slow-callback-and-loop-stall" : kind.id();
    }

    /** A rule's title, as a code-scanning UI lists it. */
    private static String title(Kind kind) {
        return switch (kind) {
            case BLOCKING_CALL -> "Blocking call on an event loop";
            case SLOW_CALLBACK -> "Slow callback on an event loop";
            case LOOP_STALL -> "Event loop stalled in a callback";
            case NEVER_AWAITED -> "Coroutine never awaited";
            case LOST_EXCEPTION -> "Exception never retrieved";
        };
    }
}
