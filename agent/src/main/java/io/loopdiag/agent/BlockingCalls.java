package io.loopdiag.agent;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.agent.boot.LoopThread;
import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns a blocking call on a loop thread, as {@link BlockingCheck} sees it, into a
 * {@code blocking-call} finding: which JDK method the application called, from which line, in
 * which task or callback of which loop. Runs on the blocking thread, inside the check's guard, so
 * its own I/O is not counted. Decides whether {@code blocking=throw} throws.
 */
final class BlockingCalls implements BlockingCheck.Listener {

    /**
     * Call sites allowed to block whatever the options say: short, one-time waits inside the JDK
     * that an application cannot avoid (reading a class from a jar, the security and logging
     * configuration files, the time-zone rules, an executor's own lock held while it takes work or
     * shuts down: Vert.x' close shuts its worker pools down from a loop).
     */
    static final List<String> BUILT_IN_ALLOW = List.of(
            "java.lang.ClassLoader#loadClass",
            "jdk.internal.loader",
            "java.security.Security",
            "java.util.logging.LogManager",
            "java.time.zone.ZoneRulesProvider",
            "java.util.concurrent.ThreadPoolExecutor#execute",
            "java.util.concurrent.ThreadPoolExecutor#shutdown",
            "java.util.concurrent.ThreadPoolExecutor#shutdownNow");

    private final Findings findings;
    private final ForeignLoops foreignLoops;
    private final boolean loopCore;
    private final boolean throwing;
    private final List<String[]> allow; // {class or package, method or null}

    /** {@code loopCore}: the JVM has loop-core, whose threads' units are named from its classes. */
    BlockingCalls(Findings findings, AgentOptions options, ForeignLoops foreignLoops, boolean loopCore) {
        this.findings = findings;
        this.foreignLoops = foreignLoops;
        this.loopCore = loopCore;
        this.throwing = options.blocking() == AgentOptions.Blocking.THROW;
        List<String[]> patterns = new ArrayList<>();
        for (String pattern : concat(BUILT_IN_ALLOW, NettyLoops.ALLOW, ForeignLoops.REACTOR_ALLOW, options.allow())) {
            int hash = pattern.indexOf('#');
            patterns.add(hash < 0 ? new String[] {pattern, null} : new String[] {pattern.substring(0, hash), pattern.substring(hash + 1)});
        }
        this.allow = List.copyOf(patterns);
    }

    /** The self-check's thread, whose calls are only noted in {@code probed}; null when none runs. */
    private volatile Thread probe;
    private volatile Set<String> probed;

    void probeWith(Thread thread, Set<String> seen) {
        probed = seen;
        probe = thread;
    }

    @Override
    public String blockingCall(String operation, Object blocker) {
        StackTraceElement[] frames = Stacks.withoutAgent(new Throwable().getStackTrace());
        // Decided before anything else, from the raw frames: class loading calls here in the
        // middle of reading a jar, so nothing on this path may load a class from the application.
        if (isAllowed(frames)) {
            return null;
        }
        LoopThread thread = BlockingCheck.current();
        boolean foreign = thread != null && thread.kind != null;
        List<StackTraceElement> call = foreign ? ForeignLoops.unitStack(frames)
                : loopCore ? LoopCoreUnits.runningStack(frames) : List.of(frames);
        if (call.isEmpty()) {
            return null;
        }
        // From the JDK method the application called (the call may block deeper inside).
        List<StackTraceElement> stack = List.copyOf(Stacks.fromApplicationCall(call));
        int called = call.size() - stack.size();
        int app = called + 1;
        StackTraceElement calledFrame = stack.get(0);
        String calledMethod = calledFrame.getClassName() + "." + calledFrame.getMethodName();

        StringBuilder what = new StringBuilder(calledMethod);
        if (!operation.startsWith(calledMethod + "(")) {
            what.append(" (blocks in ").append(operation);
            if (blocker != null) {
                what.append(" on ").append(blocker.getClass().getName());
            }
            what.append(')');
        }
        Where where = foreign ? foreignUnit(thread, call) : loopCore ? LoopCoreUnits.where()
                : new Where(null, null, null, " on a loop thread");
        what.append(where.unit());
        if (app < call.size() && !Frame.isJdk(call.get(app))) {
            what.append(", called at ").append(call.get(app));
        }
        // Never thrown where the exception would break more than the call: a park that the JDK's
        // own lock, queue or future code made (the lock would be left broken), or a call made by a
        // class's static initializer (the class would fail to initialize for good).
        boolean parkInsideJdk = operation.startsWith("java.util.concurrent.locks.LockSupport.") && called > 0;
        String initializer = staticInitializer(frames);
        boolean throwable = throwing && !parkInsideJdk && initializer == null;
        String note = !throwing ? ""
                : parkInsideJdk ? " (not thrown: inside " + calledMethod + ", where an exception would break it)"
                : initializer != null ? " (not thrown: inside the static initializer of " + initializer
                        + ", where an exception would break the class for good)" : "";
        Occurrence occurrence = new Occurrence(Kind.BLOCKING_CALL, where.loopKey(), where.loop(), where.task(), what + note, stack, null, 0);
        if (probe != null && Thread.currentThread() == probe) {
            probed.add(operation); // the self-check: the whole path ran, nothing is reported
            return null;
        }
        // Timed to its end on this thread, where the JFR event's stack is the call's own; a call about to be
        // refused never runs, so it is an instant.
        Object event = throwable || thread == null ? null : JfrEvents.begin();
        findings.report(occurrence, null, event == null);
        if (event != null) {
            thread.timing = new Timed(event, occurrence);
        }
        if (!throwable) {
            return null;
        }
        String remedy = foreign ? "move the call off the loop thread" : "move the call to Async.toThread";
        return "loopdiag: blocking call " + what + " on loop '" + where.loop()
                + "' (the agent runs with blocking=throw; " + remedy + ", or allow it with allow=Class#method)";
    }

