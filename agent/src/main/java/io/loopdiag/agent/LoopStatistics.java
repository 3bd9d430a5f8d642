package io.loopdiag.agent;

import java.util.Map;

/**
 * One loop's health over the last interval (about a second), as {@link LoopHealth} rolls it:
 * what JMX, JFR, Micrometer and {@code loopdiag top} show.
 *
 * @param key                the loop as the watchdog knows it ({@link WatchedLoop#key}): the loop-core loop, the foreign loop's thread state
 * @param intervalMillis     the interval the rates and the lag are of; 0 for the first
 * @param lagCount           how many lag probes ran in it (none: the lag is not known)
 * @param lagP50Millis       the median of how late a unit started after it became ready
 * @param lagP99Millis       its 99th percentile, or the age of a probe the loop has not run yet if that is more
 * @param lagMaxMillis       its maximum, likewise
 * @param utilization        the share of the interval the loop ran work, 0 to 1
 * @param unitsPerSecond     units of work (callbacks, task steps, Netty tasks and I/O batches, AWT events) started per second
 * @param units              units started since the loop was first seen
 * @param ready              units ready to run (loop-core's ready queue, Netty's pending tasks, the AWT queue)
 * @param timers             timers and scheduled tasks waiting to be due
 * @param tasks              loop-core tasks not done
 * @param suspendedTasks     of those, the suspended ones
 * @param findingsByKind     the occurrences of findings on this loop so far, by kind
 */
record LoopStatistics(Object key, String name, String kind, long intervalMillis, long lagCount, double lagP50Millis, double lagP99Millis,
                      double lagMaxMillis, double utilization, double unitsPerSecond, long units, long ready, long timers,
                      long tasks, long suspendedTasks, Map<String, Long> findingsByKind) {
}
