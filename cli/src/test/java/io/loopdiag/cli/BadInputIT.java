package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.cli.support.Jvms;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The packaged CLI on input meant to break it: huge and hostile report files for {@code check}
 * (in a JVM of 64 MB heap, so that memory is proven bounded), and process ids that are no JVM of
 * this user for every verb that takes one. One line, the documented exit code, no stack trace.
 * (Command lines that do not parse are MainTest's; small unreadable reports CheckCommandTest's.)
 */
@Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BadInputIT {
    private static final String HEAD = "{\"schema\": \"loopdiag-report/1\", \"pid\": 1, ";
    private static final String DETECTION = "{\"kind\": \"blocking-call\", \"message\": \"sleep\", \"stack\": [\"a.B.c(B.java:1)\"]}";
    private static final long HUNDRED_MB = 100L << 20;

    private final Jvms jvms = new Jvms();

    @AfterEach
    void stop() throws InterruptedException {
        jvms.close();
    }

    /** A file the test writes, and what check's one line must say about it. */
    @FunctionalInterface
    interface Content {
        void writeTo(BufferedWriter out) throws IOException;
    }

    static Stream<Arguments> hostileReports() {
        return Stream.of(
                Arguments.of("100 MB string", (Content) out -> {
                    out.write(HEAD + "\"detections\": [{\"kind\": \"blocking-call\", \"message\": \"");
                    repeat(out, "x", HUNDRED_MB);
                    out.write("\"}]}");
                }, "100 MB, larger than any report the agent writes (at most 64 MB are read)"),
                Arguments.of("100 MB array", (Content) out -> {
                    out.write(HEAD + "\"detections\": [{\"kind\": \"blocking-call\", \"stack\": [\"f\"");
                    repeat(out, ",\"f\"", HUNDRED_MB / 4);
                    out.write("]}]}");
                }, "100 MB, larger than any report the agent writes"),
                Arguments.of("30 MB message", (Content) out -> {
                    out.write(HEAD + "\"detections\": [{\"kind\": \"blocking-call\", \"message\": \"");
                    repeat(out, "x", 30L << 20);
                    out.write("\"}]}");
                }, "not valid JSON (String value length"),
                Arguments.of("stack of 1M frames", (Content) out -> {
                    out.write(HEAD + "\"detections\": [{\"kind\": \"blocking-call\", \"stack\": [\"f\"");
                    repeat(out, ",\"f\"", 1 << 20);
                    out.write("]}]}");
                }, "a stack of more than 65536 frames, which no JVM records: not a loopdiag report"),
                Arguments.of("20,000 detections", (Content) out -> {
                    out.write(HEAD + "\"detections\": [" + DETECTION);
                    repeat(out, "," + DETECTION, 19_999);
                    out.write("]}");
                }, "more than 10000 detections, which the agent never writes"),
                Arguments.of("100k '[' at the top", (Content) out -> repeat(out, "[", 100_000),
                        "not a loopdiag report (not a JSON object)"),
                Arguments.of("100k '[' in a field", (Content) out -> {
                    out.write(HEAD + "\"padding\": ");
                    repeat(out, "[", 100_000);
                }, "not valid JSON (Document nesting depth"),
                Arguments.of("100k '[' as a detection", (Content) out -> {
                    out.write(HEAD + "\"detections\": ");
                    repeat(out, "[", 100_000);
                }, "a detection that is not a JSON object"),
                Arguments.of("100k '{' in a detection", (Content) out -> {
                    out.write(HEAD + "\"detections\": [{\"kind\": \"blocking-call\", \"x\": ");
                    repeat(out, "{\"a\":", 100_000);
                }, "not valid JSON (Document nesting depth"));
    }

    private static void repeat(BufferedWriter out, String text, long times) throws IOException {
        for (long i = 0; i < times; i++) {
            out.write(text);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileReports")
    void aHugeOrHostileReportIsOneLineAndExitCodeTwoInBoundedMemory(String what, Content content, String expected,
                                                                  @TempDir Path temp) throws Exception {
        Path file = temp.resolve("report.json");
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            content.writeTo(out);
        }
        try {
            Jvms.Run run = jvms.cli(List.of(), Jvms.CLI, List.of("-Xmx64m", "-Xss512k"), "check", file.toString());
            assertEquals(ExitCodes.USAGE, run.exitCode(), what + ": " + run.err());
            assertEquals(1, run.err().lines().count(), what + ": one line:\n" + run.err());
            assertTrue(run.err().startsWith("loopdiag: " + file + ": "), run.err());
            assertTrue(run.err().contains(expected), run.err());
            assertEquals("", run.out());
        } finally {
            Files.delete(file);
        }
    }

    /** Process ids of no JVM this user can dump: each verb that takes one says so in one line, exit code 1. */
    @Test
    void processIdsOfNoJvmOfThisUserAreOneLineAndExitCodeOne() throws Exception {
        Process sleep = jvms.track(new ProcessBuilder("sleep", "60").start());
        Process exited = new ProcessBuilder(Jvms.JAVA, "-version").redirectErrorStream(true).start();
        exited.getInputStream().readAllBytes();
        assertTrue(exited.waitFor(30, TimeUnit.SECONDS));
        boolean root = "root".equals(System.getProperty("user.name"));
        String[][] cases = {
            {"99999999999", "no process with id 99999999999"},
            {Long.toString(exited.pid()), "no process with id " + exited.pid()},
            {Long.toString(sleep.pid()), "process " + sleep.pid() + " is not a Java virtual machine"},
            {"1", root ? "process 1 is not a Java virtual machine" : "process 1 belongs to user 'root'"},
        };
        for (String[] c : cases) {
            for (String verb : List.of("ps", "pstree", "dump", "attach")) {
                Jvms.Run run = jvms.cli(verb, c[0]);
                assertEquals(ExitCodes.FINDINGS_OR_FAILURE, run.exitCode(), verb + " " + c[0] + ": " + run.err());
                assertEquals("loopdiag: " + c[1], run.err().strip(), verb + " " + c[0]);
                assertEquals("", run.out(), verb + " " + c[0]);
            }
        }
        assertFalse(sleep.waitFor(0, TimeUnit.SECONDS), "the process looked at is unharmed");
    }
}