    /**
     * Where a blocking call happened.
     *
     * @param loopKey the loop as the watchdog knows it ({@link WatchedLoop#key}), or null
     * @param loop    the loop's name, or null
     * @param task    the task as findings name it, or null
     * @param unit    the end of the message: {@code " in task 'fetch' (#3)"}
     */
    record Where(Object loopKey, String loop, String task, String unit) {
    }

    /** Where on a foreign loop: the unit of work running, named by its handler, or the loop thread. */
    private static Where foreignUnit(LoopThread thread, List<StackTraceElement> call) {
        Object work = thread.work;
        String unit = ForeignLoops.hasUnits(thread) && work != null ? " in " + ForeignLoops.describe(thread, work, call)
                : " on " + ForeignLoops.threadOf(thread.kind);
        return new Where(thread, thread.thread.getName(), null, unit);
    }

    @Override
    public void blockingCallEnded(Object timing) {
        Timed timed = (Timed) timing;
        JfrEvents.commit(timed.event(), timed.occurrence());
    }

    /** A blocking call's JFR event, begun as it was entered, and what it will say. */
    private record Timed(Object event, Occurrence occurrence) {
    }

    @Override
    public String loopKindOf(Thread thread) {
        return foreignLoops.kindOf(thread);
    }

    @Override
    public void loopStarted(LoopThread loop, String hint, Class<?> origin) {
        foreignLoops.started(loop, hint, origin);
    }

    @Override
    public void promiseSettled(Object promise, Object result) {
        foreignLoops.promises().settled(promise, result);
    }

    @Override
    public void promiseObserved(Object promise) {
        foreignLoops.promises().observed(promise);
    }

    /**
     * A loop-core task (null: the loop's own thread) that parked while pinned to its loop's own
     * carrier thread, at {@code stack} (from the loop's API it called): told by loop-core's carrier
     * watcher, on the watcher's thread, once it has seen the carrier held. It held the loop as a
     * blocking call does, so it is one, at the line that awaited.
     */
    void parkedWhilePinned(Object loopKey, String loop, String task, StackTraceElement[] stack) {
        if (stack.length == 0 || isAllowed(stack)) {
            return;
        }
        StackTraceElement called = stack[0];
        String initializer = staticInitializer(stack);
        StringBuilder what = new StringBuilder(called.getClassName()).append('.').append(called.getMethodName())
                .append(" (parked while pinned to the loop's carrier thread")
                .append(initializer != null ? ", inside the static initializer of " + initializer : "")
                .append(')').append(task != null ? " in task " + task : " on the loop thread");
        if (stack.length > 1) {
            what.append(", called at ").append(stack[1]);
        }
        findings.report(new Occurrence(Kind.BLOCKING_CALL, loopKey, loop, task, what.toString(), List.of(stack), null, 0));
    }

    /** The class whose static initializer is on {@code frames}, or null. */
    private static String staticInitializer(StackTraceElement[] frames) {
        for (StackTraceElement frame : frames) {
            if (frame.getMethodName().equals("<clinit>")) {
                return frame.getClassName();
            }
        }
        return null;
    }

    /** True if a frame of {@code frames} is at a call site the allow list (built in, the loops', the option's) names. */
    boolean isAllowed(StackTraceElement[] frames) {
        for (StackTraceElement frame : frames) {
            String className = frame.getClassName();
            for (String[] pattern : allow) {
                boolean typeMatches = className.equals(pattern[0]) || className.startsWith(pattern[0] + ".")
                        || className.startsWith(pattern[0] + "$");
                if (typeMatches && (pattern[1] == null || pattern[1].equals(frame.getMethodName()))) {
                    return true;
                }
            }
        }
        return false;
    }

    @SafeVarargs
    private static List<String> concat(List<String>... lists) {
        List<String> all = new ArrayList<>();
        for (List<String> list : lists) {
            all.addAll(list);
        }
        return all;
    }
}
