package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Main}'s argument helpers, the scenarios that take {@code --port} through them, and the Netty scenarios' {@code --hold} and {@code --transport}. */
@Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a bad port accepted would serve forever
class MainTest {
    private static final String BAD_PORT = "--port needs a number from 0 to 65535, got ";

    private static String refusal(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> Main.parsePort(args, 0)).getMessage();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"0, 0", "1, 1", "8080, 8080", "08080, 8080", "65535, 65535"})
    void aPortIsANumberFrom0To65535(String value, int port) {
        assertEquals(port, Main.parsePort(new String[] {"--port", value}, 0));
        assertEquals(port, Main.parsePort(new String[] {"--other", "x", "--port", value, "--other"}, 2), "read after args[i]");
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"", "x", "80a", "8 0", " 80", "1e3", "+80", "0x50", "\u0668\u0660"})
    void aBadNumberIsRefused(String value) {
        assertEquals(BAD_PORT + "'" + value + "'", refusal("--port", value));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-1", "65536", "99999", "100000", "4294967376"})
    void aPortOutOfRangeIsRefused(String value) {
        assertEquals(BAD_PORT + "'" + value + "'", refusal("--port", value));
    }

    @Test
    void aMissingValueIsRefused() {
        assertEquals(BAD_PORT + "nothing", refusal("--port"));
    }

    @Test
    void requirePortOnlyTakesNoArgumentOrOnePort() {
        assertEquals(0, Main.requirePortOnly(new String[0], "x"));
        assertEquals(8080, Main.requirePortOnly(new String[] {"--port", "8080"}, "x"));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Main.requirePortOnly(new String[] {"--port", "1", "--verbose"}, "echo-server"));
        assertEquals("unknown argument '--verbose' (usage: echo-server [--port N])", unknown.getMessage());
        assertEquals(BAD_PORT + "nothing", assertThrows(IllegalArgumentException.class,
                () -> Main.requirePortOnly(new String[] {"--port"}, "x")).getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"echo-server --port x", "echo-server --port 65536", "echo-server --port",
        "http-server --port x", "http-server --port 65536", "http-server --port",
        "soak-server --port x", "soak-server --port 65536", "soak-server --slow-ms 1 --port"})
    void everyScenarioWithAPortRefusesABadOneWithTheSameMessageAndExitsTwo(String command) {
        String[] args = command.split(" ");
        String last = args[args.length - 1];
        String got = last.equals("--port") ? "nothing" : "'" + last + "'";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args, new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
        assertEquals(Main.EXIT_USAGE, exit);
        assertEquals("test-apps " + args[0] + ": " + BAD_PORT + got + System.lineSeparator(), err.toString(UTF_8));
        assertEquals("", out.toString(UTF_8));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " | ", value = {
        "netty-stuck --hold | --hold needs a number of seconds above 0 and at most 3600, got nothing",
        "netty-stuck --hold 0 | --hold needs a number of seconds above 0 and at most 3600, got '0'",
        "netty-stuck --hold -1 | --hold needs a number of seconds above 0 and at most 3600, got '-1'",
        "netty-stuck --hold 3601 | --hold needs a number of seconds above 0 and at most 3600, got '3601'",
        "netty-stuck --hold 1s | --hold needs a number of seconds above 0 and at most 3600, got '1s'",
        "netty-stuck --requests 3 | unknown argument '--requests' (usage: netty-stuck [--hold SECONDS] [--transport nio|epoll])",
        "netty-stuck --hold 2 --port 1 | unknown argument '--port' (usage: netty-stuck [--hold SECONDS] [--transport nio|epoll])",
        "netty-stuck --hold 2 --transport | --transport needs nio or epoll, got nothing",
        "netty-healthy --transport kqueue | --transport needs nio or epoll, got 'kqueue'",
        "netty-slow-handler --transport nio --port 1 | unknown argument '--port' (usage: netty-slow-handler [--transport nio|epoll])",
        "netty-lost-write x | unknown argument 'x' (usage: netty-lost-write [--transport nio|epoll])",
        "slow-callback --apart | --apart needs a number from 0 to 60000, got nothing",
        "slow-callback --apart -5 | --apart needs a number from 0 to 60000, got '-5'",
        "slow-callback --apart 1s | --apart needs a number from 0 to 60000, got '1s'",
        "slow-callback --apart 1 2 | usage: slow-callback [--apart MS]",
        "many-tasks --tasks 0 | --tasks needs a number from 1 to 10000000, got '0'",
        "many-tasks --tasks x | --tasks needs a number from 1 to 10000000, got 'x'"})
    void aScenarioRefusesABadArgumentBeforeItStartsAndExitsTwo(String command, String message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(command.split(" "), new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
        assertEquals(Main.EXIT_USAGE, exit);
        assertEquals("test-apps " + command.split(" ")[0] + ": " + message + System.lineSeparator(), err.toString(UTF_8));
        assertEquals("", out.toString(UTF_8));
    }
}
