package io.loopdiag.agent;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every detection of this JVM, deduplicated by kind and stack: the same finding seen again only
 * counts. Each new finding prints one block on the log; every occurrence is a JFR event. Bounded:
 * past {@link #MAX_DISTINCT} distinct findings new ones are only counted as dropped, so a storm
 * cannot exhaust the heap. Any thread.
 */
final class Detections {
    /** Distinct findings kept; a real service has a handful, a storm millions. */
    static final int MAX_DISTINCT = 10_000;

    /**
     * What a detector found.
     *
     * @param loop      the loop's name, or null when no loop is known
     * @param task      the task's name and id ({@code 'fetch' (#3)}), or null
     * @param what      the one-line description after the kind and the loop
     * @param stack     where it happened, innermost first
     * @param createdAt where the task or coroutine concerned was created, or null if not recorded
     */
    record Finding(String kind, String loop, String task, String what, List<StackTraceElement> stack,
                   List<StackTraceElement> createdAt, long millis) {
    }

    /** One distinct finding. Fields other than the key are updated under the object's lock. */
    static final class Detection {
        final String kind;
        final String loop;
        final String task;
        final String message;
        final List<String> stack;
        final List<String> createdAt; // null when not recorded
        final Instant firstSeen;
        Instant lastSeen;
        long count;
        long longestMillis;

        Detection(Finding finding, List<String> stack, Instant now) {
            this.kind = finding.kind();
            this.loop = finding.loop();
            this.task = finding.task();
            this.message = finding.what();
            this.stack = stack;
            this.createdAt = finding.createdAt() == null ? null : strings(finding.createdAt());
            this.firstSeen = now;
            this.lastSeen = now;
            this.count = 1;
            this.longestMillis = finding.millis();
        }
    }

    /**
     * What tells findings apart: the kind and the stack, or without a stack (a creation site that
     * was not recorded) the description. A kept finding's key holds the same list as its
     * {@link Detection#stack}, so a finding's frames are kept once.
     */
    private record Key(String kind, String what, List<String> stack) {
        static Key of(String kind, String what, List<String> stack) {
            return new Key(kind, stack.isEmpty() ? what : null, stack);
        }
    }

    private final Map<Key, Detection> byKey = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    private final PrintStream log; // null when log=off
    private final Runnable onChange;

    /** {@code onChange} runs after each record, on the recording thread: it should only mark work to do. */
    Detections(PrintStream log, Runnable onChange) {
        this.log = log;
        this.onChange = onChange;
    }

    /**
     * Records one occurrence and, if it is a new distinct finding, prints it; returns true if it
     * was new, false if it was seen before or dropped.
     */
    boolean report(Finding finding) {
        return report(finding, null);
    }

    /** Like {@link #report(Finding)}, printing {@code note} after the description (not kept in the report). */
    boolean report(Finding finding, String note) {
        boolean created = record(finding);
        if (created) {
            print(finding, note);
        }
        DetectionEvents.emit(finding);
        Occurrences.record(finding);
        return created;
    }

    /** Prints {@code finding} whether or not it is new, with {@code note} after its description (a stall's update). */
    void print(Finding finding, String note) {
        if (log == null) {
            return;
        }
        String block = block(finding, note);
        synchronized (log) {
            log.print(block);
            log.flush();
        }
    }

    /** The block the log prints for {@code finding}: a header line, then its frames, each line escaped. */
    static String block(Finding finding, String note) {
        StringBuilder block = new StringBuilder("loopdiag: ").append(finding.kind());
        if (finding.loop() != null) {
            block.append(" on loop '").append(Text.printable(finding.loop())).append('\'');
        }
        block.append(": ").append(Text.printable(finding.what()));
        if (note != null) {
            block.append(note);
        }
        block.append('\n');
        appendFrames(block, finding.stack());
        if (finding.createdAt() != null && !finding.createdAt().isEmpty()) {
            block.append("  created at:\n");
            appendFrames(block, finding.createdAt());
        }
        return block.toString();
    }

    private static void appendFrames(StringBuilder block, List<StackTraceElement> frames) {
        for (StackTraceElement frame : frames) {
            block.append("    at ").append(Text.printable(frame.toString())).append('\n');
        }
    }

    private boolean record(Finding finding) {
        List<String> stack = strings(finding.stack());
        Instant now = Instant.now();
        boolean[] created = {false};
        Detection detection = byKey.get(Key.of(finding.kind(), finding.what(), stack));
        if (detection == null) {
            if (byKey.size() >= MAX_DISTINCT) {
                dropped.incrementAndGet();
                onChange.run();
                return false;
            }
            List<String> kept = interned(stack);
            detection = byKey.computeIfAbsent(Key.of(finding.kind(), finding.what(), kept), k -> {
                created[0] = true;
                return new Detection(finding, kept, now);
            });
        }
        if (!created[0]) {
            synchronized (detection) {
                detection.count++;
                detection.lastSeen = now;
                detection.longestMillis = Math.max(detection.longestMillis, finding.millis());
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
     * Puts the findings into {@code parent} as the report and the dump show them: {@code summary}
     * (occurrences by kind), {@code dropped}, and {@code detections}, oldest first.
     */
    void writeTo(ObjectNode parent) {
        ObjectNode summary = parent.putObject("summary");
        parent.put("dropped", dropped());
        ArrayNode list = parent.putArray("detections");
        Map<String, Long> byKind = new TreeMap<>();
        for (Detection d : all()) {
            ObjectNode node = list.addObject();
            synchronized (d) {
                byKind.merge(d.kind, d.count, Long::sum);
                node.put("kind", d.kind);
                node.put("loop", d.loop);
                node.put("task", d.task);
                node.put("message", d.message);
                node.put("count", d.count);
                node.put("firstSeen", d.firstSeen.toString());
                node.put("lastSeen", d.lastSeen.toString());
                node.put("longestMillis", d.longestMillis);
            }
            ArrayNode stack = node.putArray("stack");
            d.stack.forEach(stack::add);
            if (d.createdAt != null) {
                ArrayNode createdAt = node.putArray("createdAt");
                d.createdAt.forEach(createdAt::add);
            }
        }
        byKind.forEach(summary::put);
    }

    /** The findings so far, oldest first. */
    List<Detection> all() {
        List<Detection> all = new ArrayList<>(byKey.values());
        all.sort((a, b) -> a.firstSeen.compareTo(b.firstSeen));
        return all;
    }

    long dropped() {
        return dropped.get();
    }
}
