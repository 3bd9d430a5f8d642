package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import io.loopdiag.cli.support.Jvms;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Kind;
import io.loopdiag.protocol.LoopKinds;
import io.loopdiag.protocol.Schemas;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON Schemas in {@code docs/schemas} against real documents, made here as a user makes
 * them: reports of test-apps scenarios run with the packaged agent, a dump and an info answer of
 * a live JVM, the packaged CLI's {@code list --json}, and a baseline written by {@code check}.
 * Loops of other frameworks (Netty, Vert.x, Reactor, AWT), which no test-apps scenario runs, are
 * checked on a dump written by hand ({@code dump-foreign-loops.json}, the one ViewsTest shows).
 * Every object of the schemas is closed ({@code additionalProperties: false}), so a field a writer
 * gains without its schema fails here; so does a field a schema requires that a writer stops
 * writing.
 */
@Timeout(120)
class SchemasIT {
    private static final Path SCHEMAS = Path.of("../docs/schemas").toAbsolutePath().normalize();
    private static final String ID_PREFIX = "urn:loopdiag:schema:";
    private static final String REPORT = ID_PREFIX + "loopdiag-report-1";
    private static final String DUMP = ID_PREFIX + "loopdiag-dump-1";
    private static final String LIST = ID_PREFIX + "loopdiag-list-1";
    private static final String BASELINE = ID_PREFIX + "loopdiag-baseline-1";
    private static final String PS = ID_PREFIX + "loopdiag-ps-1";
    private static final String PSTREE = ID_PREFIX + "loopdiag-pstree-1";
    private static final String HANG = ID_PREFIX + "loopdiag-hang-1";
    private static final String FINDINGS = ID_PREFIX + "loopdiag-findings-1";
    private static final String META_SCHEMA = "https://json-schema.org/draft/2020-12/schema";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Every schema file by its {@code $id}: the validator is given them, and fetches nothing. */
    private static final Map<String, JsonNode> FILES = readSchemas();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            builder -> builder
                    .schemas(id -> FILES.containsKey(id) ? FILES.get(id).toString() : null)
                    .schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));

    private final Jvms jvms = new Jvms();

    @TempDir
    Path dir;

    @AfterEach
    void stopJvms() throws InterruptedException {
        jvms.close();
    }

    @Test
    void everySchemaIsAValidDraft202012SchemaThatClosesEveryObjectAndDescribesEveryProperty() {
        assertEquals(Set.of(REPORT, DUMP, LIST, BASELINE, FINDINGS, PS, PSTREE, HANG), FILES.keySet(), "the schema files");
        Schema meta = REGISTRY.getSchema(SchemaLocation.of(META_SCHEMA));
        List<String> problems = new ArrayList<>();
        FILES.forEach((id, file) -> {
            meta.validate(file).forEach(error -> problems.add(id + ": not a 2020-12 schema: " + error));
            if (!META_SCHEMA.equals(file.path("$schema").asText()) || !file.path("title").isTextual() || !file.path("description").isTextual()) {
                problems.add(id + ": without $schema 2020-12, a title or a description");
            }
            walk(id, "", file, problems);
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void theSchemasNameEveryFieldOfTheProtocolAndEveryKindAndNothingElse() throws Exception {
        Set<String> declared = new TreeSet<>();
        for (java.lang.reflect.Field field : Fields.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                declared.add((String) field.get(null));
            }
        }
        // The agent's refusal, {"error": "..."}, is an answer of its own without a schema id: no file has it.
        declared.remove(Fields.ERROR);
        Set<String> described = new TreeSet<>();
        FILES.forEach((id, file) -> collectPropertyNames(file, described));
        described.removeAll(Kind.ids()); // the summary's properties are the kinds
        described.removeAll(LoopKinds.all()); // and a list row's loopsByKind's, the loops' kinds
        assertEquals(declared, described, "Fields' names and the schemas' property names");

        JsonNode defs = FILES.get(FINDINGS).path("$defs");
        assertEquals(Kind.ids(), JSON.convertValue(defs.path("kind").path("enum"), List.class), "the kinds");
        assertEquals(Set.copyOf(Kind.ids()), names(defs.path("summary").path("properties")), "the summary's kinds");
        assertEquals(LoopKinds.all(), JSON.convertValue(FILES.get(DUMP).at("/$defs/loopKind/enum"), List.class), "the loops' kinds");
        assertEquals(Set.copyOf(LoopKinds.all()), names(FILES.get(LIST).at("/$defs/loopsByKind/properties")), "a list row's kinds");
        assertEquals(Schemas.REPORT, FILES.get(REPORT).at("/properties/schema/const").asText());
        assertEquals(Schemas.DUMP, FILES.get(DUMP).at("/properties/schema/const").asText());
        assertEquals(Schemas.LIST, FILES.get(LIST).at("/properties/schema/const").asText());
        assertEquals(Schemas.BASELINE, FILES.get(BASELINE).at("/properties/schema/const").asText());
        assertEquals(Schemas.PS, FILES.get(PS).at("/properties/schema/const").asText());
        assertEquals(Schemas.PSTREE, FILES.get(PSTREE).at("/properties/schema/const").asText());
        assertEquals(Schemas.HANG, FILES.get(HANG).at("/properties/schema/const").asText());
    }

    @Test
    void reportsWithEveryKindOfFindingAndTheBaselineCheckWritesOfThemMatchTheirSchemas() throws Exception {
        Path reports = Files.createDirectories(dir.resolve("reports"));
        List<String> scenarios = List.of("slow-callback", "blocking-sleep", "never-awaited", "lost-exception");
        List<Process> runs = new ArrayList<>();
        for (String scenario : scenarios) {
            runs.add(jvms.launch("log=off,report=" + reports.resolve(scenario + ".json"), scenario));
        }
        Set<String> kinds = new TreeSet<>();
        boolean creationSite = false;
        for (int i = 0; i < scenarios.size(); i++) {
            Jvms.Run run = Jvms.finish(runs.get(i));
            assertEquals(0, run.exitCode(), scenarios.get(i) + ": " + run.err());
            JsonNode report = JSON.readTree(reports.resolve(scenarios.get(i) + ".json").toFile());
            assertValid(REPORT, report, scenarios.get(i) + "'s report");
            for (JsonNode detection : report.path("detections")) {
                kinds.add(detection.path("kind").asText());
                creationSite |= detection.path("createdAt").isArray();
            }
        }
        assertEquals(new TreeSet<>(Kind.ids()), kinds, "the reports have every kind of finding");
        assertTrue(creationSite, "a finding with a creation site (lost-exception's task)");

        Path baseline = dir.resolve("baseline.json");
        Jvms.Run check = jvms.cli("check", "--write-baseline", baseline.toString(), reports.toString());
        assertEquals(0, check.exitCode(), check.out() + check.err());
        JsonNode written = JSON.readTree(baseline.toFile());
        assertValid(BASELINE, written, "the baseline");
        Set<String> baselineKinds = new TreeSet<>();
        written.path("findings").forEach(finding -> baselineKinds.add(finding.path("kind").asText()));
        assertEquals(kinds, baselineKinds, "the baseline has the reports' findings");
    }

    @Test
    void dumpInfoListAndLastReportOfAStuckServiceMatchTheirSchemas() throws Exception {
        Path reportPath = dir.resolve("stuck-service.json");
        Jvms.Scenario service = jvms.start("log=off,report=" + reportPath, "stuck-service");

        Jvms.Run dump = jvms.cli("dump", "--json", service.pidText());
        assertEquals(0, dump.exitCode(), dump.err());
        JsonNode dumped = JSON.readTree(dump.out());
        assertValid(DUMP, dumped, "the dump");
        JsonNode loop = dumped.path("loops").get(0);
        assertEquals(102, loop.path("tasks").size(), "every task, with its stack");
        assertTrue(loop.path("running").isObject(), "the loop is stuck in a callback");
        assertTrue(hasAwaiting(loop, "lock") && hasAwaiting(loop, "timer"), "the requests await the lock, main its sleep: " + loop.path("tasks"));
        assertTrue(dumped.path("findings").path("summary").has("blocking-call"), dumped.path("findings").toString());

        Jvms.Run ps = jvms.cli("ps", "--json", service.pidText());
        assertEquals(0, ps.exitCode(), ps.err());
        JsonNode rows = JSON.readTree(ps.out());
        assertValid(PS, rows, "ps --json");
        assertEquals(102, rows.path("tasks").size(), rows.toString());
        assertEquals("lock held by #3", rows.path("tasks").get(2).path("awaits").asText(), rows.path("tasks").get(2).toString());

        Jvms.Run tree = jvms.cli("pstree", "--json", service.pidText());
        assertEquals(0, tree.exitCode(), "no cycle: " + tree.out() + tree.err());
        JsonNode graph = JSON.readTree(tree.out());
        assertValid(PSTREE, graph, "pstree --json");
        JsonNode edges = graph.path("loops").get(0).path("edges");
        assertEquals(100, edges.size(), "each request waits on the lock's holder: " + edges);
        assertEquals("{\"from\":4,\"to\":3,\"relation\":\"lock\"}", edges.get(0).toString());

        Jvms.Run hang = jvms.cli("hang", "--json", "--samples", "2", "--interval", "100ms", service.pidText());
        assertEquals(1, hang.exitCode(), "stuck: " + hang.out() + hang.err());
        JsonNode verdicts = JSON.readTree(hang.out());
        assertValid(HANG, verdicts, "hang --json");
        assertEquals("stuck", verdicts.path("loops").get(0).path("verdict").asText(), verdicts.toString());

        JsonNode info = JSON.readTree(Jvms.ask(service.pid(), "info"));
        assertValid(DUMP, info, "the answer to info");
        assertFalse(info.path("loops").get(0).has("tasks"), "info has no tasks");
        assertEquals(102, info.path("loops").get(0).path("taskCount").asInt());
        assertEquals(3, info.path("loops").get(0).path("longestWaiting").size(), "the tasks waiting longest, for top");
        assertTrue(info.path("loops").get(0).path("statistics").isObject(), "the health numbers, past the agent's first second: " + info);

        Jvms.Run list = jvms.cli("list", "--json");
        assertEquals(0, list.exitCode(), list.err());
        JsonNode listed = JSON.readTree(list.out());
        assertValid(LIST, listed, "the list");
        JsonNode row = null;
        for (JsonNode jvm : listed.path("jvms")) {
            if (jvm.path("pid").asLong() == service.pid()) {
                row = jvm;
            }
        }
        assertTrue(row != null && row.has("agent") && row.path("tasks").asInt() == 102, "the service's row: " + listed);

        // Stopped as a service manager stops it: the exit hook writes the last report.
        service.process().destroy();
        service.process().waitFor();
        JsonNode report = JSON.readTree(reportPath.toFile());
        assertValid(REPORT, report, "the last report of the stopped service");
        assertTrue(report.path("summary").has("blocking-call"), report.toString());
    }

    @Test
    void theDumpInfoAndReportsOfForeignLoopsMatchTheirSchemas() throws Exception {
        Path reports = Files.createDirectories(dir.resolve("foreign-reports"));
        List<String> scenarios = List.of("netty-lost-write", "vertx-blocking", "reactor-blocking", "swing-edt-freeze");
        for (String scenario : scenarios) {
            Jvms.Run run = Jvms.finish(jvms.launch("log=off,report=" + reports.resolve(scenario + ".json"), scenario));
            assertEquals(0, run.exitCode(), scenario + ": " + run.err());
            JsonNode report = JSON.readTree(reports.resolve(scenario + ".json").toFile());
            assertValid(REPORT, report, scenario + "'s report");
            assertTrue(report.path("detections").size() > 0, scenario + " has findings: " + report);
        }

        Process stuck = jvms.launch("log=off", "netty-stuck", "--hold", "30");
        java.io.BufferedReader err = new java.io.BufferedReader(new java.io.InputStreamReader(stuck.getErrorStream(),
                java.nio.charset.StandardCharsets.UTF_8));
        for (String line = err.readLine(); line != null && !line.startsWith("netty-stuck: the loop is in the backend call"); ) {
            line = err.readLine();
        }
        Jvms.Run dump = jvms.cli("dump", "--json", Long.toString(stuck.pid()));
        assertEquals(0, dump.exitCode(), dump.err());
        JsonNode dumped = JSON.readTree(dump.out());
        assertValid(DUMP, dumped, "the dump of a stuck Netty loop");
        assertTrue(dumped.toString().contains("\"kind\":\"netty\""), dumped.toString());
        assertValid(DUMP, JSON.readTree(Jvms.ask(stuck.pid(), "info")), "the answer to info of a Netty JVM");
    }

    @Test
    void aReportWithoutARequiredFieldOrWithAnUnknownOneOrAWrongTimeFailsNamingTheField() throws Exception {
        Path reportPath = dir.resolve("lost-exception.json");
        Jvms.Run run = Jvms.finish(jvms.launch("log=off,report=" + reportPath, "lost-exception"));
        assertEquals(0, run.exitCode(), run.err());
        ObjectNode real = (ObjectNode) JSON.readTree(reportPath.toFile());
        assertValid(REPORT, real, "the real report");

        ObjectNode withoutPid = real.deepCopy();
        withoutPid.remove("pid");
        assertFailsNaming(REPORT, withoutPid, "required", "pid");

        ObjectNode withoutCount = real.deepCopy();
        ((ObjectNode) withoutCount.path("detections").get(0)).remove("count");
        assertFailsNaming(REPORT, withoutCount, "required", "count");

        ObjectNode withUnknown = real.deepCopy();
        withUnknown.put("threads", 3);
        assertFailsNaming(REPORT, withUnknown, "additionalProperties", "threads");

        ObjectNode withUnknownInDetection = real.deepCopy();
        ((ObjectNode) withUnknownInDetection.path("detections").get(0)).put("severity", "high");
        assertFailsNaming(REPORT, withUnknownInDetection, "additionalProperties", "severity");

        ObjectNode withNewKind = real.deepCopy();
        ((ObjectNode) withNewKind.path("summary")).put("deadlock", 1);
        assertFailsNaming(REPORT, withNewKind, "additionalProperties", "deadlock");

        ObjectNode withWrongTime = real.deepCopy();
        withWrongTime.put("written", "yesterday");
        assertTrue(errors(REPORT, withWrongTime).stream()
                        .anyMatch(e -> e.getKeyword().equals("format") && e.getInstanceLocation().toString().equals("/written")),
                "a time that is no ISO-8601 instant: " + errors(REPORT, withWrongTime));

        ObjectNode withSelfCheck = real.deepCopy();
        withSelfCheck.putArray("selfCheck").add("java.lang.Thread was not instrumented; blocking calls through it are not detected");
        assertValid(REPORT, withSelfCheck, "a report with the self-check's problems");

        ObjectNode withoutOptions = real.deepCopy();
        withoutOptions.remove("options");
        assertFailsNaming(REPORT, withoutOptions, "required", "options");

        Path refusedPath = dir.resolve("refused.json");
        Jvms.Run refusing = Jvms.finish(jvms.launch("report=" + refusedPath + ",slwo=1s", "blocking-sleep"));
        assertEquals(0, refusing.exitCode(), refusing.err());
        JsonNode refused = JSON.readTree(refusedPath.toFile());
        assertTrue(refused.has("refused"), refused.toString());
        assertValid(REPORT, refused, "the report of options the agent refused, which has no options");
    }

    @Test
    void aDumpWithALoopOfEveryKindAndADumpWithoutKindsMatchTheSchemaAndAnUnknownKindFails() throws Exception {
        JsonNode foreign = JSON.readTree(ViewsTest.resource("dump-foreign-loops.json"));
        assertValid(DUMP, foreign, "a dump with a loop of every kind");
        Set<String> kinds = new TreeSet<>();
        foreign.path("loops").forEach(loop -> kinds.add(loop.path("kind").asText()));
        assertEquals(new TreeSet<>(LoopKinds.all()), kinds, "the hand-written dump has every kind");
        assertValid(DUMP, JSON.readTree(ViewsTest.resource("dump-before-kinds.json")), "a dump of an agent that writes no kinds");

        ObjectNode info = foreign.deepCopy();
        info.withArray("loops").forEach(loop -> {
            ((ObjectNode) loop).remove("tasks");
            if (loop.path("running").isObject()) {
                ((ObjectNode) loop.path("running")).putArray("stack");
            }
        });
        assertValid(DUMP, info, "the answer to info of the same JVM");

        ObjectNode unknownKind = foreign.deepCopy();
        ((ObjectNode) unknownKind.path("loops").get(2)).put("kind", "kotlin");
        assertFailsAt(DUMP, unknownKind, "enum", "/loops/2/kind");

        ObjectNode foreignWithTask = foreign.deepCopy();
        ((ObjectNode) foreignWithTask.path("loops").get(2)).set("tasks", foreign.path("loops").get(0).path("tasks"));
        assertFailsAt(DUMP, foreignWithTask, "maxItems", "/loops/2/tasks");

        ObjectNode foreignWithTaskStep = foreign.deepCopy();
        ((ObjectNode) foreignWithTaskStep.path("loops").get(2).path("running")).put("taskId", 3);
        assertFailsAt(DUMP, foreignWithTaskStep, "const", "/loops/2/running/taskId");

        ObjectNode channelsOnAwt = foreign.deepCopy();
        ((ObjectNode) channelsOnAwt.path("loops").get(1)).put("channelCount", 1);
        assertFalse(errors(DUMP, channelsOnAwt).isEmpty(), "channelCount on the awt loop");

        ObjectNode negativeChannels = foreign.deepCopy();
        ((ObjectNode) negativeChannels.path("loops").get(2)).put("channelCount", -1);
        assertFailsAt(DUMP, negativeChannels, "minimum", "/loops/2/channelCount");
    }

    @Test
    void aListRowWithItsLoopsByKindMatchesTheSchemaAndAnUnknownKindFails() throws Exception {
        ObjectNode list = JSON.createObjectNode().put("schema", "loopdiag-list/1");
        ObjectNode row = list.putArray("jvms").addObject().put("pid", 5151).put("main", "com.example.Shop");
        ListCommand.count(row, JSON.readTree(ViewsTest.resource("dump-foreign-loops.json")));
        assertEquals(7, row.path("loops").asInt(), row.toString());
        assertValid(LIST, list, "a row with loops of every kind");

        ObjectNode before = list.deepCopy();
        ((ObjectNode) before.path("jvms").get(0)).remove("loopsByKind");
        assertValid(LIST, before, "a row of a CLI that counted no kinds");

        ObjectNode unknown = list.deepCopy();
        ((ObjectNode) unknown.path("jvms").get(0).path("loopsByKind")).put("kotlin", 1);
        assertFailsNaming(LIST, unknown, "additionalProperties", "kotlin");
    }

    // ---- validation ---------------------------------------------------------------------------------

    private static List<Error> errors(String schemaId, JsonNode document) {
        return REGISTRY.getSchema(SchemaLocation.of(schemaId)).validate(document);
    }

    private static void assertValid(String schemaId, JsonNode document, String what) {
        List<Error> errors = errors(schemaId, document);
        assertEquals(List.of(), errors.stream().map(Error::toString).toList(), what + " against " + schemaId);
    }

    /** The document fails, with an error of {@code keyword} whose message names {@code field}. */
    private static void assertFailsNaming(String schemaId, JsonNode document, String keyword, String field) {
        List<Error> errors = errors(schemaId, document);
        assertTrue(errors.stream().anyMatch(e -> e.getKeyword().equals(keyword) && e.getMessage().contains(field)),
                "an error of " + keyword + " naming '" + field + "': " + errors);
    }

    /** The document fails, with an error of {@code keyword} at {@code location} (a JSON pointer). */
    private static void assertFailsAt(String schemaId, JsonNode document, String keyword, String location) {
        List<Error> errors = errors(schemaId, document);
        assertTrue(errors.stream().anyMatch(e -> e.getKeyword().equals(keyword) && e.getInstanceLocation().toString().equals(location)),
                "an error of " + keyword + " at " + location + ": " + errors);
    }

    // ---- the schema files ---------------------------------------------------------------------------

    private static Map<String, JsonNode> readSchemas() {
        Map<String, JsonNode> byId = new TreeMap<>();
        try (Stream<Path> files = Files.list(SCHEMAS)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".schema.json")).sorted().toList()) {
                JsonNode schema = JSON.readTree(file.toFile());
                String name = file.getFileName().toString().replace(".schema.json", "");
                assertEquals(ID_PREFIX + name, schema.path("$id").asText(), file + ": its $id names it");
                byId.put(schema.path("$id").asText(), schema);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return byId;
    }

    /**
     * Checks every subschema at {@code path} of {@code id}: an object's schema has a type, closes
     * its properties and describes each; a {@code $defs} entry has a description. An {@code if},
     * {@code then}, {@code else} or {@code not} only tests or narrows the object its schema
     * describes, whose properties are closed and described there.
     */
    private static void walk(String id, String path, JsonNode schema, List<String> problems) {
        if (!schema.isObject()) {
            return;
        }
        JsonNode properties = schema.path("properties");
        if (properties.isObject()) {
            if (!"object".equals(schema.path("type").asText())) {
                problems.add(id + path + ": properties without type object");
            }
            if (!schema.path("additionalProperties").isBoolean() || schema.path("additionalProperties").asBoolean()) {
                problems.add(id + path + ": an object without additionalProperties: false");
            }
            properties.properties().forEach(property -> {
                if (!property.getValue().path("description").isTextual()) {
                    problems.add(id + path + "/properties/" + property.getKey() + ": no description");
                }
            });
        }
        schema.path("$defs").properties().forEach(def -> {
            if (!def.getValue().path("description").isTextual()) {
                problems.add(id + path + "/$defs/" + def.getKey() + ": no description");
            }
        });
        for (Map.Entry<String, JsonNode> entry : schema.properties()) {
            JsonNode value = entry.getValue();
            if (Set.of("const", "enum", "if", "then", "else", "not").contains(entry.getKey())) { // values, or conditions on an object described beside them
                continue;
            }
            if (value.isArray()) {
                for (int i = 0; i < value.size(); i++) {
                    walk(id, path + "/" + entry.getKey() + "/" + i, value.get(i), problems);
                }
            } else {
                walk(id, path + "/" + entry.getKey(), value, problems);
            }
        }
    }

    /** The names under every {@code properties} of {@code schema}, at any depth. */
    private static void collectPropertyNames(JsonNode schema, Set<String> names) {
        if (schema.isObject()) {
            schema.path("properties").fieldNames().forEachRemaining(names::add);
        }
        if (schema.isContainerNode()) {
            schema.forEach(child -> collectPropertyNames(child, names));
        }
    }

    private static Set<String> names(JsonNode object) {
        Set<String> names = new TreeSet<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static boolean hasAwaiting(JsonNode loop, String kind) {
        for (JsonNode task : loop.path("tasks")) {
            if (task.path("awaiting").path("kind").asText().equals(kind)) {
                return true;
            }
        }
        return false;
    }
}
