package io.loopdiag.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.agent.boot.LoopThread;
import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.LoopKinds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import net.bytebuddy.asm.Advice;

/**
 * The loops the agent does not own, each found by name in the application's class loaders: Netty's
 * and Vert.x' event loops ({@link NettyLoops}), the AWT event dispatch thread ({@link AwtLoops}),
 * and threads that are loops for the blocking check for their whole life: Reactor's non-blocking
 * threads (those of {@code Schedulers.parallel()} and {@code single()}, marked by the interface
 * {@code reactor.core.scheduler.NonBlocking}, as BlockHound treats them) and those whose name
 * matches the {@code threads} option. The state of each is its {@link LoopThread}; this class
 * answers {@link BlockingCheck}'s questions about them and shows them to the watchdog and the dump.
 */
final class ForeignLoops {
    private static final String NON_BLOCKING = "reactor.core.scheduler.NonBlocking";

    /** Where a unit of work starts, innermost first: a stack is cut below the innermost of these. */
    private static final Set<String> UNIT_FRAMES = Set.of(
            NettyLoops.TASK_CLASS + "#safeExecute",
            "io.netty.channel.nio.NioEventLoop#processSelectedKeys",
            "io.netty.channel.epoll.EpollEventLoop#processReady",
            "io.netty.channel.kqueue.KQueueEventLoop#processReady",
            "io.netty.channel.nio.NioIoHandler#processSelectedKeys",
            "io.netty.channel.epoll.EpollIoHandler#processReady",
            "io.netty.channel.kqueue.KQueueIoHandler#processReady",
            "java.awt.EventQueue#dispatchEvent");

    /**
     * What Reactor itself blocks on in its non-blocking threads and is not the application's, as
     * Reactor lists it for BlockHound: the scheduled pool's queue, task disposal, worker exit.
     */
    static final List<String> REACTOR_ALLOW = List.of(
            "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue#offer",
            "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue#take",
            "java.util.concurrent.ThreadPoolExecutor#processWorkerExit",
            "java.util.concurrent.FutureTask#handlePossibleCancellationInterrupt",
            "java.util.concurrent.ForkJoinPool#awaitWork",
            "reactor.core.scheduler.BoundedElasticScheduler$BoundedScheduledExecutorService#ensureQueueCapacity",
            "reactor.core.scheduler.SchedulerTask#dispose",
            "reactor.core.scheduler.WorkerTask#dispose");

    private final Pattern threads;
    private final SelfCheck selfCheck;
    private final Runnable onLoop;
    private final NettyPromises promises;
    private volatile Weaver weaver;

    /**
     * {@code threads}: the names of more loop threads, or null; {@code onLoop} runs as each loop
     * thread is first seen; lost Netty promises are reported to {@code findings}.
     */
    ForeignLoops(Pattern threads, SelfCheck selfCheck, Runnable onLoop, Findings findings) {
        this.threads = threads;
        this.selfCheck = selfCheck;
        this.onLoop = onLoop;
        this.promises = new NettyPromises(findings);
    }

    /** The detector of failed Netty promises nobody observed. */
    NettyPromises promises() {
        return promises;
    }

    /** The hooks of every foreign loop; {@code blocking} adds the pools' wait for work, which is idling. */
    static List<Hook> hooks(boolean blocking) {
        List<Hook> hooks = new ArrayList<>(NettyLoops.hooks());
        hooks.addAll(NettyPromises.hooks());
        hooks.addAll(VertxHandlers.hooks());
        hooks.addAll(AwtLoops.hooks());
        if (blocking) {
            hooks.add(new Hook("java.util.concurrent.ThreadPoolExecutor", "java.util.concurrent.ThreadPoolExecutor#getTask()",
                    named("getTask").and(takesArguments(0)), Advice.to(PoolWaits.class),
                    "a Reactor or named loop thread waiting for its next task is reported as a blocking call"));
        }
        return List.copyOf(hooks);
    }

