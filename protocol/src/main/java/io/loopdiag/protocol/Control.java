package io.loopdiag.protocol;

/**
 * How the CLI talks to the agent in a running JVM. The agent listens on a Unix domain socket,
 * {@code TMPDIR/loopdiag-USER/PID.sock} (its folder of mode {@code rwx------}), and publishes its
 * path as the system property {@link #PROPERTY}. The CLI connects to that path as it would name it
 * itself, and otherwise reads the property through the JDK's attach mechanism. A client
 * sends one command line ({@link #DUMP} or {@link #INFO}, at most {@link #MAX_COMMAND_BYTES}
 * bytes) and reads one line, a JSON document and its newline: a {@link Schemas#DUMP} document, or
 * {@code {"error": "..."}} ({@link Fields#ERROR}) when the agent refuses. An answer that ends before
 * its newline was cut short.
 */
public final class Control {
    /** The system property holding the control socket's path; absent when the agent does not run. */
    public static final String PROPERTY = "loopdiag.control";
    /** Every loop with its tasks' suspension stacks, and the findings so far. */
    public static final String DUMP = "dump";
    /** The same without stacks: loops and task counts, for {@code loopdiag list}. */
    public static final String INFO = "info";
    /** The longest command line the agent reads; a command is one short word. */
    public static final int MAX_COMMAND_BYTES = 64;
    /** The prefix of the control socket's folder under the temporary directory: {@code loopdiag-USER}. */
    public static final String DIRECTORY_PREFIX = "loopdiag-";

    private Control() {
    }

    /** {@code dump, info}: for messages that list the commands. */
    public static String commands() {
        return DUMP + ", " + INFO;
    }
}
