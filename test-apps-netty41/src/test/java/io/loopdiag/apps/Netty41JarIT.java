package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * test-apps-netty41.jar: test-apps' Netty scenarios built against Netty 4.1, each run in a child
 * JVM without the agent as test-apps' ScenariosIT runs them on 4.2: it ends, prints
 * {@code NAME done} and exits 0, and its first line on stderr names the 4.1 it runs on.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class Netty41JarIT {
    private static final Path JAR = Path.of("target", "test-apps-netty41.jar");
    private static final List<String> NETTY = List.of("netty-stuck", "netty-slow-handler", "netty-lost-write", "netty-healthy");
    /** The Netty line this jar is built with, from the build (netty41.version). */
    private static final String NETTY_VERSION = System.getProperty("expected.netty.version", "(not set by the build)");

    /** Each Netty scenario on NIO, then on the native epoll transport. */
    static List<String> nettyScenarios() {
        return Stream.of("", " --transport epoll").flatMap(transport -> NETTY.stream().map(name -> name + transport)).toList();
    }

    private static ProcessBuilder scenario(String... args) {
        assertTrue(Files.isRegularFile(JAR), JAR.toAbsolutePath() + " is missing: run mvn package first");
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-jar", JAR.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }

    /**
     * What JDK 24 and later print once Netty 4.1 calls a memory-access method of sun.misc.Unsafe
     * (JEP 498); Netty 4.2 does not call them there. The JDK's lines, not the scenario's.
     */
    private static boolean isJdkUnsafeWarning(String line) {
        return line.startsWith("WARNING: ") && (line.contains("sun.misc.Unsafe") || line.contains("maintainers of class io.netty."));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nettyScenarios")
    void nettyScenarioRunsToItsEndOnNetty41(String command, @TempDir Path dir) throws Exception {
        String name = command.split(" ")[0];
        Path stderr = dir.resolve("stderr.txt");
        Process child = scenario(command.split(" ")).redirectError(stderr.toFile()).start();
        try {
            String out = new String(child.getInputStream().readAllBytes(), UTF_8);
            assertTrue(child.waitFor(20, TimeUnit.SECONDS), name + " did not exit");
            String err = Files.readString(stderr);
            assertEquals(0, child.exitValue(), name + " failed:\n" + err);
            assertEquals(List.of(name + " done"), out.lines().toList(), "stdout of " + name);
            List<String> lines = err.lines().filter(line -> !line.startsWith("Picked up ") && !isJdkUnsafeWarning(line)).toList();
            assertEquals(name + ": Netty " + NETTY_VERSION + (command.endsWith("epoll") ? " on epoll" : ""), lines.get(0), "stderr of " + name);
            assertEquals(List.of(), lines.stream().filter(line -> !line.startsWith(name + ": ")).toList(), "stderr of " + name);
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theJarListsTheNettyScenariosAlone() throws Exception {
        Process listing = scenario().redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            String out = new String(listing.getInputStream().readAllBytes(), UTF_8);
            assertTrue(listing.waitFor(20, TimeUnit.SECONDS), "the listing did not exit");
            assertEquals(0, listing.exitValue());
            List<String> listed = out.lines().filter(line -> line.startsWith("  ")).map(line -> line.strip().split("\\s+")[0]).toList();
            assertEquals(NETTY, listed);
        } finally {
            listing.destroyForcibly();
            listing.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theJarCarriesNetty41AndNothingOfNetty42OrLoopCore() throws Exception {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            Properties common = new Properties();
            try (InputStream in = jar.getInputStream(jar.getEntry("META-INF/maven/io.netty/netty-common/pom.properties"))) {
                common.load(in);
            }
            assertEquals(NETTY_VERSION, common.getProperty("version"));
            assertTrue(NETTY_VERSION.startsWith("4.1."), NETTY_VERSION);
            ZipEntry fourTwoOnly = jar.getEntry("io/netty/channel/MultiThreadIoEventLoopGroup.class");
            assertNull(fourTwoOnly, "a class of Netty 4.2");
            assertNull(jar.getEntry("io/loopdiag/loop/EventLoop.class"), "loop-core beyond its launcher");
            assertNotNull(jar.getEntry("io/loopdiag/launch/JarLauncher.class"));
            assertEquals("io.loopdiag.apps.Main", jar.getManifest().getMainAttributes().getValue("Loopdiag-Main"));
        }
    }
}
