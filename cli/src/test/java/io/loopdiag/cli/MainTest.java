package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

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

    /** The completion script, sourced in a real bash, completes the verbs, a verb's options and completion's own shells. */
    @Test
    void theCompletionScriptCompletesVerbsAndOptionsInBash(@TempDir Path dir) throws Exception {
        assertEquals(ExitCodes.OK, run("completion", "bash"));
        Path script = Files.writeString(dir.resolve("loopdiag.bash"), out.toString());
        assertEquals("dump demo", complete(script, "loopdiag d"));
        assertTrue(complete(script, "loopdiag dump --").matches(".*--json.*--group.*--file.*"), complete(script, "loopdiag dump --"));
        assertEquals("bash zsh", complete(script, "loopdiag completion "));
        assertEquals(ExitCodes.USAGE, run("completion", "fish"));
        assertEquals(1, err.toString().lines().count(), err.toString());
    }

    /** The build's man pages (target/man, from picocli's generator through Asciidoctor): one per verb, with every option. */
    @Test
    void everyVerbHasAManPageWithEveryOption() throws Exception {
        CommandLine root = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true));
        List<CommandLine> commands = new ArrayList<>(root.getSubcommands().values());
        commands.add(0, root);
        for (CommandLine command : commands) {
            String name = command.getCommandSpec().qualifiedName("-");
            String page = Files.readString(Path.of("target/man", name + ".1"));
            assertTrue(page.contains(".TH \"" + name.toUpperCase(Locale.ROOT).replace("-", "\\-") + "\" \"1\""), name + ":\n" + page);
            for (OptionSpec option : command.getCommandSpec().options()) {
                assertTrue(page.contains("\\fB" + option.longestName().replace("-", "\\-") + "\\fP"), name + " " + option.longestName() + ":\n" + page);
            }
        }
    }

    /** What bash offers for {@code line}, the cursor at its end, with {@code script} sourced. */
    private static String complete(Path script, String line) throws Exception {
        String words = line.endsWith(" ") ? line + "''" : line;
        Process bash = new ProcessBuilder("bash", "-c", "source \"$0\"; COMP_LINE=\"$1\"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(" + words
                + "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _complete_loopdiag 2>/dev/null; echo \"${COMPREPLY[*]}\"", script.toString(), line)
                .redirectErrorStream(true).start();
        String output = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, bash.waitFor(), output);
        return output;
    }

    @Test
    void demoWithAMissingAppsJarSaysWhichAndExitsTwo() {
        assertEquals(ExitCodes.USAGE, run("demo", "--apps", "/nonexistent/test-apps.jar"));
        assertTrue(err.toString().contains("/nonexistent/test-apps.jar"), err.toString());
    }

    /** Each bad command line: one line on stderr starting with loopdiag:, saying what is wrong, and exit code 2. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "list --bogus                   | Unknown option: '--bogus'",
        "attach 123 --bogus             | Unknown option: '--bogus'",
        "ps --bogus 123                 | Unknown option: '--bogus'",
        "pstree 123 --bogus             | Unknown option: '--bogus'",
        "dump --json --bogus 123        | Unknown option: '--bogus'",
        "hang --bogus 123               | Unknown option: '--bogus'",
        "hang 123 --samples 1           | --samples needs a number from 2 to 20, got 1",
        "hang 123 --samples x           | Invalid value for option '--samples'",
        "hang 123 --interval soon       | --interval needs a duration such as 500ms or 2s, got 'soon'",
        "hang 0                         | '0' is not a process id",
        "ps --file /nonexistent/d.json  | the dump /nonexistent/d.json: no such file",
        "pstree 123 --file d.json       | give a PID or --file DUMP, not both",
        "hang --file /nonexistent/d.json| hang compares dumps: give --file at least twice",
        "check --bogus r.json           | Unknown option: '--bogus'",
        "run --bogus -- true            | Unknown option: '--bogus'",
        "ps --sort sideways 123         | Invalid value for option '--sort'",
        "check --fail-on nonsense r.json| 'nonsense' is not a kind",
        "ps -5                          | '-5' is not a process id",
        "pstree 0                       | '0' is not a process id",
        "dump abc                       | 'abc' is not a long",
        "dump 99999999999999999999      | '99999999999999999999' is not a long",
        "ps                             | Missing required parameter: 'PID'",
        "dump 123 456                   | Unmatched argument",
        "check                          | Missing required parameter: 'REPORT'",
        "run                            | Missing required parameter: 'COMMAND'",
    })
    void aBadCommandLineIsOneLineAndExitCodeTwo(String commandLine, String expected) {
        assertEquals(ExitCodes.USAGE, run(commandLine.strip().split(" +")), err.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("loopdiag: ") && err.toString().contains(expected), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void controlCharactersInABadArgumentAreEscapedOnItsOneLine() {
        assertEquals(ExitCodes.USAGE, run("ps", "12\n\u001b[2J"));
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().contains("12\\u000a\\u001b[2J"), err.toString());
    }

    /** A dump whose strings hold brackets, quotes and backslashes, as a stack frame or a task's name may. */
    private static final String DUMP = """
            {"schema":"loopdiag-dump/1","pid":7,"loops":[{"id":1,"kind":"loop-core","name":"a } ] \\" [ {","tasks":[\
            {"id":2,"name":"\\\\","stack":["x.Y.z(Y.java:1)","}"]}]}],"findings":{}}""";

    /**
     * {@code dump --json} copies a saved dump as it is, and tells a whole document from one cut
     * short anywhere, or one with something after it.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "whole              | 0 |",
        "whole, blank after | 0 |",
        "cut in a name      | 2 | the document ends before it closes",
        "cut after a task   | 2 | the document ends before it closes",
        "cut in an escape   | 2 | the document ends before it closes",
        "the last brace cut | 2 | the document ends before it closes",
        "content after      | 2 | content after the document",
    })
    void jsonCopiesTheDumpAndFailsOneCutShort(String how, int exitCode, String expected, @TempDir Path temp) throws Exception {
        String text = switch (how) {
            case "whole" -> DUMP;
            case "whole, blank after" -> DUMP + "\n  ";
            case "cut in a name" -> DUMP.substring(0, DUMP.indexOf(" [ {") + 2);
            case "cut after a task" -> DUMP.substring(0, DUMP.indexOf("]}]") + 2);
            case "cut in an escape" -> DUMP.substring(0, DUMP.indexOf("\\\\") + 1);
            case "the last brace cut" -> DUMP.substring(0, DUMP.length() - 1);
            default -> DUMP + " {}";
        };
        Path file = temp.resolve("dump.json");
        Files.writeString(file, text);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            assertEquals(exitCode, run("dump", "--file", file.toString(), "--json"), err.toString());
        } finally {
            System.setOut(stdout);
        }
        if (exitCode == 0) {
            assertEquals(text, printed.toString(StandardCharsets.UTF_8));
            assertEquals("", err.toString());
        } else {
            assertEquals(1, err.toString().lines().count(), err.toString());
            assertTrue(err.toString().startsWith("loopdiag: the dump " + file + " is not a dump (" + expected), err.toString());
        }
    }

    /** main builds only the verb it runs; completion, an unknown word and the root's options see every verb. */
    @Test
    void aCommandLineNamingAVerbBuildsThatVerbAlone() {
        PrintWriter printer = new PrintWriter(out, true);
        java.util.Set<String> all = Main.commandLine(printer, printer).getSubcommands().keySet();
        assertEquals(11, all.size(), all.toString());
        for (String verb : all) {
            java.util.Set<String> built = Main.commandLine(printer, printer, verb).getSubcommands().keySet();
            assertEquals(verb.equals("completion") ? all : java.util.Set.of(verb), built, verb);
        }
        for (String other : new String[] {"--help", "frobnicate", null}) {
            assertEquals(all, Main.commandLine(printer, printer, other).getSubcommands().keySet(), String.valueOf(other));
        }
    }
}
