package io.loopdiag.agent;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every detection of this JVM, deduplicated by kind and stack: the same finding seen again only
 * counts. Bounded: past {@link #MAX_DISTINCT} distinct findings new ones are only counted as
 * dropped, so a storm cannot exhaust the heap. Any thread.
 */
final class Detections {
    /** Distinct findings kept; a real service has a handful, a storm millions. */
    static final int MAX_DISTINCT = 10_000;

    /** One distinct finding. Fields other than the key are updated under the object's lock. */
    static final class Detection {
        final String kind;
        final String loop;
        final String message;
        final List<String> stack;
        final Instant firstSeen;
        Instant lastSeen;
        long count;
        long longestMillis;

        Detection(String kind, String loop, String message, List<String> stack, Instant now, long millis) {
            this.kind = kind;
            this.loop = loop;
            this.message = message;
            this.stack = stack;
            this.firstSeen = now;
            this.lastSeen = now;
            this.count = 1;
            this.longestMillis = millis;
        }
    }

    private final Map<String, Detection> byKey = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    private final Runnable onChange;

    /** {@code onChange} runs after each record, on the recording thread: it should only mark work to do. */
    Detections(Runnable onChange) {
        this.onChange = onChange;
    }

    /**
     * Records one occurrence; returns true if it is a new distinct finding (the caller prints it),
     * false if it was seen before or dropped.
     */
    boolean record(String kind, String loop, String message, List<StackTraceElement> frames, long millis) {
        List<String> stack = new ArrayList<>(frames.size());
        for (StackTraceElement frame : frames) {
            stack.add(frame.toString());
        }
        String key = kind + '\n' + String.join("\n", stack);
        Instant now = Instant.now();
        boolean[] created = {false};
        Detection detection = byKey.get(key);
        if (detection == null) {
            if (byKey.size() >= MAX_DISTINCT) {
                dropped.incrementAndGet();
                onChange.run();
                return false;
            }
            detection = byKey.computeIfAbsent(key, k -> {
                created[0] = true;
                return new Detection(kind, loop, message, List.copyOf(stack), now, millis);
            });
        }
        if (!created[0]) {
            synchronized (detection) {
                detection.count++;
                detection.lastSeen = now;
                detection.longestMillis = Math.max(detection.longestMillis, millis);
            }
        }
        onChange.run();
        return created[0];
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
