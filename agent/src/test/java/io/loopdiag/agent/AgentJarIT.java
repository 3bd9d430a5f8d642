package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The packaged agent jar: its manifest, and a child JVM that loads it. */
@Timeout(60)
class AgentJarIT {
    private static final Path JAR = Path.of("target/loopdiag-agent.jar");

    @Test
    void theManifestNamesTheEntryPointsAndRetransformation() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertEquals("io.loopdiag.agent.AgentGate", main.getValue("Premain-Class"));
            assertEquals("io.loopdiag.agent.AgentGate", main.getValue("Agent-Class"));
            assertEquals("true", main.getValue("Can-Retransform-Classes"));
        }
    }

    @Test
    void everythingShadedLivesUnderIoLoopdiag() throws IOException {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            List<String> outside = jar.stream().map(e -> e.getName())
                    .filter(name -> !name.equals("io/") && !name.startsWith("io/loopdiag/") && !name.startsWith("META-INF/"))
                    .toList();
            assertEquals(List.of(), outside, "entries outside io/loopdiag/ and META-INF/");
            assertTrue(jar.getEntry("io/loopdiag/shaded/jackson/databind/ObjectMapper.class") != null, "Jackson is relocated");
            assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith("io/loopdiag/loop/")), "loop-core is the application's, not shaded in");
        }
    }

    @Test
    void badOptionsAreOneLineAndTheApplicationStillRuns() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process child = new ProcessBuilder(java, "-javaagent:" + JAR.toAbsolutePath() + "=slow=soon", "-version")
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        List<String> lines = output.lines().filter(l -> l.startsWith("loopdiag:")).toList();
        assertEquals(1, lines.size(), output);
        assertTrue(lines.get(0).contains("option 'slow' needs a duration"), output);
        assertTrue(lines.get(0).endsWith("the agent is not installed"), output);
        assertTrue(output.contains("version"), output); // the JVM went on to do its work
    }

    /** JAVA_TOOL_OPTIONS reaches every JVM of a build, old ones too: they must run on, not abort. */
    @Test
    void aJvmOlderThan21RunsOnWithoutTheAgent() throws Exception {
        Optional<Path> oldJava;
        try (Stream<Path> homes = Files.list(Path.of("/usr/lib/jvm"))) {
            oldJava = homes.filter(home -> feature(home) > 0 && feature(home) < 21)
                    .map(home -> home.resolve("bin/java")).filter(Files::isExecutable).findFirst();
        } catch (IOException noJvms) {
            oldJava = Optional.empty();
        }
        assumeTrue(oldJava.isPresent(), "no Java older than 21 under /usr/lib/jvm to try");
        Process child = new ProcessBuilder(oldJava.get().toString(), "-javaagent:" + JAR.toAbsolutePath(), "-version")
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        List<String> lines = output.lines().filter(l -> l.startsWith("loopdiag:")).toList();
        assertEquals(1, lines.size(), output);
        assertTrue(lines.get(0).startsWith("loopdiag: the agent needs Java 21 or newer; this JVM is Java "), output);
        assertTrue(output.contains("version"), output);
    }

    private static int feature(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=\"")) {
                    return Integer.parseInt(line.substring("JAVA_VERSION=\"".length()).split("[.\"]")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    @Test
    void loadingTheAgentTwiceInstallsItOnce() throws Exception {
        String agent = "-javaagent:" + JAR.toAbsolutePath();
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process child = new ProcessBuilder(java, agent, agent, "-version").redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        List<String> lines = output.lines().filter(l -> l.startsWith("loopdiag:")).toList();
        assertEquals(2, lines.size(), output);
        assertTrue(lines.get(0).contains("loaded"), output);
        assertTrue(lines.get(1).contains("already installed"), output);
        assertTrue(Files.size(JAR) > 0);
    }
}
