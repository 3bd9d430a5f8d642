package io.loopdiag.junit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import java.io.IOException;
import java.util.regex.Pattern;

/** What the sample tests do on loop-core loops, each at a line that {@link #line} finds. */
final class Loops {
    private Loops() {
    }

    /** Runs a loop whose main task blocks it: a {@code blocking-call}. */
    static void block() throws Exception {
        EventLoop.run(() -> {
            Thread.sleep(50); // @line block
            return null;
        });
    }

    /** Runs a loop whose main task creates a coroutine and drops it: a {@code never-awaited}, reported as the loop closes. */
    static void dropACoroutine() throws Exception {
        EventLoop.run(() -> {
            Coroutine.of("x", () -> 1); // @line dropACoroutine
            return null;
        });
    }

    /** Runs a loop whose main task awaits the coroutine it creates: nothing to report. */
    static int awaitACoroutine() throws Exception {
        return EventLoop.run(() -> Async.await(Coroutine.of("x", () -> 1)));
    }

    /** The line of this file marked {@code name}. */
    static int line(String name) throws IOException {
        return SampleRun.line(Loops.class, name);
    }

    /** The header line of the block of {@link #block}'s finding, as the agent prints it. */
    static String blockHeader() throws IOException {
        return "loopdiag: blocking-call on loop 'loop-\\d+': java\\.lang\\.Thread\\.sleep in task 'main' \\(#\\d+\\), called at "
                + Pattern.quote("io.loopdiag.junit.Loops.lambda$block$") + "\\d+" + Pattern.quote("(Loops.java:" + line("block") + ")");
    }

    /** The header line of the block of {@link #dropACoroutine}'s finding. */
    static String dropHeader() throws IOException {
        return "loopdiag: never-awaited on loop 'loop-\\d+': coroutine 'x' was never awaited nor made a task, created at "
                + Pattern.quote("io.loopdiag.junit.Loops.lambda$dropACoroutine$") + "\\d+"
                + Pattern.quote("(Loops.java:" + line("dropACoroutine") + ")");
    }

    static void assertMatches(String regex, String actual, String message) {
        assertTrue(Pattern.matches(regex, actual), "expected /" + regex + "/\nbut was: " + actual + "\nin: " + message);
    }

    /** The lines of {@code message} that start a finding's block. */
    static java.util.List<String> headers(String message) {
        return message.lines().filter(l -> l.startsWith("loopdiag: ")).toList();
    }
}
