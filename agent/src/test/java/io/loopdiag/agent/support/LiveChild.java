package io.loopdiag.agent.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scenario that runs while the test talks to it (such as {@code blocking-on-cue}): lines to its
 * stdin, its stdout read line by line, its stderr gathered whole. Closing it kills what is left.
 */
public final class LiveChild implements AutoCloseable {
    private final Process process;
    private final BufferedReader stdout;
    private final PrintStream stdin;
    private final StringBuffer stderr = new StringBuffer();
    private final CompletableFuture<Void> stderrRead;

    private LiveChild(Process process) {
        this.process = process;
        this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.stdin = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.stderrRead = CompletableFuture.runAsync(() -> gather(process.getErrorStream(), stderr));
    }

    /** Starts {@code command} in {@code directory} (null: this one). */
    public static LiveChild start(List<String> command, Path directory) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command);
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        return new LiveChild(builder.start());
    }

    /** Starts {@code scenario} with the agent given {@code options} (null: without the agent). */
    public static LiveChild scenario(String options, String scenario, String... jvmOptions) throws IOException {
        List<String> command = new java.util.ArrayList<>(AgentRun.command(options, scenario, jvmOptions));
        if (options == null) {
            command.remove(1); // no -javaagent
        }
        return start(command, null);
    }

    public long pid() {
        return process.pid();
    }

    /** The next line on stdout, checked to be {@code expected}. */
    public void expectLine(String expected) throws IOException {
        assertEquals(expected, stdout.readLine(), () -> "stderr so far:\n" + stderr);
    }

    /** The next line on stdout, checked to start with {@code prefix}. */
    public void expectLineStarting(String prefix) throws IOException {
        String line = stdout.readLine();
        assertTrue(line != null && line.startsWith(prefix), () -> "expected '" + prefix + "...', got '" + line + "'; stderr:\n" + stderr);
    }

    /** Sends {@code line} and waits for its answer {@code blocked LINE} (blocking-on-cue). */
    public void cue(int line) throws IOException {
        stdin.println(line);
        expectLine("blocked " + line);
    }

    /** Ends stdin and waits for the process to end; returns its exit code, with stdout and stderr complete. */
    public int finish(String lastLine) throws IOException, InterruptedException {
        stdin.close();
        expectLine(lastLine);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the child ended");
        stderrRead.join();
        return process.exitValue();
    }

    /** Waits until stderr holds {@code text} (the test's @Timeout bounds the wait). */
    public void awaitStderr(String text) throws InterruptedException {
        while (!stderr.toString().contains(text)) {
            assertTrue(process.isAlive() || !stderrRead.isDone(), () -> "the child ended without printing '" + text + "':\n" + stderr);
            Thread.sleep(20);
        }
    }

    public String stderr() {
        return stderr.toString();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    private static void gather(InputStream in, StringBuffer into) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            char[] buffer = new char[8192];
            for (int n = reader.read(buffer); n >= 0; n = reader.read(buffer)) {
                into.append(buffer, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
