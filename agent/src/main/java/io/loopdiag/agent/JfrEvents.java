package io.loopdiag.agent;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Frequency;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Percentage;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One JFR event, {@code io.loopdiag.Detection}, per occurrence of a finding, so that JDK Mission
 * Control and {@code jfr print --events io.loopdiag.Detection} show them beside the JVM's own
 * events. Where the agent sees an occurrence begin, the event spans it: a blocking call from its
 * entry to its return, committed on the loop thread (so the event's JFR stack trace is the call's
 * own), a slow callback from the watchdog's first sight of it to its end. Costs one check when no
 * recording is on. A runtime without the {@code jdk.jfr} module simply gets no events.
 */
final class JfrEvents {
    private static final boolean AVAILABLE = available();

    private JfrEvents() {
    }

    @Name("io.loopdiag.Detection")
    @Label("loopdiag Detection")
    @Category("loopdiag")
    @Description("An occurrence of a loopdiag finding: a slow callback, a loop stall, a blocking call on a loop, a coroutine never awaited, or an exception nobody retrieved")
    @StackTrace(true) // the committing thread's: the loop thread's own for a blocking call; the occurrence's is in 'stack'
    static final class OccurrenceEvent extends Event {
        @Label("Kind")
        String kind;
        @Label("Loop")
        String loop;
        @Label("Task")
        String task;
        @Label("Message")
        String message;
        @Label("Milliseconds")
        long millis;
        @Label("Stack")
        String stack;
    }

    @Name("io.loopdiag.LoopStatistics")
    @Label("loopdiag Loop Statistics")
    @Category("loopdiag")
    @Description("A loop's health over the last second: how late units of work started, how busy it was, how much it ran and what waits on it")
    @Period("1 s")
    @StackTrace(false)
    static final class StatisticsEvent extends Event {
        @Label("Loop")
        String loop;
        @Label("Kind")
        String kind;
        @Label("Lag Samples")
        long lagSamples;
        @Label("Lag p50")
        @Timespan(Timespan.NANOSECONDS)
        long lagP50;
        @Label("Lag p99")
        @Timespan(Timespan.NANOSECONDS)
        long lagP99;
        @Label("Lag Max")
        @Timespan(Timespan.NANOSECONDS)
        long lagMax;
        @Label("Utilization")
        @Percentage
        double utilization;
        @Label("Units per Second")
        @Frequency
        double unitsPerSecond;
        @Label("Ready")
        long ready;
        @Label("Timers")
        long timers;
        @Label("Tasks")
        long tasks;
        @Label("Suspended Tasks")
        long suspendedTasks;
    }

    /**
     * Registers {@code io.loopdiag.LoopStatistics} as a periodic event (every second by default,
     * the usual {@code period} setting changes it), one per loop from {@code health}'s latest numbers.
     */
    static void statistics(LoopHealth health) {
        if (!AVAILABLE) {
            return;
        }
        FlightRecorder.addPeriodicEvent(StatisticsEvent.class, () -> {
            for (LoopStatistics loop : health.latest()) {
                StatisticsEvent event = new StatisticsEvent();
                event.loop = loop.name();
                event.kind = loop.kind();
                event.lagSamples = loop.lagCount();
                event.lagP50 = Math.round(loop.lagP50Millis() * 1e6);
                event.lagP99 = Math.round(loop.lagP99Millis() * 1e6);
                event.lagMax = Math.round(loop.lagMaxMillis() * 1e6);
                event.utilization = loop.utilization();
                event.unitsPerSecond = loop.unitsPerSecond();
                event.ready = loop.ready();
                event.timers = loop.timers();
                event.tasks = loop.tasks();
                event.suspendedTasks = loop.suspendedTasks();
                event.commit();
            }
        });
    }

    /** Loads the event class at start rather than at the first occurrence, where it would delay the watchdog. */
    static void warmUp() {
        if (AVAILABLE) {
            new OccurrenceEvent().isEnabled();
        }
    }

    /** An event begun now, for an occurrence that may start now, or null when no recording wants one. */
    static Object begin() {
        if (!AVAILABLE) {
            return null;
        }
        OccurrenceEvent event = new OccurrenceEvent();
        if (!event.isEnabled()) {
            return null;
        }
        event.begin();
        return event;
    }

    /** An event of {@code occurrence} from now: no duration. */
    static void emit(Occurrence occurrence) {
        commit(begin(), occurrence);
    }

    /** Commits {@code begun} (from {@link #begin}; null: nothing is recorded) as the event of {@code occurrence}, ending now. */
    static void commit(Object begun, Occurrence occurrence) {
        if (!AVAILABLE || begun == null) {
            return;
        }
        OccurrenceEvent event = (OccurrenceEvent) begun;
        event.kind = occurrence.kind().id();
        event.loop = occurrence.loop();
        event.task = occurrence.task();
        event.message = occurrence.message();
        event.millis = occurrence.millis();
        StringBuilder stack = new StringBuilder();
        for (StackTraceElement frame : occurrence.stack()) {
            stack.append(frame).append('\n');
        }
        event.stack = stack.toString();
        event.commit();
    }

    private static boolean available() {
        try {
            Class.forName("jdk.jfr.Event");
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
