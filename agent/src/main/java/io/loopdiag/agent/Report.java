package io.loopdiag.agent;

import com.fasterxml.jackson.core.JsonGenerator;
import io.loopdiag.protocol.AgentOptionNames;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The JSON report ({@link Schemas#REPORT}) at the path of the {@code report} option,
 * replaced atomically (written beside it, then moved over it) at most once a second while
 * findings arrive, and at JVM exit. A killed JVM leaves the last complete report. A report that
 * cannot be written is said once on stderr; the application and the findings go on.
 *
 * <p>Every JVM the agent watched leaves a report once it exits, even an empty one: it is the proof
 * that the agent was there, without which the CI gate could pass a build that ran unwatched. A
 * JVM whose options the agent refused leaves one that says so ({@link #writeRefusal}).
 */
final class Report {
    private static final long WRITE_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** At most these; the umask may take more away. No group or world write, whatever the umask. */
    private static final FileAttribute<Set<PosixFilePermission>> FOLDER = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwxr-xr-x"));
    private static final FileAttribute<Set<PosixFilePermission>> FILE = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rw-r--r--"));

    private final Path path;
    private Findings findings; // set by show, before start
    private SelfCheck selfCheck;
    private final AgentOptions options;
    private final PrintStream log;
    private final Instant started = Instant.now();
    private volatile boolean dirty = true;
    /** False until the JVM runs a loop or has something to say (or exits): until then the writer thread writes nothing. */
    private volatile boolean wanted;
    private boolean warned; // guarded by this

    /** {@code loopCore}: the JVM has loop-core, so the report is written from the start, even empty. */
    Report(Path path, AgentOptions options, PrintStream log, boolean loopCore) {
        this.path = path.toAbsolutePath();
        this.options = options;
        this.log = log;
        this.wanted = loopCore;
    }

    /**
     * Null if a report can be written at {@code path} (its folder is created if needed), else why
     * not: checked at start, so that a typo fails at once rather than at the first finding.
     */
    static String whyNotWritable(Path path) {
        try {
            Path directory = path.toAbsolutePath().getParent();
            Files.createDirectories(directory, FOLDER);
            if (Files.isDirectory(path)) {
                return Text.excerpt(path.toString()) + " is a directory";
            }
            Files.delete(Files.createTempFile(directory, "." + path.getFileName(), ".tmp", FILE));
            return null;
        } catch (IOException | RuntimeException e) {
            // A FileSystemException's message repeats the path; its reason alone says what is wrong.
            String reason = e instanceof FileSystemException f && f.getReason() != null ? f.getReason() : e.getMessage();
            return "cannot write in " + Text.excerpt(path.toAbsolutePath().getParent().toString()) + " ("
                    + e.getClass().getSimpleName() + (reason != null ? ": " + Text.excerpt(reason) : "") + ")";
        }
    }

    /** What the report shows; their change callbacks are this report's {@link #changed}. */
    void show(Findings store, SelfCheck check) {
        this.findings = store;
        this.selfCheck = check;
        check.onChange(this::changed);
    }

    /** Marks the report out of date; the writer thread picks it up within a second. */
    void changed() {
        wanted = true;
        dirty = true;
    }

    /** Starts the writer thread and writes the (empty) report once at once; the exit hook calls {@link #writeAtExit}. */
    void start() {
        write();
        Thread writer = new Thread(() -> {
            while (true) {
                LockSupport.parkNanos(WRITE_EVERY_NANOS);
                if (dirty) {
                    write();
                }
            }
        }, "loopdiag-report");
        writer.setDaemon(true);
        writer.start();
    }

    /** The last write, at JVM exit: always, so that a JVM that ran no loop and found nothing leaves its report too. */
    void writeAtExit() {
        wanted = true;
        write();
    }

    synchronized void write() {
        if (!wanted) {
            return;
        }
        dirty = false;
        try {
            replace(path, started, this::document);
        } catch (IOException | RuntimeException e) {
            if (!warned) {
                warned = true;
                log.println("loopdiag: cannot write the report " + path + " (" + e + "); findings still print, the report is not kept");
            }
        }
    }

    /** What a report holds after its header, written into the open document. */
    @FunctionalInterface
    private interface Body {
        void write(JsonGenerator json) throws IOException;
    }

    /**
     * Writes a report whose header's start is {@code started} and whose {@code body} follows, at
     * {@code path}: beside it first, then moved over it, so no reader sees half of it.
     */
    private static void replace(Path path, Instant started, Body body) throws IOException {
        Path directory = path.getParent();
        Files.createDirectories(directory, FOLDER);
        Path temporary = Files.createTempFile(directory, "." + path.getFileName(), ".tmp", FILE);
        try {
            try (JsonGenerator json = Json.FACTORY.createGenerator(Files.newOutputStream(temporary))) {
                json.useDefaultPrettyPrinter();
                json.writeStartObject();
                json.writeStringField(Fields.SCHEMA, Schemas.REPORT);
                json.writeNumberField(Fields.PID, ProcessHandle.current().pid());
                json.writeStringField(Fields.STARTED, started.toString());
                json.writeStringField(Fields.WRITTEN, Instant.now().toString());
                body.write(json);
                json.writeEndObject();
            }
            try {
                Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /**
     * The agent refused {@code rawOptions} for {@code why} and watches nothing: if they name a
     * report path that can be written, a report saying so is written there, with no findings, so
     * that {@code loopdiag check} fails on it. Never throws; on any failure, nothing is written.
     */
    static void writeRefusal(String rawOptions, String why) {
        try {
            Path path = null;
            for (String pair : rawOptions.split(String.valueOf(AgentOptionNames.SEPARATOR))) {
                String option = pair.strip();
                if (option.startsWith(AgentOptionNames.REPORT + "=")) {
                    path = AgentOptions.pathWithPid(option.substring(AgentOptionNames.REPORT.length() + 1).strip());
                }
            }
            if (path == null || whyNotWritable(path) != null) {
                return;
            }
            replace(path.toAbsolutePath(), Instant.now(), json -> {
                json.writeStringField(Fields.REFUSED, why);
                new Findings(null, () -> { }).writeTo(json);
            });
        } catch (IOException | RuntimeException unwritten) {
            // The refusal is on stderr already; the report is a second voice, not a necessary one.
        }
    }

    private void document(JsonGenerator json) throws IOException {
        json.writeObjectFieldStart(Fields.OPTIONS);
        json.writeNumberField(Fields.SLOW_MILLIS, options.slow().toMillis());
        json.writeStringField(Fields.BLOCKING, options.blocking().id());
        json.writeEndObject();
        json.writeArrayFieldStart(Fields.SELF_CHECK);
        for (String problem : selfCheck.problems()) {
            json.writeString(problem);
        }
        json.writeEndArray();
        findings.writeTo(json);
    }
}
