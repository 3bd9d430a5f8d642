package io.loopdiag.cli;

import io.loopdiag.protocol.Text;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** Entry point of {@code loopdiag}; {@link #commandLine} is the one factory that main and the tests use. */
@Command(name = "loopdiag", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        header = "Finds what makes an event loop slow or stuck.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:ok",
            "1:findings (pstree: a wait cycle; hang: something stuck; check, run: a new finding of a failing kind), or the operation failed"
                    + " (no such process, not a JVM, another user's JVM, no agent or no loop in it, the JVM exited)",
            "2:usage: unknown verb or option, bad argument, a report that cannot be read, no report (check, run)",
            "*:run: the command's own exit code when the command fails"},
        footer = "%nEach verb has --help.")
public class Main implements java.util.concurrent.Callable<Integer> {
    /** The verbs, as the help lists them. */
    private static final List<Class<?>> VERBS = List.of(WithEveryVerb.class.getAnnotation(Command.class).subcommands());

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // Not flushed at each line: a dump of 100,000 tasks is 1.6 million lines, and a write
        // call each took a quarter of the command's time (docs/cli.md, "Start-up"). The verbs
        // that print as they go (top, demo, run) flush when they have printed, as before
        // anything on stderr.
        PrintWriter out = new PrintWriter(System.out, false);
        PrintWriter err = new PrintWriter(System.err, true);
        int code = commandLine(out, err, args.length > 0 ? args[0] : null).execute(args);
        out.flush();
        System.exit(code);
    }

    /** The command with all its verbs, writing to {@code out} and {@code err}. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return commandLine(out, err, null);
    }

    /** The command with every verb, as the man pages describe it (the build generates them from this class). */
    @Command(subcommands = {ListCommand.class, AttachCommand.class, PsCommand.class, PsTreeCommand.class, DumpCommand.class,
        HangCommand.class, TopCommand.class, CheckCommand.class, RunCommand.class, DemoCommand.class, CompletionCommand.class})
    public static final class WithEveryVerb extends Main {
    }

    /**
     * The command with only the verb {@code verb} when it names one (but {@code completion}, which
     * describes them all), else with all of them. picocli builds a verb's model by reflection
     * when it is added, about 0.1 s of every start for all of them (docs/cli.md, "Start-up").
     */
    static CommandLine commandLine(PrintWriter out, PrintWriter err, String verb) {
        CommandLine commandLine = new CommandLine(new Main());
        List<Class<?>> named = VERBS.stream().filter(each -> each.getAnnotation(Command.class).name().equals(verb)).toList();
        for (Class<?> each : named.isEmpty() || "completion".equals(verb) ? VERBS : named) {
            commandLine.addSubcommand(each);
        }
        commandLine.setOut(out);
        commandLine.setErr(err);
        // `loopdiag run mvn -q test`: the command's options are its own, with or without `--`.
        CommandLine run = commandLine.getSubcommands().get("run");
        if (run != null) {
            run.setStopAtPositional(true);
        }
        commandLine.setExitCodeExceptionMapper(e -> ExitCodes.FINDINGS_OR_FAILURE);
        // Bad usage is one line and the hint, never a stack trace or the full help.
        commandLine.setParameterExceptionHandler((e, args) -> {
            CommandLine.Model.CommandSpec failing = e.getCommandLine().getCommandSpec();
            e.getCommandLine().getErr().println("loopdiag: " + Text.printable(String.valueOf(e.getMessage()))
                    + " (see '" + failing.qualifiedName() + " --help')");
            return ExitCodes.USAGE;
        });
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("loopdiag: " + Text.printable(e.getMessage() != null ? e.getMessage() : e.toString()));
            return ExitCodes.FINDINGS_OR_FAILURE;
        });
        return commandLine;
    }

    /** With no verb: the usage on stderr, and the usage exit code. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"loopdiag " + (version != null ? version : "(development)")};
        }
    }
}
