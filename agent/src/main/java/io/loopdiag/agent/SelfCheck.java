package io.loopdiag.agent;

import io.loopdiag.protocol.Text;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What the agent found wrong with its own instrumentation: a hook whose class or method this JVM
 * lacks, a class that could not be woven, a blocking call that did not reach the agent. Each
 * problem is said once, as a {@code loopdiag: self-check:} line on stderr, when it is found (at
 * start, or when a class is loaded later) and the report lists them all ({@code selfCheck}). A
 * problem never stops the agent: what still works goes on. Any thread.
 */
final class SelfCheck {
    private final PrintStream err;
    private final List<String> problems = new ArrayList<>(); // guarded by this
    private Runnable onChange = () -> { };

    SelfCheck(PrintStream err) {
        this.err = err;
    }

    /** Runs {@code action} after each new problem (the report marks itself out of date). */
    synchronized void onChange(Runnable action) {
        onChange = action;
    }

    /** Says {@code problem} (one line) unless it was said before. */
    void problem(String problem) {
        Runnable changed;
        synchronized (this) {
            if (problems.contains(problem)) {
                return;
            }
            problems.add(problem);
            changed = onChange;
        }
        err.println("loopdiag: self-check: " + Text.printable(problem));
        changed.run();
    }

    /** A hook that matched no method of its class. */
    void unmatched(Hook hook) {
        if (hook.check() == Hook.Check.NEVER) {
            return;
        }
        problem(hook.label() + " matches no method of " + hook.className() + " here; " + hook.loss());
    }

    /** Every problem so far, in the order found. */
    synchronized List<String> problems() {
        return List.copyOf(problems);
    }
}
