package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.cli.support.Formats;
import io.loopdiag.protocol.Kind;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code loopdiag check} on reports written here: its verdict, its files, and bad input. */
class CheckCommandTest {
    private static final String FINDING = """
            {"kind": "%s", "loop": "main", "task": null, "message": "%s", "count": %d,
             "stack": ["java.base/java.lang.Thread.sleep(Thread.java:536)", "app//com.acme.Cart.total(Cart.java:%d)",
                       "com.acme.Cart.lambda$checkout$0(Cart.java:12)"]}""";

    @TempDir
    Path temp;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int check(String... args) {
        return Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
    }

    private Path report(String name, String... findings) throws Exception {
        Path file = temp.resolve(name);
        Files.writeString(file, "{\"schema\": \"loopdiag-report/1\", \"pid\": 1, \"detections\": [" + String.join(",", findings) + "]}");
        return file;
    }

    private static String finding(String kind, String message, int count, int line) {
        return FINDING.formatted(kind, message, count, line);
    }

    @Test
    void aBlockingCallFailsAndOtherKindsOnlyShow() throws Exception {
        Path report = report("a.json", finding("slow-callback", "callback took 250 ms", 1, 40),
                finding("blocking-call", "java.lang.Thread.sleep in callback", 3, 41));
        assertEquals(1, check("check", report.toString()), err.toString());
        String text = out.toString();
        assertTrue(text.startsWith("loopdiag check: 1 report, 2 findings: 1 blocking-call, 1 slow-callback"), text);
        assertTrue(text.contains("java.lang.Thread.sleep in callback [3 times]\n    at app//com.acme.Cart.total(Cart.java:41)"), text);
        assertTrue(text.contains("slow-callback (1 finding, 1 occurrence; does not fail the check)"), text);
        assertTrue(text.endsWith("FAILED: 1 finding of a failing kind (blocking-call)\n"), text);

        out.getBuffer().setLength(0);
        assertEquals(0, check("check", "--fail-on", "never-awaited,lost-exception", report.toString()));
        assertTrue(out.toString().contains("OK: no finding of a failing kind (never-awaited, lost-exception)"), out.toString());
    }

    @Test
    void aFolderWithoutAnyReportIsNoPassButExitTwoWithOneLine() throws Exception {
        Path empty = Files.createDirectory(temp.resolve("target-loopdiag"));
        assertEquals(2, check("check", empty.toString()));
        assertEquals("", out.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertEquals("loopdiag: no report in " + empty + ": the agent wrote none there; load it with"
                + " -javaagent:loopdiag-agent.jar=report=DIR/loopdiag-%p.json, or run the build with loopdiag run -- COMMAND\n", err.toString());
    }

    @Test
    void aReportOfOptionsTheAgentRefusedFailsTheCheckWhateverTheOthersSay() throws Exception {
        report("loopdiag-1.json");
        Path refused = temp.resolve("loopdiag-2.json");
        Files.writeString(refused, "{\"schema\": \"loopdiag-report/1\", \"pid\": 2, \"refused\": \"bad agent options 'slwo=1s':"
                + " unknown option 'slwo'\", \"summary\": {}, \"dropped\": 0, \"detections\": []}");
        assertEquals(2, check("check", temp.toString()));
        assertEquals("loopdiag: " + refused + ": the agent refused its options and watched nothing (bad agent options 'slwo=1s':"
                + " unknown option 'slwo'); correct them\n", err.toString());
    }

    @Test
    void theSameFindingFromTwoJvmsIsOneWithTheirCounts() throws Exception {
        Path first = report("loopdiag-1.json", finding("blocking-call", "sleep", 2, 41));
        Path second = report("loopdiag-2.json", finding("blocking-call", "sleep", 5, 47)); // the line moved: still the same
        assertEquals(1, check("check", temp.toString()));
        assertTrue(out.toString().startsWith("loopdiag check: 2 reports, 1 finding: 1 blocking-call"), out.toString());
        assertTrue(out.toString().contains("(1 finding, 7 occurrences)"), out.toString());
        assertTrue(Files.exists(first) && Files.exists(second));
    }

    @Test
    void aNewCallerIsNotCoveredByTheBaseline() throws Exception {
        Path baseline = temp.resolve("baseline.json");
        Path before = report("before.json", finding("blocking-call", "sleep", 1, 41));
        assertEquals(0, check("check", before.toString(), "--write-baseline", baseline.toString()));
        assertEquals(0, check("check", before.toString(), "--baseline", baseline.toString()));
        String moved = finding("blocking-call", "sleep", 1, 41).replace("Cart.total", "Cart.subtotal");
        Path after = report("after.json", moved);
        assertEquals(1, check("check", after.toString(), "--baseline", baseline.toString()));
        assertTrue(out.toString().endsWith("FAILED: 1 finding of a failing kind (blocking-call) not in the baseline\n"), out.toString());
    }

    /** Control characters and markup from the application reach no output raw. */
    @Test
    void namesFromTheApplicationAreEscapedInEveryOutput() throws Exception {
        Path report = report("a.json", finding("blocking-call", "sleep in task '\\u001b[2J<b>&</b>'", 1, 41));
        Path xml = temp.resolve("out/junit.xml");
        Path sarif = temp.resolve("out/loopdiag.sarif");
        Files.createDirectories(temp.resolve("shop/src/main/java/com/acme"));
        Files.writeString(temp.resolve("shop/src/main/java/com/acme/Cart.java"), "package com.acme;\n");
        assertEquals(1, check("check", report.toString(), "--junit-xml", xml.toString(), "--sarif", sarif.toString(),
                "--source-root", temp.toString()));
        assertFalse(out.toString().contains("\u001b"), out.toString());
        assertTrue(out.toString().contains("\\u001b[2J<b>&</b>"), out.toString());
        String name = ((org.w3c.dom.Element) DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile())
                .getElementsByTagName("testcase").item(0)).getAttribute("name");
        assertEquals("blocking-call: sleep in task '\\u001b[2J<b>&</b>'", name);
        JsonNode result = new ObjectMapper().readTree(sarif.toFile()).path("runs").get(0).path("results").get(0);
        assertTrue(result.path("message").path("text").asText().startsWith("sleep in task '\\u001b[2J<b>&</b>'"), result.toString());
        assertEquals("shop/src/main/java/com/acme/Cart.java",
                result.path("locations").get(0).path("physicalLocation").path("artifactLocation").path("uri").asText());
        assertEquals(41, result.path("locations").get(0).path("physicalLocation").path("region").path("startLine").asInt());
    }

