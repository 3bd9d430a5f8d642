package io.loopdiag.agent;

import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.agent.boot.LoopThread;
import io.loopdiag.protocol.LoopKinds;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import net.bytebuddy.asm.Advice;

/**
 * Netty's event loops (4.1 and 4.2, NIO, Epoll and KQueue), and Vert.x' on top of them, matched
 * by name in whatever class loader has Netty: the agent has no compile dependency on it.
 *
 * <p>A unit of work is one task ({@code AbstractEventExecutor.safeExecute}, through which every
 * task and scheduled task of a {@code SingleThreadEventExecutor} runs in both lines) or one batch
 * of I/O events: in 4.1 the loop's own {@code processSelectedKeys} / {@code processReady}, in 4.2
 * its {@code IoHandler}'s. The loop's wait in select, its task queue and its shutdown run between
 * units, so they are never findings. The I/O hooks of the line not in use match nothing; so which
 * hook a loop needs is checked per loop as it starts ({@link #started}), and a loop whose I/O the
 * agent has no hook for is named by the self-check.
 */
final class NettyLoops {
    static final String TASK_CLASS = "io.netty.util.concurrent.AbstractEventExecutor";
    private static final String FAST_THREAD = "io.netty.util.concurrent.FastThreadLocalThread";
    private static final String VERTX_THREAD = "io.vertx.core.impl.VertxThread";
    /** The executor whose run loop every Netty event loop thread runs (its run method is in an inner class). */
    private static final String EXECUTOR = "io.netty.util.concurrent.SingleThreadEventExecutor";
    private static final String IO_EVENT_LOOP_42 = "io.netty.channel.SingleThreadIoEventLoop";
    private static final String EVENT_LOOP = "io.netty.channel.SingleThreadEventLoop";
    private static final String CONTEXT = "io.netty.channel.AbstractChannelHandlerContext";
    private static final String PROMISE_TASK = "io.netty.util.concurrent.PromiseTask";

    /**
     * A method that runs one batch of I/O events, and whether it returns how many channels it
     * handled ({@code counted}): 4.1's loops run a batch only when keys are ready, 4.2's I/O
     * handlers at every wake-up of the loop, returning the count.
     */
    private record IoBatch(String className, String method, boolean counted) {
    }

    /** The classes whose I/O batch is hooked: 4.1's loops, then 4.2's handlers. */
    private static final List<IoBatch> IO = List.of(
            new IoBatch("io.netty.channel.nio.NioEventLoop", "processSelectedKeys", false),
            new IoBatch("io.netty.channel.epoll.EpollEventLoop", "processReady", false),
            new IoBatch("io.netty.channel.kqueue.KQueueEventLoop", "processReady", false),
            new IoBatch("io.netty.channel.nio.NioIoHandler", "processSelectedKeys", true),
            new IoBatch("io.netty.channel.epoll.EpollIoHandler", "processReady", true),
            new IoBatch("io.netty.channel.kqueue.KQueueIoHandler", "processReady", true));

    /** Executors that run tasks only: their units are all tasks, so nothing is missing. */
    private static final Set<String> TASKS_ONLY = Set.of("io.netty.channel.DefaultEventLoop",
            "io.netty.channel.local.LocalIoHandler", "io.netty.channel.embedded.EmbeddedEventLoop");

