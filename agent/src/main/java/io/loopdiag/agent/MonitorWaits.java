package io.loopdiag.agent;

import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.Kind;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A loop's thread waiting to enter a contended monitor ({@code synchronized}): a blocking call
 * for which no method is called, so no advice sees it. The {@link Watchdog}, which samples every
 * loop's running unit anyway, asks the unit's thread its state (about 30 to 120 ns); one it finds
 * {@code BLOCKED} is a {@code blocking-call}, reported once per unit with the thread's stack and,
 * for a platform thread, the monitor's class and the thread holding it, as the JDK's
 * {@link ThreadMXBean} tells them, which also tells a wait for another thread's initializing of
 * a class (left out: the JVM warming up). Of a virtual thread it tells nothing. Either kind must be
 * seen BLOCKED at the same frame in two samples running, so a wait shorter than two sampling
 * periods may be missed; JFR's {@code jdk.JavaMonitorEnter} is no way around that, since
 * it is not posted for virtual threads (docs/decisions.md). Never thrown: the thread is inside the
 * JVM's monitor enter, where nothing can be thrown into it.
 */
final class MonitorWaits {
    /**
     * What HotSpot's class-initialization lock is an instance of: a thread waiting for it waits
     * for another thread to initialize a class it needs (the JVM warming up), not for the application.
     */
    private static final String CLASS_INIT_LOCK = "[I";

    private final Findings findings;
    private final BlockingCalls calls;
    /** Per loop, the frame its virtual thread was last seen BLOCKED at; the watchdog's thread only. */
    private final Map<Object, StackTraceElement> blockedBefore = new HashMap<>();

    /** Reports to {@code findings}, leaving out what {@code calls}' allow list allows. */
    MonitorWaits(Findings findings, BlockingCalls calls) {
        this.findings = findings;
        this.calls = calls;
    }

    /**
     * Reports the unit {@code loop} runs now if its thread waits to enter a monitor; true if it was
     * reported, so that the watchdog asks no more for that unit. On the watchdog's thread.
     */
    boolean check(WatchedLoop loop) {
        Thread thread = loop.thread();
        if (thread == null || thread.getState() != Thread.State.BLOCKED) {
            blockedBefore.remove(loop.key());
            return false;
        }
        WatchedLoop.Running running = loop.running(); // the stack walk, only for a blocked thread
        if (running == null || running.stack().isEmpty()) {
            return false;
        }
        List<StackTraceElement> stack = running.stack();
        if (thread.isVirtual() && Stacks.isSwitchingThreads(stack.get(0))) {
            // Mounting or unmounting: a mounted virtual thread's state is its carrier's, and the carrier was waiting for
            // the JDK's lock of that thread, which getState() itself held. Seen on loop-core's healthy HTTP server under
            // load: BLOCKED at LockSupport.park in Baton.awaitBaton, where every task parks, in two samples running.
            blockedBefore.remove(loop.key());
            return false;
        }
        if (Stacks.isLoadingClasses(stack) || Frame.isAgent(stack.get(0).getClassName())
                || calls.isAllowed(stack.toArray(StackTraceElement[]::new))) {
            return false; // the JVM's own class loading locks, the agent's own, or allowed
        }
        // The state, the lock and the stack of one instant: the stack above was taken a moment later, and a thread
        // that loads classes one after another (a cold Netty pipeline) is BLOCKED on a class loader's lock, then
        // runs, then is BLOCKED on the next one's.
        ThreadInfo info = thread.isVirtual() ? null : ManagementFactory.getThreadMXBean().getThreadInfo(thread.threadId(), Integer.MAX_VALUE);
        LockInfo lock = info != null && info.getThreadState() == Thread.State.BLOCKED
                && !Stacks.isLoadingClasses(List.of(info.getStackTrace())) ? info.getLockInfo() : null;
        if (!thread.isVirtual() && (lock == null || lock.getClassName().equals(CLASS_INIT_LOCK))) {
            // Entered meanwhile, or waiting for a class loader or another thread's initializing of a class: the JVM warming up.
            blockedBefore.remove(loop.key());
            return false;
        }
        // Seen at the same frame in two samples running, a platform thread too: nothing tells a virtual thread's monitor
        // from another wait the JVM makes BLOCKED (for a class another thread initializes, briefly), and a monitor a
        // framework holds for a moment looks contended when a busy machine deschedules its holder (seen in CI: Vert.x'
        // acceptor thread on a PromiseImpl its event loop was completing).
        if (!stack.get(0).equals(blockedBefore.put(loop.key(), stack.get(0)))) {
            return false;
        }
        blockedBefore.remove(loop.key());
        StringBuilder what = new StringBuilder("synchronized (waits to enter ");
        what.append(lock != null ? "the monitor of a " + lock.getClassName()
                + (info.getLockOwnerName() != null ? " held by thread '" + info.getLockOwnerName() + "'" : "")
                : "a monitor another thread holds");
        what.append(") in ").append(running.description());
        List<StackTraceElement> fromCall = Stacks.fromApplicationCall(stack);
        StackTraceElement app = fromCall.get(0);
        if (Frame.isJdk(app) && fromCall.size() > 1) {
            what.append(", called at ").append(fromCall.get(1)); // a synchronized JDK method (PrintStream.println)
        } else {
            what.append(", at ").append(app);
        }
        findings.report(new Occurrence(Kind.BLOCKING_CALL, loop.key(), loop.name(), running.task(),
                what.toString(), fromCall, null, 0));
        return true;
    }
}
