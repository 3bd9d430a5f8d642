package io.loopdiag.cli;

import io.loopdiag.protocol.Schemas;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** What every verb that looks into one JVM takes: its process id, and whether to print JSON. */
final class TargetOptions {
    @Parameters(index = "0", paramLabel = "PID", description = "the process id of a JVM of this user")
    long pid;

    @Option(names = "--json", description = "print the dump as JSON (schema " + Schemas.DUMP + ")")
    boolean json;
}
