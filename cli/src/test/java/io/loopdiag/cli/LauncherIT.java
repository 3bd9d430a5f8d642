package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.cli.support.Jvms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkout's {@code loopdiag} launcher, run from a copy of the checkout's layout (the script,
 * scripts/find-jdk, a built jar, sources older than it): its class-data archive.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LauncherIT {
    /**
     * The JVM maps no archive made of another build of the jar, and does not remake it either:
     * the launcher removes an archive older than the jar, and the next command writes a new one.
     */
    @Test
    void aRebuiltJarGetsAFreshArchive(@TempDir Path checkout) throws Exception {
        Files.writeString(checkout.resolve("pom.xml"), "<project/>\n");
        Files.createDirectories(checkout.resolve("scripts"));
        Files.createDirectories(checkout.resolve("cli/target"));
        copyExecutable(Path.of("../loopdiag"), checkout.resolve("loopdiag"));
        copyExecutable(Path.of("../scripts/find-jdk"), checkout.resolve("scripts/find-jdk"));
        Path jar = checkout.resolve("cli/target/loopdiag.jar");
        Files.copy(Jvms.CLI, jar);
        Files.setLastModifiedTime(checkout.resolve("pom.xml"), minutesAgo(10)); // the sources are older than the jar
        Path archive = checkout.resolve("cli/target/loopdiag.jsa");

        assertVersion(launch(checkout));
        assertTrue(Files.isRegularFile(archive), "the first command archived its classes");

        // A rebuild after the archive was made: the jar's time changes, which the JVM checks.
        Files.setLastModifiedTime(archive, minutesAgo(2));
        Files.setLastModifiedTime(jar, minutesAgo(1));
        assertVersion(launch(checkout));
        assertTrue(Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) > 0,
                "an archive made after the rebuild, not the one before it: " + Files.getLastModifiedTime(archive));
    }

    private static FileTime minutesAgo(int minutes) {
        return FileTime.fromMillis(System.currentTimeMillis() - Duration.ofMinutes(minutes).toMillis());
    }

    private static Jvms.Run launch(Path checkout) throws Exception {
        ProcessBuilder launcher = new ProcessBuilder(checkout.resolve("loopdiag").toString(), "--version");
        Map<String, String> env = launcher.environment();
        env.put("JAVA_HOME", Path.of(Jvms.JAVA).getParent().getParent().toString());
        return Jvms.finish(launcher.start());
    }

    private static void assertVersion(Jvms.Run run) {
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("loopdiag "), run.out());
        assertEquals("", run.err(), "nothing on stderr");
    }

    private static void copyExecutable(Path from, Path to) throws Exception {
        Files.copy(from, to);
        assertTrue(to.toFile().setExecutable(true));
    }
}
