package io.loopdiag.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.Schemas;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the agent's JSON reports ({@link Schemas#REPORT}) into findings, merging the same
 * finding seen by several JVMs. Reads as a stream, one detection at a time, keeping only the fields
 * it uses, and refuses what the agent never writes (a file over {@link #MAX_REPORT_BYTES}, more
 * detections than it keeps, a stack deeper than a JVM records, nesting deeper than a report has), so
 * a hostile or huge file costs bounded memory. Any failure is an {@link Unreadable} with one line.
 */
final class Reports {
    /** The agent keeps at most this many distinct findings per JVM. */
    static final int MAX_DETECTIONS = 10_000;
    /** Larger than any report: 10,000 findings of several kilobytes each. A larger file is refused unread. */
    static final long MAX_REPORT_BYTES = 64L << 20;
    /** Frames per stack: far more than a JVM records (-XX:MaxJavaStackTraceDepth, 1024 by default). */
    static final int MAX_FRAMES = 1 << 16;
    /** Deeper than any report; a file nested deeper is not one. */
    private static final int MAX_DEPTH = 16;
    private static final int MAX_STRING = 1 << 20;

    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).maxStringLength(MAX_STRING)
                    .maxDocumentLength(MAX_REPORT_BYTES).build())
            .build());

    /** A report that cannot be read, said in one line naming the file. */
    static final class Unreadable extends Exception {
        Unreadable(String message) {
            super(message);
        }
    }

    /**
     * One distinct finding across the reports read.
     *
     * @param fingerprint what identifies it across runs: its kind and stack without line numbers
     * @param frame       the innermost application frame of its stack (or of its creation site when it has no
     *                    stack), or null if it has neither
     */
    record Finding(String kind, String loop, String task, String message, long count, List<String> stack,
                   List<String> createdAt, String fingerprint, Frame frame) {

        Finding plus(long more) {
            return new Finding(kind, loop, task, message, count + more, stack, createdAt, fingerprint, frame);
        }
    }

    private Reports() {
    }

    /** The findings of every report in {@code paths}, merged by fingerprint, in the order first seen. */
    static List<Finding> read(List<Path> paths) throws Unreadable {
        Map<String, Finding> merged = new LinkedHashMap<>();
        for (Path path : paths) {
            for (Finding finding : readOne(path)) {
                merged.merge(finding.fingerprint(), finding, (old, again) -> old.plus(again.count()));
            }
        }
        return new ArrayList<>(merged.values());
    }

    private static List<Finding> readOne(Path file) throws Unreadable {
        String path = Text.printable(file.toString()); // as the messages name it
        List<Finding> findings = new ArrayList<>();
        String schema = null;
        try {
            long size = Files.isRegularFile(file) ? Files.size(file) : 0;
            if (size > MAX_REPORT_BYTES) {
                throw new Unreadable(path + ": " + (size >> 20) + " MB, larger than any report the agent writes (at most "
                        + (MAX_REPORT_BYTES >> 20) + " MB are read): not a loopdiag report");
            }
        } catch (IOException e) {
            // Unreadable: said below, where it is opened.
        }
        try (JsonParser parser = JSON.createParser(Files.newInputStream(file))) {
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new Unreadable(path + (first == null ? ": empty, not a loopdiag report" : ": not a loopdiag report (not a JSON object)"));
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals(Fields.SCHEMA)) {
                    schema = parser.getValueAsString();
                    if (!Schemas.REPORT.equals(schema)) {
                        throw wrongSchema(path, schema);
                    }
                } else if (field.equals(Fields.REFUSED)) {
                    // A JVM ran unwatched: the gate must not pass it, whatever else the reports say.
                    throw new Unreadable(path + ": the agent refused its options and watched nothing ("
                            + Text.printable(parser.getValueAsString("")) + "); correct them");
                } else if (field.equals(Fields.DETECTIONS) && value == JsonToken.START_ARRAY) {
                    while (parser.nextToken() != JsonToken.END_ARRAY) {
                        if (findings.size() == MAX_DETECTIONS) {
                            throw new Unreadable(path + ": more than " + MAX_DETECTIONS
                                    + " detections, which the agent never writes: not a loopdiag report");
                        }
                        findings.add(finding(path, parser));
                    }
                } else {
                    parser.skipChildren();
                }
            }
            if (parser.currentToken() != JsonToken.END_OBJECT || parser.nextToken() != null) {
                throw new Unreadable(path + ": not valid JSON (unexpected content after the report)");
            }
        } catch (NoSuchFileException e) {
            throw new Unreadable(path + ": no such file");
        } catch (JsonProcessingException e) {
            String why = e.getOriginalMessage().lines().findFirst().orElse("").replaceFirst(" \\(start marker at .*", "");
            throw new Unreadable(path + ": not valid JSON (" + Text.printable(why)
                    + (e.getLocation() != null ? ", line " + e.getLocation().getLineNr() : "") + ")");
        } catch (IOException e) {
            throw new Unreadable(path + ": cannot be read (" + e.getClass().getSimpleName()
                    + (e.getMessage() != null ? ": " + Text.printable(e.getMessage()) : "") + ")");
        }
        if (schema == null) {
            throw wrongSchema(path, null);
        }
        return findings;
    }

    private static Unreadable wrongSchema(String path, String schema) {
        return new Unreadable(path + ": not a loopdiag report (schema " + (schema == null ? "missing" : "'" + Text.printable(schema) + "'")
                + ", expected " + Schemas.REPORT + ")");
    }

    /** The detection the parser is on (its START_OBJECT), read field by field: only what a finding keeps is kept. */
    private static Finding finding(String path, JsonParser parser) throws IOException, Unreadable {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            throw new Unreadable(path + ": a detection that is not a JSON object: not a loopdiag report");
        }
        String kind = "";
        String loop = null;
        String task = null;
        String message = "";
        long count = 1;
        List<String> stack = List.of();
        List<String> createdAt = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (field) {
                case Fields.KIND -> kind = Text.printable(parser.getValueAsString(""));
                case Fields.LOOP -> loop = value == JsonToken.VALUE_STRING ? parser.getText() : null;
                case Fields.TASK -> task = value == JsonToken.VALUE_STRING ? parser.getText() : null;
                case Fields.MESSAGE -> message = parser.getValueAsString("");
                case Fields.COUNT -> count = Math.max(1, parser.getValueAsLong(1));
                case Fields.STACK -> stack = frames(path, parser);
                case Fields.CREATED_AT -> createdAt = value == JsonToken.START_ARRAY ? frames(path, parser) : null;
                default -> { }
            }
            parser.skipChildren();
        }
        if (kind.isEmpty()) {
            throw new Unreadable(path + ": a detection without a kind: not a loopdiag report");
        }
        List<String> identifying = !stack.isEmpty() ? stack : createdAt != null ? createdAt : List.of();
        return new Finding(kind, loop, task, message, count, stack, createdAt, fingerprint(kind, message, identifying),
                Frame.application(identifying));
    }

    /** The strings of the array the parser is on, up to {@link #MAX_FRAMES}; anything else is no frames. */
    private static List<String> frames(String path, JsonParser parser) throws IOException, Unreadable {
        List<String> frames = new ArrayList<>();
        if (parser.currentToken() != JsonToken.START_ARRAY) {
            return frames;
        }
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            if (frames.size() == MAX_FRAMES) {
                throw new Unreadable(path + ": a stack of more than " + MAX_FRAMES + " frames, which no JVM records: not a loopdiag report");
            }
            frames.add(parser.getValueAsString(""));
            parser.skipChildren();
        }
        return frames;
    }

    /**
     * Kind and frames without line numbers or class loaders, hashed: an edit that moves code keeps
     * a finding's fingerprint, a change of what calls what does not. Without frames, the message.
     */
    static String fingerprint(String kind, String message, List<String> frames) {
        StringBuilder key = new StringBuilder(kind);
        if (frames.isEmpty()) {
            key.append('\n').append(message);
        }
        for (String frame : frames) {
            key.append('\n').append(Frame.parse(frame).withoutLine());
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is in every JDK", e);
        }
    }
}
