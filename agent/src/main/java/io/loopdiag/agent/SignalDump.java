package io.loopdiag.agent;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.protocol.Text;
import io.loopdiag.views.DumpText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import sun.misc.Signal;

/**
 * {@code kill -USR1 PID} writes the dump, for a JVM the CLI cannot attach to (attach disabled, a
 * container's PID namespace or user, a private temp directory): as the JVM's {@code kill -3}
 * prints its threads, and as an asyncio service prints {@code all_tasks()} on a signal. The same
 * dump as {@code loopdiag dump}: as JSON to the {@code dump} option's file (written whole, then
 * renamed into place, so a reader never sees half of one; {@code loopdiag ps|pstree|dump|hang
 * --file} read it), or else as {@code loopdiag dump} prints it, on stderr. The JVM runs the
 * handler on a thread of its own; no loop is stopped.
 */
final class SignalDump {
    private final Findings findings;
    private final Path file;

    private SignalDump(Findings findings, Path file) {
        this.findings = findings;
        this.file = file;
    }

    /** Handles {@code signal} from now on, or says why it cannot (the agent goes on without it). */
    static void install(String signal, Path file, Findings findings) {
        SignalDump dump = new SignalDump(findings, file);
        try {
            Signal.handle(new Signal(signal), received -> dump.write());
        } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
            System.err.println("loopdiag: cannot handle SIG" + signal + " (" + Text.printable(String.valueOf(e.getMessage()))
                    + "); kill -" + signal + " writes no dump");
        }
    }

    /** One dump; two signals in a row write one after the other. Nothing it meets escapes to the JVM's handler thread. */
    private synchronized void write() {
        try {
            if (file != null) {
                toFile();
            } else {
                toStderr();
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("loopdiag: the dump asked for by a signal failed (" + Text.printable(String.valueOf(e)) + ")");
        }
    }

    private void toFile() throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        Path partial = Files.createTempFile(directory, file.getFileName().toString(), ".partial");
        try {
            try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(partial), 1 << 16)) {
                Dump.write(out, findings, true);
            }
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
        System.err.println("loopdiag: dump written to " + Text.printable(file.toString()) + " (read it with loopdiag dump --file)");
    }

    /** The text {@code loopdiag dump} prints, between two lines that say whose it is, in one write. */
    private void toStderr() throws IOException {
        ByteArrayOutputStream json = new ByteArrayOutputStream(1 << 16);
        Dump.write(json, findings, true);
        StringWriter text = new StringWriter();
        long pid = ProcessHandle.current().pid();
        try (PrintWriter out = new PrintWriter(text); JsonParser parser = new ObjectMapper().createParser(json.toByteArray())) {
            out.println("loopdiag: dump of JVM " + pid + " at " + Instant.now() + ", on a signal");
            if (DumpText.toFirstLoop(parser)) {
                DumpText.print(parser, out, false);
            } else {
                out.println("no open event loop");
            }
            out.println("loopdiag: end of the dump of JVM " + pid);
        }
        System.err.print(text);
        System.err.flush();
    }
}
