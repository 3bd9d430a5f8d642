package io.loopdiag.cli;

import io.loopdiag.protocol.AgentOptionNames;
import io.loopdiag.protocol.Text;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag check REPORT...}: the CI gate. Reads the agent's reports, prints the findings
 * per kind with their application frame, and fails (exit 1) on a finding of a failing kind that
 * is not in the baseline.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        header = "Fails a CI build on findings in the agent's reports: exit 1 on a new finding of a failing kind.",
        description = "REPORT is a file the agent wrote (report=PATH) or a folder of them. Exit codes: 0 no new finding"
                + " of a failing kind, 1 there is one, 2 no report at all, a report that says the agent refused its options,"
                + " or a report or the baseline that cannot be read.")
final class CheckCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    CheckOptions options;

    @Parameters(paramLabel = "REPORT", arity = "1..*", description = "Report files, or folders of them.")
    List<Path> reports;

    @Override
    public Integer call() {
        List<Path> files;
        try {
            files = Verdict.reportFiles(reports);
        } catch (Reports.Unreadable e) {
            spec.commandLine().getErr().println("loopdiag: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        if (files.isEmpty()) {
            // No report is no proof of anything: the agent was not loaded, or wrote elsewhere.
            String where = Text.printable(String.join(", ", reports.stream().map(Path::toString).toList()));
            spec.commandLine().getErr().println("loopdiag: no report in " + where + ": the agent wrote none there; load it with"
                    + " -javaagent:loopdiag-agent.jar=report=DIR/loopdiag-" + AgentOptionNames.PID_PLACEHOLDER + ".json,"
                    + " or run the build with loopdiag run -- COMMAND");
            return ExitCodes.USAGE;
        }
        return Verdict.judge(files, options, spec.commandLine().getOut(), spec.commandLine().getErr());
    }
}