    /**
     * Netty's own blocking on its loop threads that is not the application's, as Netty lists it
     * for BlockHound ({@code NettyBlockHoundIntegration}): its timer's start and stop, its pooled
     * allocator's locks, the SSL handshake's delegated tasks and the JDK engine's locks, its DNS
     * resolver reading resolv.conf and the hosts file, the one-time SOMAXCONN read. And one monitor
     * of Netty's, which BlockHound cannot see: the pooled allocator's {@code synchronized} making a
     * thread's cache, once per loop as it allocates its first buffer, which loops starting together
     * contend for (seen in CI on Netty 4.1's healthy server).
     */
    static final List<String> ALLOW = List.of(
            "io.netty.channel.nio.NioEventLoop#handleLoopException",
            "io.netty.channel.epoll.EpollEventLoop#handleLoopException",
            "io.netty.channel.kqueue.KQueueEventLoop#handleLoopException",
            "io.netty.util.HashedWheelTimer#start",
            "io.netty.util.HashedWheelTimer#stop",
            "io.netty.util.concurrent.SingleThreadEventExecutor#confirmShutdown",
            "io.netty.util.concurrent.SingleThreadEventExecutor#addTask",
            "io.netty.util.concurrent.GlobalEventExecutor#addTask",
            "io.netty.buffer.PoolArena#lock",
            "io.netty.buffer.PooledByteBufAllocator$PoolThreadLocalCache#initialValue",
            "io.netty.buffer.PoolSubpage#lock",
            "io.netty.buffer.PoolChunk#allocateRun",
            "io.netty.buffer.PoolChunk#free",
            "io.netty.buffer.AdaptivePoolingAllocator",
            "io.netty.handler.ssl.SslHandler#handshake",
            "io.netty.handler.ssl.SslHandler#runAllDelegatedTasks",
            "io.netty.handler.ssl.SslHandler#runDelegatedTasks",
            "io.netty.handler.ssl.JdkSslContext$Defaults#init",
            "io.netty.handler.ssl.ReferenceCountedOpenSslClientContext$ExtendedTrustManagerVerifyCallback#verify",
            "sun.security.ssl.SSLEngineImpl#wrap",
            "sun.security.ssl.SSLEngineImpl#unwrap",
            "io.netty.resolver.dns.UnixResolverDnsServerAddressStreamProvider",
            "io.netty.resolver.dns.DnsQueryIdSpace#nextId",
            "io.netty.resolver.dns.DnsQueryIdSpace$DnsQueryIdRange#pushId",
            "io.netty.resolver.HostsFileEntriesProvider$ParserImpl#parse",
            "io.netty.util.NetUtil$SoMaxConnAction#run",
            "io.netty.util.internal.ReferenceCountUpdater#retryRelease",
            "io.netty.util.internal.PlatformDependent#createTempFile");

    private NettyLoops() {
    }

    static List<Hook> hooks() {
        List<Hook> hooks = new java.util.ArrayList<>();
        hooks.add(new Hook(TASK_CLASS, TASK_CLASS + "#safeExecute(Runnable)",
                named("safeExecute").and(takesArguments(Runnable.class)).and(isStatic()), Advice.to(Task.class),
                "Netty's tasks are neither timed nor checked for blocking calls").checked(Hook.Check.IF_LOADED));
        for (IoBatch io : IO) {
            hooks.add(new Hook(io.className(), io.className() + "#" + io.method(),
                    io.counted() ? named(io.method()).and(returns(int.class)) : named(io.method()),
                    Advice.to(Io.class, io.counted() ? CountedIoEnd.class : IoEnd.class),
                    "its I/O (the channel handlers) is neither timed nor checked for blocking calls").checked(Hook.Check.NEVER));
        }
        return List.copyOf(hooks);
    }

    /** A Netty thread: its units are hooked, so it is never a loop thread for its whole life. */
    static boolean isNettyThread(Thread thread) {
        return ForeignLoops.isA(thread.getClass(), FAST_THREAD);
    }

    /** The kind of loop {@code thread} runs, as its stack shows it, or null if it is not an event loop's thread. */
    static String kindOf(Thread thread, StackTraceElement[] frames) {
        for (StackTraceElement frame : frames) {
            if (frame.getClassName().startsWith(EXECUTOR)) {
                return ForeignLoops.isA(thread.getClass(), VERTX_THREAD) ? LoopKinds.VERTX : LoopKinds.NETTY;
            }
        }
        return null;
    }

    /**
     * The first unit ran on {@code loop}'s thread: finds its event loop (Netty's own map of
     * thread to executor), tells Vert.x' threads apart, and says when the agent has no hook for
     * this loop's I/O. On the loop thread.
     */
    static void started(LoopThread loop, Class<?> origin, Weaver weaver, SelfCheck selfCheck) {
        if (ForeignLoops.isA(loop.thread.getClass(), VERTX_THREAD)) {
            loop.kind = LoopKinds.VERTX;
        }
        Object executor;
        try {
            Class<?> map = Class.forName("io.netty.util.internal.ThreadExecutorMap", false, origin.getClassLoader());
            executor = map.getMethod("currentExecutor").invoke(null);
        } catch (ReflectiveOperationException | LinkageError | RuntimeException absent) {
            return; // an older Netty without the map: its loops are watched, their queues not counted
        }
        if (executor == null) {
            return;
        }
        loop.loop = executor;
        Class<?> io = ioClass(executor);
        if (io == null || ForeignLoops.isAny(io, TASKS_ONLY)) {
            return;
        }
        for (IoBatch hooked : IO) {
            if (ForeignLoops.isA(io, hooked.className()) && weaver.matched(hooked.className())) {
                return;
            }
        }
        selfCheck.problem("Netty event loop " + executor.getClass().getName()
                + (io != executor.getClass() ? " with I/O handler " + io.getName() : "")
                + " (Netty " + version(origin) + "): the agent has no hook for its I/O, so its channel handlers are"
                + " neither timed nor checked for blocking calls; its tasks are");
    }

