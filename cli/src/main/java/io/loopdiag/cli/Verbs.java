package io.loopdiag.cli;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.Control;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.Text;
import io.loopdiag.views.DumpText;
import io.loopdiag.views.Views;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.BiConsumer;
import picocli.CommandLine.Model.CommandSpec;

/** What the verbs that read a dump share: fetch it, print JSON or the verb's view, map failures to exit codes. */
final class Verbs {

    private Verbs() {
    }

    /** Dumps the target and prints it with {@code view}; returns the exit code. */
    static int run(CommandSpec spec, TargetOptions options, BiConsumer<JsonNode, PrintWriter> view) throws Exception {
        return runWith(spec, options, (dump, out) -> {
            view.accept(dump, out);
            return ExitCodes.OK;
        });
    }

    /** Like {@link #run}, for a view that decides the exit code (pstree: 1 when it finds a cycle). */
    static int runWith(CommandSpec spec, TargetOptions options, View view) throws Exception {
        options.check(spec, 1);
        if (options.files == null) {
            return stream(spec, options, false, (parser, out) -> view.print(readTree(parser, options.pid), out));
        }
        PrintWriter out = spec.commandLine().getOut();
        try {
            JsonNode dump = readDump(options.files.get(0));
            if (dump.path(Fields.LOOPS).isEmpty()) {
                spec.commandLine().getErr().println("loopdiag: the dump " + Text.printable(options.files.get(0).toString())
                        + " has no open event loop");
                return ExitCodes.FINDINGS_OR_FAILURE;
            }
            int code = view.print(dump, out);
            out.flush();
            return code;
        } catch (Failure failure) {
            spec.commandLine().getErr().println("loopdiag: " + failure.getMessage());
            return failure.exitCode;
        }
    }

    /**
     * Dumps the target (or reads its dump from {@code --file}) and gives {@code view} the dump as
     * it arrives, its parser on the first loop; with {@code rawJson}, prints the dump as the agent
     * wrote it instead. A dump cut short (the JVM died during it) fails after what was printed,
     * with one line; returns the exit code.
     */
    static int stream(CommandSpec spec, TargetOptions options, boolean rawJson, StreamedView view) throws Exception {
        options.check(spec, 1);
        PrintWriter out = spec.commandLine().getOut();
        try {
            int code;
            String source;
            if (options.files != null) {
                Path file = options.files.get(0);
                source = "the dump " + Text.printable(file.toString());
                try (InputStream in = Files.newInputStream(file)) {
                    code = read(in, false, rawJson, view, out, error -> new Failure(source + " is the agent's refusal: " + Text.printable(error),
                            ExitCodes.USAGE));
                } catch (NoSuchFileException e) {
                    throw new Failure(source + ": no such file", ExitCodes.USAGE);
                } catch (JsonProcessingException e) {
                    String why = e instanceof JsonEOFException ? ENDS_UNCLOSED : e.getOriginalMessage();
                    throw new Failure(source + " is not a dump (" + Text.printable(why) + ")", ExitCodes.USAGE);
                }
            } else {
                ControlClient target = new ControlClient(Jvm.of(options.pid));
                source = "JVM " + options.pid;
                code = target.request(Control.DUMP, answer -> read(answer, true, rawJson, view, out, target::agentError));
            }
            out.flush();
            if (code == NO_LOOP) {
                spec.commandLine().getErr().println("loopdiag: " + source + " has no open event loop");
                return ExitCodes.FINDINGS_OR_FAILURE;
            }
            return code;
        } catch (Failure failure) {
            out.flush();
            spec.commandLine().getErr().println("loopdiag: " + failure.getMessage());
            return failure.exitCode;
        }
    }

    /**
     * Reads a dump from {@code answer} into {@code view} (or to stdout as it is, {@code rawJson});
     * the view's exit code or {@link #NO_LOOP}. {@code fromAgent}: the answer is the agent's, one
     * line ({@link Control}), else a file's, one JSON document.
     */
    private static int read(InputStream answer, boolean fromAgent, boolean rawJson, StreamedView view, PrintWriter out,
                            java.util.function.Function<String, Failure> refusal) throws IOException, Failure {
        // --json passes the dump on as it was written, bytes to bytes, held until it is known to
        // be one (a dump of 100,000 tasks is tens of megabytes: neither kept nor turned into a
        // tree). The agent's answer is whole when it ends with its newline, and not decoded past
        // its first loop; a file is read to its end by the parser, which tells a document cut short.
        CopyingStream copy = new CopyingStream(answer, rawJson);
        try (JsonParser parser = rawJson ? Json.STREAMS.createParser(copy) : Json.mapper().createParser(copy)) {
            try {
                if (!DumpText.toFirstLoop(parser)) {
                    return NO_LOOP;
                }
            } catch (DumpText.Refusal refused) {
                throw refusal.apply(refused.getMessage());
            }
            if (!rawJson) {
                return view.print(parser, out);
            }
            out.flush();
            copy.release(System.out);
            if (fromAgent) {
                copy.copyLine();
            } else {
                toDocumentEnd(parser);
            }
            System.out.flush();
            return ExitCodes.OK;
        }
    }

