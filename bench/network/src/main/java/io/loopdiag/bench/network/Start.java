package io.loopdiag.bench.network;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code start [--tool blockhound|none]}: a program that does nothing but start, for timing what a
 * detector adds to a JVM's start ({@code bench/agent-start}). {@code blockhound} installs
 * BlockHound with every integration on the class path (Netty's), as a service does in its
 * {@code main}; the loopdiag agent is timed by starting this JVM with it.
 */
final class Start {
    private Start() {
    }

    static int run(Options options, PrintStream out, PrintStream err) {
        String tool = options.string("tool", "none");
        if (!List.of("blockhound", "none").contains(tool)) {
            throw new IllegalArgumentException("--tool needs blockhound or none, got '" + tool + "'");
        }
        if (tool.equals("blockhound")) {
            BlockHoundSupport.install(BlockHoundSupport.Mode.LOG, err);
        }
        out.println("started");
        return Main.EXIT_OK;
    }
}
