package io.loopdiag.agent;

import java.util.Map;

/**
 * The agent itself, as a platform MXBean {@code io.loopdiag:type=Agent}: its version and options,
 * its findings by kind, and those only counted past the distinct ones it keeps. Public because
 * the JDK's MXBean introspection requires it; not an API to implement.
 */
public interface AgentMXBean {
    String getVersion();

    String getOptions();

    int getLoops();

    /** Occurrences of each kind of finding so far, every kind included. */
    Map<String, Long> getFindingsByKind();

    long getDistinctFindings();

    long getDropped();
}
