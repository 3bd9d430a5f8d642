package io.loopdiag.agent;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One JFR event, {@code io.loopdiag.Detection}, per occurrence of a finding, so that JDK Mission
 * Control and {@code jfr print --events io.loopdiag.Detection} show them beside the JVM's own
 * events. Costs one check when no recording is on. A runtime without the {@code jdk.jfr} module
 * simply gets no events.
 */
final class JfrEvents {
    private static final boolean AVAILABLE = available();

    private JfrEvents() {
    }

    @Name("io.loopdiag.Detection")
    @Label("loopdiag Detection")
    @Category("loopdiag")
    @Description("An occurrence of a loopdiag finding: a slow callback, a loop stall, a blocking call on a loop, a coroutine never awaited, or an exception nobody retrieved")
    @StackTrace(false) // the event's own stack would be the reporting thread's; the occurrence's is in 'stack'
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

    /** Loads the event class at start rather than at the first occurrence, where it would delay the watchdog. */
    static void warmUp() {
        if (AVAILABLE) {
            new OccurrenceEvent().isEnabled();
        }
    }

    static void emit(Occurrence occurrence) {
        if (!AVAILABLE) {
            return;
        }
        OccurrenceEvent event = new OccurrenceEvent();
        if (!event.isEnabled()) {
            return;
        }
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