    /**
     * What code scanning and Jenkins accept, by their schemas: every rule with its name, title and
     * help; GitHub's own fingerprint; a frame whose source is not under the root located only by
     * its method, not at a path that matches nothing; JUnit XML without the attributes Jenkins'
     * schema refuses.
     */
    @Test
    void theSarifAndJunitXmlAreValidByTheSchemasOfTheToolsThatReadThem() throws Exception {
        Path report = report("a.json", finding("blocking-call", "sleep", 2, 41), finding("slow-callback", "slow", 1, 40));
        Path xml = temp.resolve("junit.xml");
        Path sarif = temp.resolve("loopdiag.sarif");
        assertEquals(1, check("check", report.toString(), "--junit-xml", xml.toString(), "--sarif", sarif.toString(),
                "--source-root", temp.toString()));
        Formats.assertValidSarif(sarif);
        Formats.assertValidJenkinsJunitXml(xml);

        JsonNode run = new ObjectMapper().readTree(sarif.toFile()).path("runs").get(0);
        JsonNode rule = run.path("tool").path("driver").path("rules").get(0);
        assertEquals("blocking-call", rule.path("id").asText());
        assertEquals("BlockingCall", rule.path("name").asText());
        assertEquals("Blocking call on an event loop", rule.path("shortDescription").path("text").asText());
        assertTrue(rule.path("help").path("markdown").asText().contains("Move the call off the loop"), rule.toString());
        assertEquals(Kind.values().length, run.path("tool").path("driver").path("rules").size());
        JsonNode result = run.path("results").get(0);
        String fingerprint = result.path("partialFingerprints").path("loopdiagFingerprint/v1").asText();
        assertEquals(32, fingerprint.length(), result.toString());
        assertEquals(fingerprint, result.path("partialFingerprints").path("primaryLocationLineHash").asText());
        JsonNode location = result.path("locations").get(0);
        assertTrue(location.path("physicalLocation").isMissingNode(), "Cart.java is not under the source root: " + result);
        assertEquals("com.acme.Cart.total", location.path("logicalLocations").get(0).path("fullyQualifiedName").asText());

        String junit = Files.readString(xml);
        assertFalse(junit.contains(" file=") || junit.contains(" line="), junit);
        assertTrue(junit.contains("    at app//com.acme.Cart.total(Cart.java:41)"), "the failure's text has the line: " + junit);

        // The schemas do refuse: a level SARIF does not have, and the attributes Jenkins' schema has not.
        Path badSarif = Files.writeString(temp.resolve("bad.sarif"), Files.readString(sarif).replace("\"level\" : \"error\"", "\"level\" : \"fatal\""));
        assertFalse(Formats.sarifErrors(badSarif).isEmpty(), "a level SARIF does not have");
        Path badXml = Files.writeString(temp.resolve("bad.xml"), junit.replace("<testcase ", "<testcase file=\"Cart.java\" line=\"41\" "));
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> Formats.assertValidJenkinsJunitXml(badXml))
                .getMessage().contains("'file'"));
        // No address given: no link that could 404.
        assertTrue(run.path("tool").path("driver").path("informationUri").isMissingNode(), run.toString());
        assertTrue(rule.path("helpUri").isMissingNode(), rule.toString());
    }

    /** Given where the docs are published, each rule links to its own section of docs/agent.md, one that exists. */
    @Test
    void theDocsUrlGivesEachRuleALinkToItsSection() throws Exception {
        Path report = report("a.json", finding("blocking-call", "sleep", 1, 41));
        Path sarif = temp.resolve("loopdiag.sarif");
        String docs = "https://git.example.com/acme/loopdiag/blob/main/docs/agent.md";
        assertEquals(1, check("check", report.toString(), "--sarif", sarif.toString(), "--docs-url", docs), err.toString());
        Formats.assertValidSarif(sarif);
        JsonNode driver = new ObjectMapper().readTree(sarif.toFile()).path("runs").get(0).path("tool").path("driver");
        assertEquals(docs, driver.path("informationUri").asText());
        java.util.Set<String> anchors = Files.readAllLines(Path.of("../docs/agent.md")).stream()
                .filter(line -> line.startsWith("#"))
                .map(line -> line.replaceFirst("^#+ ", "").toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9 -]", "").replace(' ', '-'))
                .collect(java.util.stream.Collectors.toSet());
        for (JsonNode rule : driver.path("rules")) {
            String help = rule.path("helpUri").asText();
            assertTrue(help.startsWith(docs + "#"), rule.toString());
            assertTrue(anchors.contains(help.substring(docs.length() + 1)), help + " is not a heading of docs/agent.md: " + anchors);
        }
        assertEquals("https://git.example.com/acme/loopdiag/blob/main/docs/agent.md#blocking-call",
                driver.path("rules").get(0).path("helpUri").asText());
    }

    @ParameterizedTest
    @CsvSource({"docs/agent.md", "ftp://example.com/agent.md", "https://example.com/agent.md#findings", "'https://exa mple.com/'"})
    void aDocsUrlThatCannotBeLinkedIsRefusedInOneLine(String url) throws Exception {
        Path report = report("a.json", finding("blocking-call", "sleep", 1, 41));
        assertEquals(ExitCodes.USAGE, check("check", report.toString(), "--sarif", temp.resolve("x.sarif").toString(), "--docs-url", url));
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().contains("is not an http(s) address without a #fragment"), err.toString());
        assertFalse(Files.exists(temp.resolve("x.sarif")));
    }

    /** No finding: one passing test case (an empty suite fails a Jenkins build), and an empty but valid SARIF run. */
    @Test
    void noFindingIsOnePassingTestCase() throws Exception {
        Path report = report("none.json");
        Path xml = temp.resolve("junit.xml");
        Path sarif = temp.resolve("loopdiag.sarif");
        assertEquals(0, check("check", report.toString(), "--junit-xml", xml.toString(), "--sarif", sarif.toString()));
        Formats.assertValidJenkinsJunitXml(xml);
        Formats.assertValidSarif(sarif);
        org.w3c.dom.Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
        assertEquals(1, document.getElementsByTagName("testcase").getLength(), Files.readString(xml));
        assertEquals(0, document.getElementsByTagName("failure").getLength() + document.getElementsByTagName("skipped").getLength());
        assertEquals("1", ((org.w3c.dom.Element) document.getElementsByTagName("testsuite").item(0)).getAttribute("tests"));
        assertEquals(0, new ObjectMapper().readTree(sarif.toFile()).path("runs").get(0).path("results").size());
    }

    /**
     * Every character XML 1.0 cannot hold (C0 controls, lone surrogates, U+FFFF) and markup, in a
     * finding's kind, message and frames: the JUnit XML still parses with the JDK's parser, the
     * SARIF with Jackson, and the text shows them escaped.
     */
    @Test
    void charactersXmlCannotHoldLeaveTheJunitXmlAndSarifValid() throws Exception {
        String hostile = "\\u0000\\u0007\\r\\n\\u001b[31m\\ud800\\uffff]]><&'\\\"";
        Path report = report("a.json", finding("blocking-call", "sleep " + hostile, 1, 41),
                finding("slow-callback" + hostile, "slow", 1, 42).replace("Cart.total", "Cart.subtotal" + hostile));
        Path xml = temp.resolve("junit.xml");
        Path sarif = temp.resolve("loopdiag.sarif");
        assertEquals(1, check("check", report.toString(), "--junit-xml", xml.toString(), "--sarif", sarif.toString()), err.toString());
        String escaped = "\\u0000\\u0007\\u000d\\u000a\\u001b[31m\\ud800\\uffff]]><&'\"";
        assertTrue(out.toString().contains("sleep " + escaped), out.toString());
        assertTrue(out.toString().contains("slow-callback" + escaped + " (1 finding"), out.toString());
        assertTrue(out.toString().replace("\n", "").codePoints().noneMatch(Character::isISOControl), out.toString());
        org.w3c.dom.NodeList cases = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile())
                .getElementsByTagName("testcase");
        java.util.Set<String> names = new java.util.HashSet<>();
        for (int i = 0; i < cases.getLength(); i++) {
            names.add(((org.w3c.dom.Element) cases.item(i)).getAttribute("name"));
        }
        assertEquals(java.util.Set.of("blocking-call: sleep " + escaped, "slow-callback" + escaped + ": slow"), names);
        JsonNode results = new ObjectMapper().readTree(sarif.toFile()).path("runs").get(0).path("results");
        assertEquals(2, results.size(), results.toString());
        java.util.List<String> messages = new java.util.ArrayList<>();
        results.forEach(result -> messages.add(result.path("message").path("text").asText()));
        assertTrue(messages.stream().anyMatch(m -> m.startsWith("sleep " + escaped + "\n")), messages.toString());
    }

    /** A file name with a newline or an escape in it is named on the one line, escaped. */
    @Test
    void aFileNameWithControlCharactersIsNamedEscapedOnOneLine() throws Exception {
        Path file = temp.resolve("bad\n\u001b[2Jname.json");
        Files.writeString(file, "hello");
        assertEquals(ExitCodes.USAGE, check("check", file.toString()));
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("loopdiag: " + temp + "/bad\\u000a\\u001b[2Jname.json: not valid JSON"), err.toString());
    }

    /** Each unreadable input is one line naming the file, exit code 2, no stack trace. */
    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
        "missing    | | no such file",
        "empty      | '' | empty, not a loopdiag report",
        "truncated  | {\"schema\": \"loopdiag-report/1\", \"detections\": [{\"kind\": | not valid JSON",
        "not JSON   | hello | not valid JSON",
        "an array   | [1, 2] | not a loopdiag report (not a JSON object)",
        "no schema  | {\"detections\": []} | not a loopdiag report (schema missing",
        "a dump     | {\"schema\": \"loopdiag-dump/1\"} | not a loopdiag report (schema 'loopdiag-dump/1'",
        "no kind    | {\"schema\": \"loopdiag-report/1\", \"detections\": [{}]} | a detection without a kind",
        "trailing   | {\"schema\": \"loopdiag-report/1\"} {} | unexpected content after the report",
    })
    void unreadableReportsAreOneLineAndExitCodeTwo(String what, String content, String expected) throws Exception {
        Path file = temp.resolve("report.json");
        if (content != null) {
            Files.writeString(file, content);
        }
        assertEquals(ExitCodes.USAGE, check("check", file.toString()), what);
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("loopdiag: " + file + ": "), err.toString());
        assertTrue(err.toString().contains(expected), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void deepNestingIsRefusedWithoutAStackOverflow() throws Exception {
        Path file = temp.resolve("deep.json");
        Files.writeString(file, "{\"schema\": \"loopdiag-report/1\", \"padding\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}");
        assertEquals(ExitCodes.USAGE, check("check", file.toString()));
        assertTrue(err.toString().contains("not valid JSON (Document nesting depth"), err.toString());
    }
}