    /** The class that runs {@code executor}'s I/O: 4.2's I/O handler, or 4.1's loop itself; null for a task executor. */
    private static Class<?> ioClass(Object executor) {
        Class<?> type = executor.getClass();
        Class<?> ioLoop = ForeignLoops.superclassNamed(type, IO_EVENT_LOOP_42);
        if (ioLoop != null) {
            Object handler = field(ioLoop, "ioHandler", executor);
            return handler != null ? handler.getClass() : null;
        }
        return ForeignLoops.isA(type, EVENT_LOOP) ? type : null;
    }

    private static String version(Class<?> origin) {
        Package netty = origin.getPackage();
        String version = netty != null ? netty.getImplementationVersion() : null;
        return version != null ? version : "of unknown version";
    }

    /** True if {@code work}, a unit of {@code loop}, is a batch of I/O events rather than a task. */
    private static boolean isIo(Object work) {
        for (IoBatch io : IO) {
            if (ForeignLoops.isA(work.getClass(), io.className())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The unit in a few words, with the channel handler the stack is in where it shows one:
     * {@code I/O of handler 'orders' (com.example.OrderHandler)}, {@code task com.example.Jobs (lambda)};
     * on Vert.x, with the route or event-bus address dispatching: {@code I/O of Vert.x route GET
     * /report, handler com.example.Reports.report}.
     */
    static String describe(LoopThread loop, Object work, List<StackTraceElement> stack) {
        if (isIo(work)) {
            return describe(loop, "I/O", stack);
        }
        String task = Names.withoutLambdaAddress(taskOf(work).getClass().getName());
        // Vert.x' own runnable says nothing the handler, the route or the address do not say better
        return describe(loop, task.startsWith("io.vertx.") ? "task" : "task " + task, stack);
    }

    /** As above, for a unit known only by its kind ({@code I/O}, {@code task}) and its stack. */
    static String describe(LoopThread loop, String unit, List<StackTraceElement> stack) {
        if (LoopKinds.VERTX.equals(loop.kind)) {
            Object dispatcher = loop.handler;
            String dispatching = VertxHandlers.describe(dispatcher);
            StackTraceElement handler = handlerFrame(stack, dispatching != null ? VertxHandlers.declaring(dispatcher) : CONTEXT);
            String method = handler == null ? null : handler.getClassName() + "." + handler.getMethodName();
            if (dispatching != null) {
                return unit + " of Vert.x " + dispatching + (method != null ? ", handler " + method : "");
            }
            if (method == null) {
                return unit;
            }
            boolean route = stack.stream().anyMatch(frame -> frame.getClassName().equals(VertxHandlers.ROUTE));
            return unit + " of Vert.x " + (route ? "route handler " : "handler ") + method;
        }
        StackTraceElement handler = handlerFrame(stack, CONTEXT);
        if (handler == null) {
            return unit;
        }
        String name = contextName(loop.loop, handler.getClassName());
        return unit + " of handler " + (name != null ? "'" + name + "' (" + handler.getClassName() + ")" : handler.getClassName());
    }

    /** What a submitted or scheduled task ({@code PromiseTask}) runs: the application's callable or runnable. */
    private static Object taskOf(Object work) {
        Class<?> promiseTask = ForeignLoops.superclassNamed(work.getClass(), PROMISE_TASK);
        Object task = promiseTask != null ? field(promiseTask, "task", work) : null;
        if (task != null && task.getClass().getName().equals(PROMISE_TASK + "$RunnableAdapter")) {
            task = field(task.getClass(), "task", task);
        }
        return task != null ? task : work;
    }

    /**
     * The handler's frame where the unit entered the application's code: the outermost frame
     * inside the innermost call of {@code dispatcher} (the pipeline's context, a Vert.x route) that
     * is neither the JDK's nor a library's; null when the stack shows no such call (a plain task)
     * or only libraries inside it.
     */
    private static StackTraceElement handlerFrame(List<StackTraceElement> stack, String dispatcher) {
        int from = -1;
        for (int i = 0; i < stack.size() && from < 0; i++) {
            if (stack.get(i).getClassName().equals(dispatcher)) {
                from = i;
            }
        }
        for (int i = from; i >= 0; i--) {
            if (!ForeignLoops.isLibraryFrame(stack.get(i))) {
                return stack.get(i);
            }
        }
        return null;
    }

    /** The name under which a handler of class {@code handlerClass} sits in a pipeline of one of {@code executor}'s channels. */
    private static String contextName(Object executor, String handlerClass) {
        if (executor == null) {
            return null;
        }
        try {
            Method channels = executor.getClass().getMethod("registeredChannelsIterator");
            Iterator<?> each = (Iterator<?>) channels.invoke(executor);
            for (int seen = 0; each.hasNext() && seen < 10_000; seen++) {
                Object channel = each.next();
                Object pipeline = publicMethod(channel.getClass(), "io.netty.channel.Channel", "pipeline").invoke(channel);
                Method get = publicMethod(pipeline.getClass(), "io.netty.channel.ChannelPipeline", "get", String.class);
                for (Object name : (Collection<?>) publicMethod(pipeline.getClass(), "io.netty.channel.ChannelPipeline", "names").invoke(pipeline)) {
                    Object handler = get.invoke(pipeline, name);
                    if (handler != null && ForeignLoops.isA(handler.getClass(), handlerClass)) {
                        return name.toString();
                    }
                }
            }
        } catch (ReflectiveOperationException | LinkageError | RuntimeException unknown) {
            // A loop that cannot list its channels (4.2's generic I/O loop): the class says enough.
        }
        return null;
    }

    /** The public interface method {@code name} of {@code type}'s interface {@code interfaceName}. */
    private static Method publicMethod(Class<?> type, String interfaceName, String name, Class<?>... parameters)
            throws ReflectiveOperationException {
        Class<?> declaring = Class.forName(interfaceName, false, type.getClassLoader());
        return declaring.getMethod(name, parameters);
    }

    /** What a dump shows of {@code executor}'s queues: pending tasks, scheduled tasks, channels (-1: unknown). */
    static long[] counts(Object executor) {
        long pending = -1;
        long scheduled = -1;
        long channels = -1;
        if (executor != null) {
            try {
                pending = ((Number) executor.getClass().getMethod("pendingTasks").invoke(executor)).longValue();
            } catch (ReflectiveOperationException | LinkageError | RuntimeException unknown) {
                // left unknown
            }
            try {
                channels = ((Number) executor.getClass().getMethod("registeredChannels").invoke(executor)).longValue();
            } catch (ReflectiveOperationException | LinkageError | RuntimeException unknown) {
                // left unknown
            }
            Class<?> scheduler = ForeignLoops.superclassNamed(executor.getClass(), "io.netty.util.concurrent.AbstractScheduledEventExecutor");
            Object queue = scheduler != null ? field(scheduler, "scheduledTaskQueue", executor) : null;
            if (queue instanceof Collection<?> tasks) {
                scheduled = tasks.size();
            } else if (scheduler != null) {
                scheduled = 0; // created on the first schedule
            }
        }
        return new long[] {pending, scheduled, channels < 0 ? -1 : channels};
    }

    private static Object field(Class<?> declaring, String name, Object target) {
        try {
            Field field = declaring.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(target);
        } catch (ReflectiveOperationException | RuntimeException unknown) {
            return null;
        }
    }

    // ---- advice: inlined into Netty's classes, in any class loader, so it calls only BlockingCheck ----

    /** Around one task: a ThreadLocal read and four field writes at its start and end. */
    static final class Task {
        @Advice.OnMethodEnter
        static LoopThread enter(@Advice.Origin Class<?> origin, @Advice.Argument(0) Runnable task) {
            return BlockingCheck.beginUnit(LoopKinds.NETTY, origin, task);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter LoopThread unit) {
            BlockingCheck.endUnit(unit);
        }
    }

    /** The start of one batch of I/O events (once per wake-up of the selector, not per channel). */
    static final class Io {
        @Advice.OnMethodEnter
        static LoopThread enter(@Advice.Origin Class<?> origin, @Advice.This Object io) {
            return BlockingCheck.beginUnit(LoopKinds.NETTY, origin, io);
        }
    }

    /** The end of a batch of 4.1's loops, which run one only when keys are ready. */
    static final class IoEnd {
        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter LoopThread unit) {
            BlockingCheck.endUnit(unit);
        }
    }

    /** The end of a batch of 4.2's handlers, which run one at every wake-up: one that handled nothing is counted apart. */
    static final class CountedIoEnd {
        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter LoopThread unit, @Advice.Return int handled, @Advice.Thrown Throwable thrown) {
            BlockingCheck.endIoBatch(unit, thrown != null ? -1 : handled);
        }
    }
}
