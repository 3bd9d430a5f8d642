package io.loopdiag.protocol;

/**
 * The agent's options, as given after {@code -javaagent:loopdiag-agent.jar=} ({@code key=value},
 * comma separated): the names the agent parses and the CLI's {@code run} and {@code attach} build.
 */
public final class AgentOptionNames {
    public static final String SLOW = "slow";
    public static final String BLOCKING = "blocking";
    public static final String REPORT = "report";
    public static final String LOG = "log";
    public static final String ALLOW = "allow";
    /** A regular expression on thread names: matching threads are loop threads for the blocking check. */
    public static final String THREADS = "threads";
    /** The signal on which the agent writes the dump ({@code USR1}): for a JVM the CLI cannot attach to. */
    public static final String SIGNAL = "signal";
    /** Where the dump {@link #SIGNAL} asks for goes, as JSON: a path ({@link #PID_PLACEHOLDER} for the pid); without it, text on stderr. */
    public static final String DUMP = "dump";
    /** Whether the agent keeps every loop's health numbers ({@code on}, the default, or {@code off}). */
    public static final String STATISTICS = "statistics";
    /** In a {@link #REPORT} or {@link #DUMP} path, the JVM's process id: each JVM of a build keeps its own report. */
    public static final String PID_PLACEHOLDER = "%p";
    /** Between options. */
    public static final char SEPARATOR = ',';

    private AgentOptionNames() {
    }

    /** {@code slow, blocking, report, log, allow, threads, signal, dump, statistics}: for messages that list them. */
    public static String all() {
        return String.join(", ", SLOW, BLOCKING, REPORT, LOG, ALLOW, THREADS, SIGNAL, DUMP, STATISTICS);
    }
}
