package io.loopdiag.cli;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * What every verb that looks into one JVM takes: its process id, or instead a dump saved from it
 * ({@code loopdiag dump --json PID > DUMP}), read later or elsewhere.
 */
final class TargetOptions {
    @Parameters(index = "0", arity = "0..1", paramLabel = "PID", description = "the process id of a JVM of this user")
    Long pid;

    @Option(names = "--file", paramLabel = "DUMP",
            description = "read a dump saved with 'loopdiag dump --json PID > DUMP' instead of a live JVM")
    List<Path> files;

    /**
     * Checks that a PID or files were given, not both, and at most {@code maxFiles} files (hang
     * compares several); throws the ParameterException picocli prints as one line, exit 2.
     */
    void check(CommandSpec spec, int maxFiles) {
        boolean hasFiles = files != null && !files.isEmpty();
        if (pid == null && !hasFiles) {
            throw new ParameterException(spec.commandLine(), "Missing required parameter: 'PID' (or --file DUMP)");
        }
        if (pid != null && hasFiles) {
            throw new ParameterException(spec.commandLine(), "give a PID or --file DUMP, not both");
        }
        if (hasFiles && files.size() > maxFiles) {
            throw new ParameterException(spec.commandLine(), "--file is given " + files.size() + " times; this verb reads "
                    + (maxFiles == 1 ? "one dump" : "at most " + maxFiles));
        }
    }
}
