package io.loopdiag.agent;

import io.loopdiag.loop.Task;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Where tasks and coroutines were created. Taking a stack (a {@code Throwable}, whose frames are
 * only decoded when a report needs them) costs about half a task's creation (docs/decisions.md);
 * so the agent takes at most {@link #PER_SECOND} a second, a bounded cost whatever the program
 * does. A program that creates fewer gets every site; a busy one gets the first ones of each
 * second, and a report says when a site was not recorded.
 */
final class CreationSites {
    static final int PER_SECOND = 1000;
    static final String NOT_RECORDED = "its creation site was not recorded: the agent records at most "
            + PER_SECOND + " a second";

    private static volatile int budget = PER_SECOND; // racy decrements only make the cap approximate
    private static final Map<Task<?>, Throwable> TASKS = Collections.synchronizedMap(new WeakHashMap<>());

    private CreationSites() {
    }

    /** The stack here if the budget allows, else null. */
    static Throwable capture() {
        int left = budget;
        if (left <= 0) {
            return null;
        }
        budget = left - 1;
        return new Throwable("created here");
    }

    /** A new second: the watchdog refills the budget. */
    static void refill() {
        budget = PER_SECOND;
    }

    static void taskCreated(Task<?> task) {
        Throwable site = capture();
        if (site != null) {
            TASKS.put(task, site);
        }
    }

    /** Where {@code task} was created, or null if it was not recorded. */
    static List<StackTraceElement> ofTask(Task<?> task) {
        return decode(TASKS.get(task));
    }

    static List<StackTraceElement> decode(Throwable site) {
        return site == null ? null : Stacks.creationSite(site.getStackTrace());
    }
}