    void weaver(Weaver woven) {
        weaver = woven;
    }

    /** {@link BlockingCheck.Listener#loopKindOf}: Reactor's non-blocking threads and the threads named by the option. */
    String kindOf(Thread thread) {
        if (NettyLoops.isNettyThread(thread)) {
            return null; // its units are hooked: between them it runs Netty's own waits
        }
        String kind = isA(thread.getClass(), NON_BLOCKING) ? LoopKinds.REACTOR
                : threads != null && threads.matcher(thread.getName()).matches() ? LoopKinds.NAMED : null;
        if (kind != null) {
            onLoop.run();
        }
        return kind;
    }

    /** {@link BlockingCheck.Listener#loopStarted}. */
    void started(LoopThread loop, String hint, Class<?> origin) {
        onLoop.run();
        Weaver woven = weaver;
        if (LoopKinds.NETTY.equals(hint) && woven != null) {
            NettyLoops.started(loop, origin, woven, selfCheck);
        }
    }

    /** The foreign loops with units of work, as the watchdog samples them. */
    static List<WatchedLoop> watched() {
        List<WatchedLoop> loops = new ArrayList<>();
        for (LoopThread loop : BlockingCheck.foreignLoops()) {
            if (hasUnits(loop)) {
                loops.add(new Watched(loop));
            }
        }
        return loops;
    }

    /** Netty's, Vert.x' and the EDT's loops have units of work; Reactor's and named threads only a thread. */
    static boolean hasUnits(LoopThread loop) {
        return LoopKinds.hasUnits(loop.kind);
    }

    /** How findings name a loop thread of {@code kind} outside a unit of work: {@code a Reactor non-blocking thread}. */
    static String threadOf(String kind) {
        return switch (kind) {
            case LoopKinds.REACTOR -> "a Reactor non-blocking thread";
            case LoopKinds.NAMED -> "a thread named by the threads option";
            case LoopKinds.AWT -> "the event dispatch thread";
            default -> "the " + kind + " loop thread";
        };
    }

    /** {@code frames} of a loop thread without the loop's own frames below the unit of work running. */
    static List<StackTraceElement> unitStack(StackTraceElement[] frames) {
        int unit = unitFrame(frames);
        return unit < 0 ? List.of(frames) : List.copyOf(Arrays.asList(frames).subList(0, unit + 1));
    }

