package io.loopdiag.cli;

import picocli.CommandLine.Parameters;

/** What every verb that looks into one JVM takes: its process id. */
final class TargetOptions {
    @Parameters(index = "0", paramLabel = "PID", description = "the process id of a JVM of this user")
    long pid;
}
