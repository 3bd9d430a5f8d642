package io.loopdiag.loop;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * The process's signals that event loops handle (asyncio's {@code add_signal_handler}). A signal
 * is handled by at most one loop at a time, as a process has one handler per signal: the JVM runs
 * it on a thread of its own, which only hands the signal to its loop. Removing the loop's handler
 * puts back the one it replaced (the JVM's, for {@code INT}, {@code TERM} and {@code HUP}: exit
 * through the shutdown hooks). Any thread.
 */
final class LoopSignals {
    /** Who handles a signal: a loop, what the JVM's signal thread does with it, and the handler it replaced. */
    private record Entry(EventLoop loop, Consumer<Signal> onSignalThread, SignalHandler replaced) {
    }

    /** Guarded by the class: keyed by the signal's name without {@code SIG}. */
    private static final Map<String, Entry> HANDLED = new HashMap<>();

    private LoopSignals() {
    }

    /**
     * Makes {@code loop} handle {@code name} ({@code "TERM"} or {@code "SIGTERM"}), replacing the
     * loop's earlier handler of it; {@code onSignalThread} runs on the JVM's signal thread and must
     * only hand the work to the loop.
     */
    static synchronized void handle(EventLoop loop, String name, Consumer<Signal> onSignalThread) {
        Signal signal = signal(name);
        Entry current = HANDLED.get(signal.getName());
        if (current != null && current.loop != loop) {
            throw new IllegalStateException("SIG" + signal.getName() + " is handled by event loop '" + current.loop.name()
                    + "': a signal has one handler per process");
        }
        SignalHandler replaced;
        if (current != null) {
            replaced = current.replaced;
        } else {
            try {
                replaced = Signal.handle(signal, LoopSignals::dispatch);
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                throw new IllegalArgumentException("cannot handle SIG" + signal.getName() + ": " + e.getMessage(), e);
            }
        }
        HANDLED.put(signal.getName(), new Entry(loop, onSignalThread, replaced));
    }

    /** Stops {@code loop} handling {@code name} and puts back the handler it replaced; false if it did not handle it. */
    static synchronized boolean remove(EventLoop loop, String name) {
        Signal signal = signal(name);
        Entry current = HANDLED.get(signal.getName());
        if (current == null || current.loop != loop) {
            return false;
        }
        HANDLED.remove(signal.getName());
        Signal.handle(signal, current.replaced);
        return true;
    }

    /** Removes every handler of {@code loop}: the loop is closing. */
    static synchronized void removeAll(EventLoop loop) {
        for (String name : HANDLED.keySet().toArray(String[]::new)) {
            remove(loop, name);
        }
    }

    /**
     * Hands {@code signal} back to the handler it replaced, and raises it again: what a second
     * Ctrl-C does while the loop shuts down, without waiting for the loop, which may be stuck.
     */
    static void raiseReplaced(EventLoop loop, Signal signal) {
        if (remove(loop, signal.getName())) {
            Signal.raise(signal);
        }
    }

    /** The signal named {@code name}, with or without {@code SIG}; a one-line error for a name this platform lacks. */
    static Signal signal(String name) {
        String bare = name.startsWith("SIG") ? name.substring(3) : name;
        try {
            return new Signal(bare);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("no signal SIG" + bare + " on this platform", e);
        }
    }

    /** The JVM's signal thread: hand the signal to its loop, if one still handles it. */
    private static void dispatch(Signal signal) {
        Entry entry;
        synchronized (LoopSignals.class) {
            entry = HANDLED.get(signal.getName());
        }
        if (entry == null) {
            return;
        }
        try {
            entry.onSignalThread.accept(signal);
        } catch (IllegalStateException closed) {
            // The loop closed after the signal arrived: nobody is left to handle it.
        }
    }
}
