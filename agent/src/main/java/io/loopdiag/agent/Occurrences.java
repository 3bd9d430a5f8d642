package io.loopdiag.agent;

import io.loopdiag.protocol.Feed;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The latest occurrences of findings, numbered, for the JUnit extension ({@code loopdiag-junit}):
 * the feed {@link Feed} describes. It calls {@link #mark} before each test and {@link #since}
 * after it, through reflection, so only JDK types cross. Recording starts at the first mark; an
 * application without the extension pays nothing. Loaded by the system class loader with the
 * rest of the agent; any thread. Its name and its methods' are {@link Feed#CLASS},
 * {@link Feed#MARK} and {@link Feed#SINCE}: renaming them here breaks the extension.
 */
public final class Occurrences {
    /** Occurrences kept; a test that sees more is failed by the first ones anyway. */
    static final int CAPACITY = 1024;

    // Until the agent starts: its jar is on the class path (a test dependency), but no -javaagent started it.
    private static volatile String notWatching = "the loopdiag agent's jar is on the class path but the agent was not started in this JVM"
            + " (add -javaagent:PATH/loopdiag-agent.jar to the test JVM, e.g. in Surefire's argLine)";
    private static volatile Occurrences recording; // null until the first mark

    private final Occurrence[] ring = new Occurrence[CAPACITY];
    private long next; // guarded by this: the number the next occurrence gets

    private Occurrences() {
    }

    /** Called once the agent watches this JVM's loops ({@code why} null) or has found that it cannot. */
    static void watching(String why) {
        notWatching = why;
    }

    /**
     * Records one occurrence if the extension is listening: without its loop's key, which the feed
     * does not show, so that the ring keeps no closed loop reachable.
     */
    static void record(Occurrence occurrence) {
        Occurrences occurrences = recording;
        if (occurrences != null) {
            Occurrence kept = occurrence.loopKey() == null ? occurrence : occurrence.withLoopKey(null);
            synchronized (occurrences) {
                occurrences.ring[(int) (occurrences.next++ % CAPACITY)] = kept;
            }
        }
    }

    /**
     * The number of the next occurrence, to pass to {@link #since}.
     *
     * @throws IllegalStateException if the agent does not watch this JVM's loops, saying why
     */
    public static long mark() {
        String why = notWatching;
        if (why != null) {
            throw new IllegalStateException(why);
        }
        synchronized (Occurrences.class) {
            if (recording == null) {
                recording = new Occurrences();
            }
        }
        synchronized (recording) {
            return recording.next;
        }
    }

    /**
     * The occurrences numbered {@code mark} and later, oldest first, each as {@link Feed#KIND} and
     * {@link Feed#TEXT} (the block the log prints). If some were no longer kept, the first entry has
     * kind {@link Feed#OVERWRITTEN} and says how many.
     */
    public static List<Map<String, String>> since(long mark) {
        Occurrences occurrences = recording;
        List<Map<String, String>> out = new ArrayList<>();
        if (occurrences == null) {
            return out;
        }
        List<Occurrence> found = new ArrayList<>();
        long lost;
        synchronized (occurrences) {
            long first = Math.max(mark, occurrences.next - CAPACITY);
            lost = first - mark;
            for (long n = first; n < occurrences.next; n++) {
                found.add(occurrences.ring[(int) (n % CAPACITY)]);
            }
        }
        if (lost > 0) {
            out.add(Map.of(Feed.KIND, Feed.OVERWRITTEN, Feed.TEXT, lost + " earlier occurrences were not kept"));
        }
        for (Occurrence occurrence : found) {
            out.add(Map.of(Feed.KIND, occurrence.kind().id(), Feed.TEXT, Findings.block(occurrence, null)));
        }
        return out;
    }
}
