package io.loopdiag.agent;

import com.fasterxml.jackson.core.JsonGenerator;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Kind;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every finding of this JVM: occurrences deduplicated by kind and stack, so the same problem seen
 * again only counts. Each new finding prints one block on the log; every occurrence is a JFR
 * event and goes to the JUnit extension's feed, and counts for its loop ({@link #byKind}). Bounded:
 * past {@link #MAX_DISTINCT} distinct findings new ones are only counted as dropped, so a storm
 * cannot exhaust the heap. Any thread.
 */
final class Findings {
    /** Distinct findings kept; a real service has a handful, a storm millions. */
    static final int MAX_DISTINCT = 10_000;

    /**
     * One distinct finding, named (loop, task, message) by its first occurrence, counting every
     * occurrence whatever its loop. Fields other than the key's are updated under the object's lock.
     */
    static final class Finding {
        final Kind kind;
        final String loop;
        final String task;
        final String message;
        final List<String> stack;
        final List<String> createdAt; // null when not recorded
        final Instant firstSeen;
        Instant lastSeen;
        long count;
        long longestMillis;

        Finding(Occurrence occurrence, List<String> stack, Instant now) {
            this.kind = occurrence.kind();
            this.loop = occurrence.loop();
            this.task = occurrence.task();
            this.message = occurrence.message();
            this.stack = stack;
            this.createdAt = occurrence.createdAt() == null ? null : strings(occurrence.createdAt());
            this.firstSeen = now;
            this.lastSeen = now;
            this.count = 1;
            this.longestMillis = occurrence.millis();
        }
    }

    /**
     * What tells findings apart: the kind and the stack, or without a stack (a creation site that
     * was not recorded) the message. A kept finding's key holds the same list as its
     * {@link Finding#stack}, so a finding's frames are kept once.
     */
    private record Key(Kind kind, String message, List<String> stack) {
        static Key of(Kind kind, String message, List<String> stack) {
            return new Key(kind, stack.isEmpty() ? message : null, stack);
        }
    }

    private final Map<Key, Finding> byKey = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    /** Occurrences by the loop's key ({@link Occurrence#loopKey}), then kind; a loop collected is forgotten. Guarded by itself. */
    private final Map<Object, Map<String, Long>> byLoop = new WeakHashMap<>();
    private final PrintStream log; // null when log=off
    private final Runnable onChange;

    /** {@code onChange} runs after each record, on the recording thread: it should only mark work to do. */
    Findings(PrintStream log, Runnable onChange) {
        this.log = log;
        this.onChange = onChange;
    }

    /**
     * Records one occurrence and, if it is a new distinct finding, prints it; returns true if it
     * was new, false if it was seen before or dropped.
     */
    boolean report(Occurrence occurrence) {
        return report(occurrence, null);
    }

    /** Like {@link #report(Occurrence)}, printing {@code note} after the message (not kept in the report). */
    boolean report(Occurrence occurrence, String note) {
        return report(occurrence, note, true);
    }

    /**
     * Like {@link #report(Occurrence, String)}; {@code jfr} false leaves out the JFR event, which
     * the reporter commits itself when the occurrence ends (a blocking call, timed on its thread).
     */
    boolean report(Occurrence occurrence, String note, boolean jfr) {
        boolean created = record(occurrence);
        if (created) {
            print(occurrence, note);
        }
        if (jfr) {
            JfrEvents.emit(occurrence);
        }
        Occurrences.record(occurrence);
        return created;
    }

    /** Prints {@code occurrence} whether or not it is new, with {@code note} after its message (a stall's update). */
    void print(Occurrence occurrence, String note) {
        if (log == null) {
            return;
        }
        String block = block(occurrence, note);
        synchronized (log) {
            log.print(block);
            log.flush();
        }
    }

    /** The block the log prints for {@code occurrence}: a header line, then its frames, each line escaped. */
    static String block(Occurrence occurrence, String note) {
        StringBuilder block = new StringBuilder("loopdiag: ").append(occurrence.kind().id());
        if (occurrence.loop() != null) {
            block.append(" on loop '").append(Text.printable(occurrence.loop())).append('\'');
        }
        block.append(": ").append(Text.printable(occurrence.message()));
        if (note != null) {
            block.append(note);
        }
        block.append('\n');
        appendFrames(block, occurrence.stack());
        if (occurrence.createdAt() != null && !occurrence.createdAt().isEmpty()) {
            block.append("  created at:\n");
            appendFrames(block, occurrence.createdAt());
        }
        return block.toString();
    }

    private static void appendFrames(StringBuilder block, List<StackTraceElement> frames) {
        for (StackTraceElement frame : frames) {
            block.append("    at ").append(Text.printable(frame.toString())).append('\n');
        }
    }

    private boolean record(Occurrence occurrence) {
        List<String> stack = strings(occurrence.stack());
        Instant now = Instant.now();
        boolean[] created = {false};
        Finding finding = byKey.get(Key.of(occurrence.kind(), occurrence.message(), stack));
        if (finding == null) {
            if (byKey.size() >= MAX_DISTINCT) {
                dropped.incrementAndGet();
                onChange.run();
                return false;
            }
            List<String> kept = interned(stack);
            finding = byKey.computeIfAbsent(Key.of(occurrence.kind(), occurrence.message(), kept), k -> {
                created[0] = true;
                return new Finding(occurrence, kept, now);
            });
        }
        if (!created[0]) {
            synchronized (finding) {
                finding.count++;
                finding.lastSeen = now;
                finding.longestMillis = Math.max(finding.longestMillis, occurrence.millis());
            }
        }
        if (occurrence.loopKey() != null) {
            synchronized (byLoop) {
                byLoop.computeIfAbsent(occurrence.loopKey(), key -> new TreeMap<>()).merge(occurrence.kind().id(), 1L, Long::sum);
            }
        }
        onChange.run();
        return created[0];
    }

    /**
     * The frames as the JVM's shared strings: distinct findings share most of their frames (the
     * same callers, the same framework below), so {@link #MAX_DISTINCT} findings of a storm keep
     * each frame's text once, not once per finding. Only a new finding pays for it.
     */
    private static List<String> interned(List<String> frames) {
        String[] out = new String[frames.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = frames.get(i).intern();
        }
        return List.of(out);
    }

    private static List<String> strings(List<StackTraceElement> frames) {
        List<String> out = new ArrayList<>(frames.size());
        for (StackTraceElement frame : frames) {
            out.add(frame.toString());
        }
        return out;
    }

    /**
     * Writes the findings into the object {@code json} is in, as the report and the dump show them:
     * {@value Fields#SUMMARY} (occurrences by kind), {@value Fields#DROPPED}, and
     * {@value Fields#DETECTIONS}, oldest first. Each finding is read once, under its lock, so the
     * summary adds up the counts the detections show.
     */
    void writeTo(JsonGenerator json) throws IOException {
        List<Finding> all = all();
        List<Seen> seen = new ArrayList<>(all.size());
        Map<String, Long> byKind = new TreeMap<>();
        for (Finding f : all) {
            synchronized (f) {
                seen.add(new Seen(f, f.count, f.lastSeen, f.longestMillis));
                byKind.merge(f.kind.id(), f.count, Long::sum);
            }
        }
        json.writeObjectFieldStart(Fields.SUMMARY);
        for (Map.Entry<String, Long> kind : byKind.entrySet()) {
            json.writeNumberField(kind.getKey(), kind.getValue());
        }
        json.writeEndObject();
        json.writeNumberField(Fields.DROPPED, dropped());
        json.writeArrayFieldStart(Fields.DETECTIONS);
        for (Seen one : seen) {
            Finding f = one.finding();
            json.writeStartObject();
            json.writeStringField(Fields.KIND, f.kind.id());
            json.writeStringField(Fields.LOOP, f.loop);
            json.writeStringField(Fields.TASK, f.task);
            json.writeStringField(Fields.MESSAGE, f.message);
            json.writeNumberField(Fields.COUNT, one.count());
            json.writeStringField(Fields.FIRST_SEEN, f.firstSeen.toString());
            json.writeStringField(Fields.LAST_SEEN, one.lastSeen().toString());
            json.writeNumberField(Fields.LONGEST_MILLIS, one.longestMillis());
            strings(json, Fields.STACK, f.stack);
            if (f.createdAt != null) {
                strings(json, Fields.CREATED_AT, f.createdAt);
            }
            json.writeEndObject();
        }
        json.writeEndArray();
    }

    /** A finding's changing fields as one read of them saw them. */
    private record Seen(Finding finding, long count, Instant lastSeen, long longestMillis) {
    }

    private static void strings(JsonGenerator json, String field, List<String> values) throws IOException {
        json.writeArrayFieldStart(field);
        for (String value : values) {
            json.writeString(value);
        }
        json.writeEndArray();
    }

    /** The findings so far, oldest first. */
    List<Finding> all() {
        List<Finding> all = new ArrayList<>(byKey.values());
        all.sort((a, b) -> a.firstSeen.compareTo(b.firstSeen));
        return all;
    }

    /**
     * The occurrences on the loop the watchdog knows by {@code loopKey}, by kind: its own only, of
     * a finding it shares with another loop too (the same kind and stack, one finding in the report).
     */
    Map<String, Long> byKind(Object loopKey) {
        synchronized (byLoop) {
            Map<String, Long> byKind = byLoop.get(loopKey);
            return byKind == null ? Map.of() : new TreeMap<>(byKind);
        }
    }

    long dropped() {
        return dropped.get();
    }
}
