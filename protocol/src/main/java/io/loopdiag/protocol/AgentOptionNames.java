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
    /** In a {@link #REPORT} path, the JVM's process id: each JVM of a build keeps its own report. */
    public static final String PID_PLACEHOLDER = "%p";
    /** Between options. */
    public static final char SEPARATOR = ',';

    private AgentOptionNames() {
    }

    /** {@code slow, blocking, report, log, allow, threads}: for messages that list them. */
    public static String all() {
        return String.join(", ", SLOW, BLOCKING, REPORT, LOG, ALLOW, THREADS);
    }
}