    /** Where in {@code frames} the innermost unit of work starts, or -1 if they show none running. */
    private static int unitFrame(StackTraceElement[] frames) {
        for (int i = 0; i < frames.length; i++) {
            if (UNIT_FRAMES.contains(frames[i].getClassName() + "#" + frames[i].getMethodName())) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Lists the foreign loops already running as the agent starts, when it is attached to a
     * running JVM: a loop stuck in a unit of work since before the attach is dumped as running it.
     * Threads are told by their class and stack: Netty's and Vert.x' event loops, the EDT.
     */
    static void adoptRunning() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int count = root.enumerate(threads, true);
        for (int i = 0; i < Math.min(count, threads.length); i++) {
            Thread thread = threads[i];
            String kind = null;
            if (NettyLoops.isNettyThread(thread)) {
                kind = NettyLoops.kindOf(thread, thread.getStackTrace());
            } else if (thread.getClass().getName().equals(AwtLoops.DISPATCH_THREAD)) {
                kind = LoopKinds.AWT;
            }
            if (kind != null) {
                BlockingCheck.adopt(thread, kind);
            }
        }
    }

    /**
     * The unit of work an adopted loop ({@link LoopThread#adopted}) began before the agent was
     * attached, as {@code frames} show it, or null if they show none: {@code I/O of handler
     * 'orders' (com.example.OrderHandler), begun before the agent was attached}.
     */
    static String describeUnhooked(LoopThread loop, StackTraceElement[] frames) {
        int unit = unitFrame(frames);
        if (unit < 0) {
            return null;
        }
        String what;
        if (LoopKinds.AWT.equals(loop.kind)) {
            what = "an event";
        } else {
            boolean task = frames[unit].getClassName().equals(NettyLoops.TASK_CLASS);
            what = NettyLoops.describe(loop, task ? "a task" : "I/O", unitStack(frames));
        }
        return what + ", begun before the agent was attached";
    }

    /** The unit {@code work} of {@code loop} in a few words, naming the handler {@code stack} is in. */
    static String describe(LoopThread loop, Object work, List<StackTraceElement> stack) {
        return LoopKinds.AWT.equals(loop.kind) ? AwtLoops.describe(work) : NettyLoops.describe(loop, work, stack);
    }

    /** Not where the application is: the JDK, loopdiag, and the loops' own libraries. */
    static boolean isLibraryFrame(StackTraceElement frame) {
        String name = frame.getClassName();
        return Frame.isJdk(frame) || Frame.isLoopCore(name) || Frame.isAgent(name) || name.startsWith("io.netty.")
                || name.startsWith("io.vertx.") || name.startsWith("reactor.");
    }

    /** True if {@code type}, a superclass or an interface of either is named {@code name}. */
    static boolean isA(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return true;
            }
            for (Class<?> implemented : c.getInterfaces()) {
                if (isA(implemented, name)) {
                    return true;
                }
            }
        }
        return false;
    }

    static boolean isAny(Class<?> type, Set<String> names) {
        for (String name : names) {
            if (isA(type, name)) {
                return true;
            }
        }
        return false;
    }

    /** {@code type} or its superclass named {@code name}, or null. */
    static Class<?> superclassNamed(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /** A foreign loop as the watchdog samples it: its thread's unit of work and their count. */
    record Watched(LoopThread loop) implements WatchedLoop {
        @Override
        public Object key() {
            return loop;
        }

        @Override
        public String name() {
            return loop.thread.getName();
        }

        @Override
        public Object currentWork() {
            return loop.work;
        }

        @Override
        public long workCount() {
            return loop.units;
        }

        @Override
        public long emptyCount() {
            return loop.emptyUnits;
        }

        @Override
        public Thread thread() {
            return loop.work != null ? loop.thread : null;
        }

        @Override
        public String kind() {
            return loop.kind;
        }

        @Override
        public Counts counts() {
            if (LoopKinds.AWT.equals(loop.kind)) {
                return new Counts(Math.max(0, AwtLoops.queued(loop.loop)), 0, 0, 0);
            }
            long[] counts = NettyLoops.counts(loop.loop);
            return new Counts(Math.max(0, counts[0]), Math.max(0, counts[1]), 0, 0);
        }

        @Override
        public boolean post(Runnable probe) {
            try {
                if (LoopKinds.AWT.equals(loop.kind)) {
                    return AwtLoops.post(probe);
                }
                if (loop.loop instanceof java.util.concurrent.Executor executor) { // a Netty event loop
                    executor.execute(probe);
                    return true;
                }
            } catch (RuntimeException | LinkageError shutDown) {
                // A loop shutting down refuses work: no lag to measure.
            }
            return false;
        }

        @Override
        public Running running() {
            Object work = loop.work;
            if (work == null) {
                return null;
            }
            List<StackTraceElement> stack = unitStack(loop.thread.getStackTrace());
            return new Running(describe(loop, work, stack), null, stack);
        }

        @Override
        public List<StackTraceElement> stack() {
            return loop.work == null ? List.of() : unitStack(loop.thread.getStackTrace());
        }
    }

    // ---- advice: inlined into java.base, so it calls only BlockingCheck ----

    /** A pool thread waiting for its next task is idle, not blocking: once per task taken, two ThreadLocal reads. */
    static final class PoolWaits {
        @Advice.OnMethodEnter
        static void enter() {
            BlockingCheck.enterIdle();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit() {
            BlockingCheck.exitIdle();
        }
    }
}