    private static final String ENDS_UNCLOSED = "the document ends before it closes";

    /** Reads past the end of the document {@code parser} is in, and fails on anything after it. */
    private static void toDocumentEnd(JsonParser parser) throws IOException {
        while (!parser.getParsingContext().inRoot()) {
            parser.skipChildren();
            if (parser.nextToken() == null) {
                throw new JsonEOFException(parser, null, ENDS_UNCLOSED);
            }
        }
        if (parser.nextToken() != null) {
            throw new JsonParseException(parser, "content after the document");
        }
    }

    /** Reads a whole dump saved in {@code file} as a tree; a file that is no dump is a usage failure (exit 2). */
    static JsonNode readDump(Path file) throws Failure {
        String source = "the dump " + Text.printable(file.toString());
        try (InputStream in = Files.newInputStream(file); JsonParser parser = Json.mapper().createParser(in)) {
            JsonNode dump = parser.readValueAsTree();
            if (dump == null || !dump.isObject() || !Schemas.DUMP.equals(dump.path(Fields.SCHEMA).asText())) {
                throw new Failure(source + " is not a dump (no schema " + Schemas.DUMP + "): save one with 'loopdiag dump --json PID'",
                        ExitCodes.USAGE);
            }
            return dump;
        } catch (NoSuchFileException e) {
            throw new Failure(source + ": no such file", ExitCodes.USAGE);
        } catch (IOException e) {
            throw new Failure(source + " cannot be read (" + Text.printable(String.valueOf(e.getMessage())) + ")", ExitCodes.USAGE);
        }
    }

    /** What {@link #stream}'s reader returns when the dump has no loop (not an exit code). */
    private static final int NO_LOOP = -1;

    /** The rest of the dump, from its first loop on, as a tree with {@code pid}, {@code loops} and what follows them. */
    private static JsonNode readTree(JsonParser parser, long pid) throws IOException {
        ObjectNode dump = Json.mapper().createObjectNode();
        dump.put(Fields.PID, pid);
        ArrayNode loops = dump.putArray(Fields.LOOPS);
        while (parser.currentToken() == JsonToken.START_OBJECT) {
            loops.add((JsonNode) parser.readValueAsTree());
            parser.nextToken();
        }
        readRest(parser, dump);
        return dump;
    }

    /** The fields after the dump's loops (the findings) into {@code into}, then the rest of the answer to its end. */
    static void readRest(JsonParser parser, ObjectNode into) throws IOException {
        DumpText.readFields(parser, into);
        DumpText.readToEnd(parser);
    }

    /** A view that reads the dump as it arrives, from its parser on the first loop, to the end; returns the exit code. */
    @FunctionalInterface
    interface StreamedView {
        int print(JsonParser parser, PrintWriter out) throws IOException;
    }

    /** Passes on what is read, held until {@link #release} and then straight to the sink; or nothing, if not asked to copy. */
    private static final class CopyingStream extends java.io.FilterInputStream {
        private java.io.ByteArrayOutputStream held;
        private java.io.OutputStream sink;
        /** The last byte read, or -1. */
        private int last = -1;

        CopyingStream(java.io.InputStream in, boolean copy) {
            super(in);
            this.held = copy ? new java.io.ByteArrayOutputStream() : null;
        }

        void release(java.io.OutputStream to) throws IOException {
            held.writeTo(to);
            held = null;
            sink = to;
        }

        /** Copies the rest of an answer of the agent's; fails if it ends before its newline, cut short. */
        void copyLine() throws IOException {
            byte[] buffer = new byte[1 << 16];
            while (read(buffer, 0, buffer.length) >= 0) {
                // read copies
            }
            if (last != '\n') {
                throw new JsonEOFException(null, null, "the answer ends before its newline");
            }
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                last = buffer[offset + n - 1];
                if (sink != null) {
                    sink.write(buffer, offset, n);
                } else if (held != null) {
                    held.write(buffer, offset, n);
                }
            }
            return n;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public long skip(long count) throws IOException {
            return read(new byte[(int) Math.min(count, 8192)], 0, (int) Math.min(count, 8192));
        }
    }

    /** A view that returns its exit code. */
    @FunctionalInterface
    interface View {
        int print(JsonNode dump, PrintWriter out);
    }
}
