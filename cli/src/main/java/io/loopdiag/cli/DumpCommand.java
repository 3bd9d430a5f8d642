package io.loopdiag.cli;

import com.fasterxml.jackson.core.JsonParser;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.views.DumpText;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag dump PID}: per loop, what it runs now and for how long with the loop thread's
 * stack, its queues, then every task's suspension stack, what it awaits, since when and where it
 * was created; then the findings so far. Reads like a goroutine dump.
 */
@Command(name = "dump", mixinStandardHelpOptions = true,
        header = "Prints every task's suspension stack, per loop, and what each loop runs now.")
final class DumpCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target;

    @Option(names = "--json", description = "print the dump as the agent wrote it, as JSON (schema " + Schemas.DUMP + ")")
    boolean json;

    @Option(names = "--group", description = "print tasks with the same stack and the same wait once, with their count and ids"
            + " (holds each loop's tasks, where the plain dump prints them as they come)")
    boolean group;

    @Override
    public Integer call() throws Exception {
        return Verbs.stream(spec, target, json, (parser, out) -> print(parser, out, group));
    }

    /** Prints the dump as it arrives ({@link DumpText#print}), then reads the rest of the answer; returns the exit code. */
    static int print(JsonParser parser, PrintWriter out, boolean group) throws IOException {
        DumpText.print(parser, out, group);
        DumpText.readToEnd(parser);
        return ExitCodes.OK;
    }
}
