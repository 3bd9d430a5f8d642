package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.cli.support.Formats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * loopdiag in a user's CI: the Maven project {@code test-apps/ci-project}, built by this test with
 * the same Maven, offline, against the local repository (plus this build's own artifacts, laid
 * out beside it). A quote service's rate lookup blocks the loop when {@code -Dexample.block=true}.
 */
@Timeout(600)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CiIT {
    private static final String JAVA = ProcessHandle.current().info().command().orElseThrow();
    private static final Path CLI = Path.of("target/loopdiag.jar").toAbsolutePath();
    private static final String SOURCE = "src/main/java/example/QuoteService.java";

    private Path temp;
    private Path project;
    private Path repository;
    private int blockingLine;
    private Run blockingRun;
    private Path blockingReports;

    /** What a command printed and returned. */
    record Run(int exitCode, String out, String err) {
        String all() {
            return out + err;
        }
    }

    @BeforeAll
    void buildTheProjectWithABlockingCall(@TempDir Path folder) throws Exception {
        temp = folder;
        project = temp.resolve("quote-service");
        copy(Path.of("../test-apps/ci-project").toAbsolutePath(), project);
        repository = repositoryWithThisBuild(temp.resolve("repository"));
        List<String> lines = Files.readAllLines(project.resolve(SOURCE));
        blockingLine = lines.indexOf(lines.stream().filter(l -> l.contains("Thread.sleep(")).findFirst().orElseThrow()) + 1;

        blockingReports = temp.resolve("blocking-reports");
        blockingRun = loopdiag(List.of("run", "--report", blockingReports.toString(), "--"),
                mvn("test", "-Dtest=QuoteServiceTest", "-Dexample.block=true"));
    }

    /** The overlay's links go first, so that cleaning the folder never reaches into the real repository. */
    @AfterAll
    void unlinkTheRealRepository() throws IOException {
        for (Path folder : List.of(repository, repository.resolve("io"))) {
            try (Stream<Path> entries = Files.list(folder)) {
                for (Path link : entries.filter(Files::isSymbolicLink).toList()) {
                    Files.delete(link);
                }
            }
        }
    }

    @Test
    void runFailsOnTheBlockingCallAndNamesIt() {
        assertEquals(1, blockingRun.exitCode(), blockingRun.all());
        assertTrue(blockingRun.out().contains("blocking-call (1 finding"), blockingRun.out());
        assertTrue(blockingRun.out().contains("java.lang.Thread.sleep"), blockingRun.out());
        assertTrue(blockingRun.out().contains("example.QuoteService.fetchRate(QuoteService.java:" + blockingLine + ")"), blockingRun.out());
        assertTrue(blockingRun.out().contains("FAILED: 1 finding of a failing kind (blocking-call)"), blockingRun.out());
    }

    @Test
    void runPassesWithoutTheBlockingCall() throws Exception {
        Path reports = temp.resolve("clean-reports");
        Run run = loopdiag(List.of("run", "--report", reports.toString(), "--"),
                mvn("test", "-Dtest=QuoteServiceTest", "-Dexample.block=false"));
        assertEquals(0, run.exitCode(), run.all());
        assertTrue(run.out().contains("no findings"), run.out());
        assertTrue(run.out().contains("OK: no finding of a failing kind"), run.out());
        try (Stream<Path> written = Files.list(reports)) {
            assertEquals(2, written.count(), "a report from each JVM the agent watched: the test JVM's, and Maven's own, empty");
        }
    }

    @Test
    void runReturnsTheCommandsOwnFailure() throws Exception {
        Run run = loopdiag(List.of("run", "--report", temp.resolve("failed-reports").toString(), "--"),
                mvn("test", "-Dtest=NoSuchTest"));
        assertNotEquals(0, run.exitCode(), run.all());
        assertEquals(1, run.exitCode(), "Maven's own exit code");
        assertTrue(run.out().contains("loopdiag run: the command failed with exit code 1"), run.out());
    }

    @Test
    void aBaselineHoldingTheFindingPasses() throws Exception {
        Path baseline = temp.resolve("loopdiag-baseline.json");
        Run write = loopdiag(List.of("check", blockingReports.toString(), "--write-baseline", baseline.toString()));
        assertEquals(0, write.exitCode(), write.all());
        Run without = loopdiag(List.of("check", blockingReports.toString()));
        assertEquals(1, without.exitCode(), without.all());
        Run with = loopdiag(List.of("check", blockingReports.toString(), "--baseline", baseline.toString()));
        assertEquals(0, with.exitCode(), with.all());
        assertTrue(with.out().contains("[in the baseline]"), with.out());
        assertTrue(with.out().contains("beyond the 1 in the baseline"), with.out());
    }

    @Test
    void junitXmlHasOneFailingCaseAtTheLine() throws Exception {
        Path xml = temp.resolve("loopdiag-junit.xml");
        Run check = loopdiag(List.of("check", blockingReports.toString(), "--junit-xml", xml.toString()));
        assertEquals(1, check.exitCode(), check.all());
        Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
        NodeList cases = document.getElementsByTagName("testcase");
        assertEquals(1, cases.getLength());
        Element testCase = (Element) cases.item(0);
        assertEquals("example.QuoteService", testCase.getAttribute("classname"));
        Formats.assertValidJenkinsJunitXml(xml);
        Element failure = (Element) testCase.getElementsByTagName("failure").item(0);
        assertEquals("blocking-call", failure.getAttribute("type"));
        assertTrue(failure.getTextContent().contains("at example.QuoteService.fetchRate(QuoteService.java:" + blockingLine + ")"));
        assertEquals("1", ((Element) document.getElementsByTagName("testsuite").item(0)).getAttribute("failures"));
    }

    /** The fields SARIF 2.1.0's schema requires, and those code-scanning UIs read to annotate a line. */
    @Test
    void sarifHasTheRequiredFieldsAndTheLine() throws Exception {
        Path sarif = temp.resolve("loopdiag.sarif");
        Run check = loopdiag(List.of("check", blockingReports.toString(), "--sarif", sarif.toString()));
        assertEquals(1, check.exitCode(), check.all());
        Formats.assertValidSarif(sarif);
        JsonNode root = new ObjectMapper().readTree(sarif.toFile());
        assertEquals("2.1.0", root.path("version").asText());
        assertEquals(1, root.path("runs").size());
        JsonNode run = root.path("runs").get(0);
        JsonNode driver = run.path("tool").path("driver");
        assertEquals("loopdiag", driver.path("name").asText());
        Set<String> ruleIds = new HashSet<>();
        driver.path("rules").forEach(rule -> ruleIds.add(rule.path("id").asText()));
        assertEquals(1, run.path("results").size());
        JsonNode result = run.path("results").get(0);
        assertEquals("blocking-call", result.path("ruleId").asText());
        assertTrue(ruleIds.contains(result.path("ruleId").asText()), "the rule is declared");
        assertTrue(result.path("message").path("text").asText().startsWith("java.lang.Thread.sleep"), result.toString());
        JsonNode physical = result.path("locations").get(0).path("physicalLocation");
        assertEquals(SOURCE, physical.path("artifactLocation").path("uri").asText());
        assertEquals(blockingLine, physical.path("region").path("startLine").asInt());
    }

    /** The recipe of docs/ci.md: the agent in Surefire's argLine, the extension on a test class, then check. */
    @Test
    void theExtensionFailsExactlyTheOffendingTest() throws Exception {
        Run build = run(project, Map.of(), mvn("test", "-Ploopdiag", "-Dexample.block=true"));
        assertNotEquals(0, build.exitCode(), build.all());
        Path surefire = project.resolve("target/surefire-reports");
        Document guarded = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(surefire.resolve("TEST-example.GuardedQuoteTest.xml").toFile());
        List<String> failed = new ArrayList<>();
        NodeList cases = guarded.getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
            Element testCase = (Element) cases.item(i);
            NodeList failures = testCase.getElementsByTagName("failure");
            if (failures.getLength() > 0) {
                failed.add(testCase.getAttribute("name"));
                String message = ((Element) failures.item(0)).getAttribute("message");
                assertTrue(message.contains("loopdiag saw 1 finding of blocking-call during this test"), message);
                assertTrue(message.contains("java.lang.Thread.sleep"), message);
                assertTrue(message.contains("at example.QuoteService.fetchRate(QuoteService.java:" + blockingLine + ")"), message);
            }
        }
        assertEquals(2, cases.getLength());
        assertEquals(List.of("freshQuoteLooksTheRateUp"), failed);
        String plain = Files.readString(surefire.resolve("TEST-example.QuoteServiceTest.xml"));
        assertFalse(plain.contains("<failure"), "the test without the extension passes");

        Run check = loopdiag(List.of("check", project.resolve("target/loopdiag").toString()));
        assertEquals(1, check.exitCode(), check.all());
        assertTrue(check.out().contains("2 reports") || check.out().contains("1 report"), check.out());
        assertTrue(check.out().contains("example.QuoteService.fetchRate(QuoteService.java:" + blockingLine + ")"), check.out());
    }

    @ParameterizedTest(name = "Netty {0}")
    @ValueSource(strings = {"ci.version.netty", "ci.version.netty41"})
    void runFailsOnABlockingCallInANettyHandler(String nettyVersion) throws Exception {
        Path netty = temp.resolve("rate-server-" + nettyVersion);
        copy(Path.of("../test-apps/ci-project-netty").toAbsolutePath(), netty);
        List<String> command = new ArrayList<>(mvn("test", "-Dnetty.version=" + System.getProperty(nettyVersion)));
        command.add(1, "-f");
        command.add(2, netty.resolve("pom.xml").toString());
        Run run = loopdiag(List.of("run", "--report", temp.resolve("netty-reports-" + nettyVersion).toString(), "--"), command);
        assertEquals(1, run.exitCode(), run.all());
        assertTrue(run.out().contains("Tests run: "), "the project's own tests ran:\n" + run.out());
        assertTrue(run.out().contains("blocking-call (1 finding"), run.out());
        assertTrue(run.out().contains("java.lang.Thread.sleep in I/O of handler"), run.out());
        assertTrue(run.out().contains("example.RateServer$RateHandler.fetchRate(RateServer.java:87)"), run.out());
        assertTrue(run.out().contains("FAILED: 1 finding of a failing kind (blocking-call)"), run.out());

        // The same reports for a code-scanning UI and a CI server, checked in the project's folder, as CI would.
        Path sarif = temp.resolve("netty-" + nettyVersion + ".sarif");
        Path xml = temp.resolve("netty-" + nettyVersion + "-junit.xml");
        Run check = run(netty, Map.of(), List.of(JAVA, "-jar", CLI.toString(), "check", temp.resolve("netty-reports-" + nettyVersion).toString(),
                "--sarif", sarif.toString(), "--junit-xml", xml.toString()));
        assertEquals(1, check.exitCode(), check.all());
        JsonNode result = new ObjectMapper().readTree(sarif.toFile()).path("runs").get(0).path("results").get(0);
        assertEquals("blocking-call", result.path("ruleId").asText());
        JsonNode physical = result.path("locations").get(0).path("physicalLocation");
        assertEquals("src/main/java/example/RateServer.java", physical.path("artifactLocation").path("uri").asText(), result.toString());
        assertEquals(87, physical.path("region").path("startLine").asInt(), result.toString());
        Element testCase = (Element) DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile())
                .getElementsByTagName("testcase").item(0);
        assertEquals("example.RateServer$RateHandler", testCase.getAttribute("classname"));
        assertTrue(testCase.getTextContent().contains("example.RateServer$RateHandler.fetchRate(RateServer.java:87)"), testCase.getTextContent());
        assertTrue(testCase.getElementsByTagName("failure").item(0).getTextContent().contains("in I/O of handler"), testCase.getTextContent());
    }

    /** The Maven command, offline, with this build's versions and repository. */
    private List<String> mvn(String... goals) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("ci.maven.home"), "bin", "mvn").toString(),
                "-o", "-B", "-ntp", "-Dmaven.repo.local=" + repository,
                "-Dloopdiag.version=" + System.getProperty("ci.version.loopdiag"),
                "-Djunit.version=" + System.getProperty("ci.version.junit"),
                "-Dplugin.resources.version=" + System.getProperty("ci.version.resources"),
                "-Dplugin.compiler.version=" + System.getProperty("ci.version.compiler"),
                "-Dplugin.surefire.version=" + System.getProperty("ci.version.surefire"),
                "-Dplugin.dependency.version=" + System.getProperty("ci.version.dependency")));
        command.addAll(List.of(goals));
        return command;
    }

    private Run loopdiag(List<String> args) throws Exception {
        return loopdiag(args, List.of());
    }

    private Run loopdiag(List<String> args, List<String> command) throws Exception {
        List<String> all = new ArrayList<>(List.of(JAVA, "-jar", CLI.toString()));
        all.addAll(args);
        all.addAll(command);
        return run(project, Map.of(), all);
    }

    private static Run run(Path directory, Map<String, String> env, List<String> command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        builder.environment().putAll(env);
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().put("JAVA_HOME", Path.of(JAVA).getParent().getParent().toString());
        // Maven 3.8's Guava calls sun.misc.Unsafe, which JDK 24+ warns about; as ./build does.
        builder.environment().put("MAVEN_OPTS", "--sun-misc-unsafe-memory-access=allow");
        Process process = builder.start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        String out = read(process.getInputStream());
        assertTrue(process.waitFor(300, TimeUnit.SECONDS), "ended: " + command);
        return new Run(process.exitValue(), out, err.join());
    }

    private static String read(java.io.InputStream stream) {
        try {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /**
     * A local repository that is the real one, linked entry by entry, plus this build's own
     * artifacts under {@code io/loopdiag}: the real one is left as it was.
     */
    private static Path repositoryWithThisBuild(Path overlay) throws IOException {
        Path real = Path.of(System.getProperty("ci.repository"));
        Files.createDirectories(overlay.resolve("io"));
        try (Stream<Path> top = Files.list(real)) {
            for (Path entry : top.filter(p -> !p.getFileName().toString().equals("io")).toList()) {
                Files.createSymbolicLink(overlay.resolve(entry.getFileName().toString()), entry);
            }
        }
        if (Files.isDirectory(real.resolve("io"))) {
            try (Stream<Path> io = Files.list(real.resolve("io"))) {
                for (Path entry : io.filter(p -> !p.getFileName().toString().equals("loopdiag")).toList()) {
                    Files.createSymbolicLink(overlay.resolve("io").resolve(entry.getFileName().toString()), entry);
                }
            }
        }
        String version = System.getProperty("ci.version.loopdiag");
        // Each artifact with what its published pom makes a user's build resolve with it.
        Map<String, String> dependsOn = Map.of("loopdiag-protocol", "", "loop-core", "loopdiag-protocol",
                "loopdiag-agent", "", "loopdiag-junit", "");
        for (Map.Entry<String, String> entry : dependsOn.entrySet()) {
            String artifact = entry.getKey();
            Path folder = Files.createDirectories(overlay.resolve("io/loopdiag").resolve(artifact).resolve(version));
            Files.copy(Path.of(System.getProperty("ci.jar." + artifact)), folder.resolve(artifact + "-" + version + ".jar"));
            String dependencies = entry.getValue().isEmpty() ? "" : """
                      <dependencies>
                        <dependency>
                          <groupId>io.loopdiag</groupId>
                          <artifactId>%s</artifactId>
                          <version>%s</version>
                        </dependency>
                      </dependencies>
                    """.formatted(entry.getValue(), version);
            Files.writeString(folder.resolve(artifact + "-" + version + ".pom"), """
                    <project xmlns="http://maven.apache.org/POM/4.0.0">
                      <modelVersion>4.0.0</modelVersion>
                      <groupId>io.loopdiag</groupId>
                      <artifactId>%s</artifactId>
                      <version>%s</version>
                    %s</project>
                    """.formatted(artifact, version, dependencies));
        }
        return overlay;
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.filter(p -> !from.relativize(p).startsWith("target")).toList()) {
                Files.copy(file, to.resolve(from.relativize(file).toString()));
            }
        }
    }
}
