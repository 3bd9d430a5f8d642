package io.loopdiag.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.agent.boot.LoopThread;
import io.loopdiag.protocol.LoopKinds;
import java.awt.AWTEvent;
import java.awt.EventQueue;
import java.awt.event.ActionEvent;
import java.awt.event.InvocationEvent;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.asm.Advice;

/**
 * The AWT/Swing event dispatch thread: a unit of work is one event dispatched by
 * {@code EventQueue.dispatchEvent} (a nested dispatch, under a modal dialog, is a unit of its own).
 * The thread's wait for the next event runs between units. Loaded only once an event was
 * dispatched, so an application without AWT never loads AWT because of the agent.
 */
final class AwtLoops {
    private static final String EVENT_QUEUE = "java.awt.EventQueue";
    static final String DISPATCH_THREAD = "java.awt.EventDispatchThread";
    private static volatile Field queues;
    private static volatile Field head;
    private static volatile Field next;

    private AwtLoops() {
    }

    static List<Hook> hooks() {
        return List.of(new Hook(EVENT_QUEUE, EVENT_QUEUE + "#dispatchEvent(AWTEvent)",
                named("dispatchEvent").and(takesArguments(1)), Advice.to(Dispatch.class),
                "AWT events are neither timed nor checked for blocking calls").checked(Hook.Check.IF_LOADED));
    }

    /** Lets the agent read the event queue's length (its private lists), for the dump. */
    static void open(Instrumentation instrumentation) {
        Module desktop = ModuleLayer.boot().findModule("java.desktop").orElse(null);
        if (desktop != null) {
            Set<Module> agent = Set.of(AwtLoops.class.getModule());
            instrumentation.redefineModule(desktop, Set.of(), Map.of(), Map.of("java.awt", agent, "sun.awt", agent), Set.of(), Map.of());
        }
    }

    /** Posts {@code probe} to the event dispatch thread, behind the events queued now. */
    static boolean post(Runnable probe) {
        EventQueue.invokeLater(probe);
        return true;
    }

    /** {@code MouseEvent MOUSE_RELEASED on javax.swing.JButton 'save'}, {@code InvocationEvent of com.example.App (lambda)}. */
    static String describe(Object work) {
        if (!(work instanceof AWTEvent event)) {
            return "event " + work.getClass().getName();
        }
        String params = event.paramString();
        int comma = params.indexOf(',');
        String id = comma < 0 ? params : params.substring(0, comma);
        StringBuilder text = new StringBuilder(event.getClass().getSimpleName()).append(' ').append(id);
        if (event instanceof InvocationEvent) {
            int runnable = params.indexOf("runnable=");
            if (runnable >= 0) {
                int end = params.indexOf(',', runnable);
                String value = params.substring(runnable + "runnable=".length(), end < 0 ? params.length() : end);
                int at = value.lastIndexOf('@');
                text.append(" of ").append(Names.withoutLambdaAddress(at > 0 ? value.substring(0, at) : value));
            }
            return text.toString();
        }
        Object source = event.getSource();
        if (source != null) {
            text.append(" on ").append(source.getClass().getName());
            if (source instanceof javax.swing.AbstractButton button && button.getActionCommand() != null) {
                text.append(" '").append(button.getActionCommand()).append('\'');
            } else if (event instanceof ActionEvent action && action.getActionCommand() != null) {
                text.append(" '").append(action.getActionCommand()).append('\'');
            }
        }
        return text.toString();
    }

    /** The events waiting in {@code queue} (every priority), or -1 if they cannot be counted. */
    static long queued(Object queue) {
        if (!(queue instanceof EventQueue)) {
            return -1;
        }
        try {
            if (queues == null) {
                queues = accessible(EventQueue.class.getDeclaredField("queues"));
                head = accessible(Class.forName("java.awt.Queue").getDeclaredField("head"));
                next = accessible(Class.forName("sun.awt.EventQueueItem").getDeclaredField("next"));
            }
            Object lists = queues.get(queue);
            long count = 0;
            for (int i = 0; i < Array.getLength(lists); i++) {
                for (Object item = head.get(Array.get(lists, i)); item != null && count < 1_000_000; item = next.get(item)) {
                    count++;
                }
            }
            return count;
        } catch (ReflectiveOperationException | RuntimeException unknown) {
            return -1;
        }
    }

    private static Field accessible(Field field) {
        field.setAccessible(true);
        return field;
    }

    // ---- advice: inlined into java.awt.EventQueue, so it calls only BlockingCheck ----

    static final class Dispatch {
        @Advice.OnMethodEnter
        static LoopThread enter(@Advice.This Object queue, @Advice.Argument(0) Object event) {
            LoopThread unit = BlockingCheck.beginUnit(LoopKinds.AWT, EventQueue.class, event);
            if (unit.loop != queue) {
                unit.loop = queue; // the queue dispatching now (EventQueue.push replaces it)
            }
            return unit;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter LoopThread unit) {
            BlockingCheck.endUnit(unit);
        }
    }
}
