package io.loopdiag.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code java -jar test-apps.jar} on a Java older than 21 still works, through JarLauncher. */
@Timeout(60)
class JarLauncherIT {

    @Test
    void anOldJavaRunsTheJarOnAJdk21Found() throws Exception {
        Optional<Path> oldJava = oldJava();
        assumeTrue(oldJava.isPresent(), "no Java older than 21 under /usr/lib/jvm to try");
        Process child = new ProcessBuilder(oldJava.get().toString(), "-jar", "target/test-apps.jar")
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("echo-server"), output);
    }

    @Test
    void aJarCopiedOutOfTheCheckoutFindsAJdk21WithoutJavaHome(@TempDir Path elsewhere) throws Exception {
        Optional<Path> oldJava = oldJava();
        assumeTrue(oldJava.isPresent(), "no Java older than 21 under /usr/lib/jvm to try");
        Path jar = Files.copy(Path.of("target/test-apps.jar"), elsewhere.resolve("test-apps.jar"));
        ProcessBuilder builder = new ProcessBuilder(oldJava.get().toString(), "-jar", jar.toString())
                .directory(elsewhere.toFile()).redirectErrorStream(true);
        builder.environment().remove("JAVA_HOME");
        builder.environment().put("PATH", oldJava.get().getParent() + ":/usr/bin:/bin"); // java 17 first on PATH
        Process child = builder.start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertTrue(output.contains("echo-server"), "ran on a JDK 21+ from /usr/lib/jvm:\n" + output);
        assertTrue(!output.contains("needs Java 21"), output);
    }

    private static Optional<Path> oldJava() throws IOException {
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(home -> feature(home) > 0 && feature(home) < 21)
                    .map(home -> home.resolve("bin/java")).filter(Files::isExecutable).findFirst();
        }
    }

    private static int feature(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=\"")) {
                    String version = line.substring("JAVA_VERSION=\"".length());
                    return Integer.parseInt(version.split("[.\"]")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
