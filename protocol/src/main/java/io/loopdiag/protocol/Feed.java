package io.loopdiag.protocol;

/**
 * How the JUnit extension reads the agent's findings of one test: through reflection on a public
 * class of the agent in the system class loader, with JDK types only, so neither depends on the
 * other's classes. {@code static long mark()} numbers the next occurrence (it throws
 * {@link IllegalStateException}, saying why, when the agent does not watch this JVM's loops);
 * {@code static List<Map<String, String>> since(long mark)} gives the occurrences from that
 * number on, each as {@link #KIND} and {@link #TEXT}.
 */
public final class Feed {
    /** The class, in the agent, that serves the feed. */
    public static final String CLASS = "io.loopdiag.agent.Occurrences";
    public static final String MARK = "mark";
    public static final String SINCE = "since";
    /** An occurrence's kind ({@link Kind#id}), or {@link #OVERWRITTEN}. */
    public static final String KIND = "kind";
    /** The block the agent's log prints for the occurrence. */
    public static final String TEXT = "text";
    /** The kind of the first entry when older occurrences were no longer kept; its text says how many. */
    public static final String OVERWRITTEN = "overwritten";

    private Feed() {
    }
}
