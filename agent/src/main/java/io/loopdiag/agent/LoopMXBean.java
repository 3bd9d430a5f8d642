package io.loopdiag.agent;

import java.util.Map;

/**
 * One loop's health over the last second, as a platform MXBean {@code io.loopdiag:type=Loop,name=...}:
 * what JConsole, VisualVM and any JMX client see (see {@link LoopStatistics} for each number).
 * Public because the JDK's MXBean introspection requires it; not an API to implement.
 */
public interface LoopMXBean {
    /** The loop's name as the bean's own name has it: {@code NAME (2)} for a second open loop of one name, and so on. */
    String getName();

    String getKind();

    /** Lag probes run in the last interval: none means the lag is not known (a loop without units, or stuck). */
    long getLagSamples();

    double getLagP50Millis();

    double getLagP99Millis();

    double getLagMaxMillis();

    /** The share of the last interval the loop ran work, 0 to 1. */
    double getUtilization();

    double getUnitsPerSecond();

    long getUnits();

    long getReady();

    long getTimers();

    long getTasks();

    long getSuspendedTasks();

    Map<String, Long> getFindingsByKind();
}
