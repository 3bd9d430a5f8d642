package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class MainTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
    }

    @Test
    void anUnknownVerbIsOneLineAndExitCodeTwo() {
        assertEquals(ExitCodes.USAGE, run("frobnicate"));
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("loopdiag: "), err.toString());
        assertTrue(err.toString().contains("frobnicate"), err.toString());
    }

    @Test
    void anUnknownOptionIsOneLineAndExitCodeTwo() {
        assertEquals(ExitCodes.USAGE, run("demo", "--bogus"));
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().contains("--bogus"), err.toString());
    }

    @Test
    void noVerbPrintsTheUsageAndExitCodeTwo() {
        assertEquals(ExitCodes.USAGE, run());
        assertTrue(err.toString().contains("Usage: loopdiag"), err.toString());
    }

    @Test
    void helpListsTheVerbsAndTheExitCodes() {
        assertEquals(ExitCodes.OK, run("--help"));
        String help = out.toString();
        assertTrue(help.contains("demo"), help);
        assertTrue(help.contains("Exit codes:"), help);
        assertTrue(help.contains("2   usage"), help);
    }

    @Test
    void demoWithAMissingAppsJarSaysWhichAndExitsTwo() {
        assertEquals(ExitCodes.USAGE, run("demo", "--apps", "/nonexistent/test-apps.jar"));
        assertTrue(err.toString().contains("/nonexistent/test-apps.jar"), err.toString());
    }
}
