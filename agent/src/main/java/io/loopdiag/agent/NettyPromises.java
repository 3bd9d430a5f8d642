package io.loopdiag.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.agent.boot.LoopThread;
import io.loopdiag.protocol.Kind;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CancellationException;
import net.bytebuddy.asm.Advice;

/**
 * Finds Netty promises that failed with nobody to hear it ({@code lost-exception}): the silent
 * {@code writeAndFlush} to a closed channel whose future nobody listens to, waits for or asks.
 * A promise that completes with no listener and no waiter, with a failure, is tracked until
 * someone asks it ({@code cause()}, {@code isSuccess()}, {@code sync()}, {@code await()},
 * {@code get()}, {@code getNow()}) or listens to it (a listener added late is notified at once);
 * one still unasked when it is garbage-collected, or when the JVM exits, is reported, with the
 * stack where it failed where that is known.
 *
 * <p>Cost: every completion of a promise without listeners makes one call and a class comparison;
 * asking a promise costs one volatile read while no failure is tracked (docs/decisions.md).
 */
final class NettyPromises {
    private static final String PROMISE = "io.netty.util.concurrent.DefaultPromise";
    private static final String CAUSE_HOLDER = PROMISE + "$CauseHolder";
    private static final String COLLECTED = "it was garbage-collected";
    /** At most this many failures are tracked at once; more are not (a storm of the same failure says enough). */
    private static final int MAX_TRACKED = 10_000;
    /** Stacks taken per second at most: taking one costs tens of microseconds. */
    private static final int STACKS_PER_SECOND = 64;

    /** A failed promise nobody asked yet. */
    private static final class Failed extends WeakReference<Object> {
        final LoopThread loop; // the foreign loop it failed on, or null
        final String what;
        final Throwable cause;
        final List<StackTraceElement> stack;

        Failed(Object promise, LoopThread loop, String what, Throwable cause, List<StackTraceElement> stack, ReferenceQueue<Object> queue) {
            super(promise, queue);
            this.loop = loop;
            this.what = what;
            this.cause = cause;
            this.stack = stack;
        }
    }

    private final Findings findings;
    private final Map<Object, Failed> byPromise = new WeakHashMap<>(); // guarded by this
    private final Set<Failed> pending = new HashSet<>(); // keeps each Failed reachable until handled
    private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
    private volatile Class<?> causeHolder;
    private volatile Field causeField;
    private int stacksLeft = STACKS_PER_SECOND; // guarded by this

    NettyPromises(Findings findings) {
        this.findings = findings;
    }

    static List<Hook> hooks() {
        String loss = "failed Netty promises nobody observed are not reported";
        return List.of(
                new Hook(PROMISE, PROMISE + "#checkNotifyWaiters", named("checkNotifyWaiters"), Advice.to(Settled.class), loss)
                        .checked(Hook.Check.IF_LOADED),
                new Hook(PROMISE, PROMISE + "#cause/isSuccess/sync/await/get/getNow/addListener",
                        namedOneOf("cause", "isSuccess", "sync", "syncUninterruptibly", "await", "awaitUninterruptibly", "get",
                                "getNow", "addListener", "addListeners"),
                        Advice.to(Observed.class), "a failed Netty promise asked for its outcome may still be reported as lost")
                        .checked(Hook.Check.IF_LOADED));
    }

    /** {@link BlockingCheck.Listener#promiseSettled}: tracks {@code promise} if {@code result} is a failure. */
    void settled(Object promise, Object result) {
        if (result == null || !isCauseHolder(result.getClass())) {
            return;
        }
        Throwable cause = cause(result);
        if (cause == null || cause instanceof CancellationException) {
            return; // cancelled: whoever cancelled it knows
        }
        LoopThread current = BlockingCheck.current();
        LoopThread loop = current != null && current.kind != null ? current : null;
        String what = Names.withoutLambdaAddress(promise.getClass().getSimpleName()) + channel(promise);
        synchronized (this) {
            if (pending.size() >= MAX_TRACKED) {
                return;
            }
            List<StackTraceElement> stack = stacksLeft-- > 0 ? failedAt() : List.of();
            Failed entry = new Failed(promise, loop, what, cause, stack, collected);
            byPromise.put(promise, entry);
            pending.add(entry);
            BlockingCheck.trackedPromises = pending.size();
        }
    }

    /** {@link BlockingCheck.Listener#promiseObserved}: called only while some failure is tracked. */
    synchronized void observed(Object promise) {
        Failed entry = byPromise.remove(promise);
        if (entry != null) {
            pending.remove(entry);
            BlockingCheck.trackedPromises = pending.size();
        }
    }

    /** Reports the failed promises collected unasked since the last call; once a second, on the watchdog's thread. */
    void pollCollected() {
        List<Failed> lost = new ArrayList<>();
        synchronized (this) {
            stacksLeft = STACKS_PER_SECOND;
            Reference<?> ref;
            while ((ref = collected.poll()) != null) {
                if (pending.remove(ref)) {
                    lost.add((Failed) ref);
                }
            }
            BlockingCheck.trackedPromises = pending.size();
        }
        lost.forEach(entry -> report(entry, COLLECTED));
    }

    /** At exit: what was collected, then every failure still unasked. */
    void exiting() {
        pollCollected();
        List<Failed> lost;
        synchronized (this) {
            lost = new ArrayList<>(pending);
            pending.clear();
            byPromise.clear();
            BlockingCheck.trackedPromises = 0;
        }
        lost.forEach(entry -> report(entry, entry.get() == null ? COLLECTED : "the JVM exited"));
    }

    private void report(Failed entry, String when) {
        String what = "a Netty " + entry.what + " failed with " + entry.cause + ", and nobody listened to it or asked for"
                + " its outcome before " + when;
        List<StackTraceElement> stack = entry.stack.isEmpty() ? List.of(entry.cause.getStackTrace()) : entry.stack;
        String loopName = entry.loop != null ? entry.loop.thread.getName() : null;
        findings.report(new Occurrence(Kind.LOST_EXCEPTION, entry.loop, loopName, null, what, stack, null, 0));
    }

    private boolean isCauseHolder(Class<?> type) {
        Class<?> known = causeHolder;
        if (known != null) {
            return type == known;
        }
        if (!type.getName().equals(CAUSE_HOLDER)) {
            return false;
        }
        causeHolder = type;
        return true;
    }

    private Throwable cause(Object holder) {
        try {
            Field field = causeField;
            if (field == null) {
                field = holder.getClass().getDeclaredField("cause");
                field.setAccessible(true);
                causeField = field;
            }
            return (Throwable) field.get(holder);
        } catch (ReflectiveOperationException | RuntimeException unknown) {
            return null;
        }
    }

    /** {@code " of [id: 0x..., L:/127.0.0.1:8080 ! R:/127.0.0.1:5555]"} for a channel's promise, else empty. */
    private static String channel(Object promise) {
        try {
            Object channel = promise.getClass().getMethod("channel").invoke(promise);
            return channel != null ? " of channel " + channel : "";
        } catch (ReflectiveOperationException | LinkageError | RuntimeException none) {
            return "";
        }
    }

    /** Where the promise failed: from the Netty call the application made, down to the loop's unit. */
    private static List<StackTraceElement> failedAt() {
        List<StackTraceElement> frames = ForeignLoops.unitStack(Stacks.withoutAgent(new Throwable().getStackTrace()));
        int app = 0;
        while (app < frames.size() && ForeignLoops.isLibraryFrame(frames.get(app))) {
            app++;
        }
        return app == frames.size() ? frames : frames.subList(Math.max(0, app - 1), frames.size());
    }

    // ---- advice: inlined into Netty's DefaultPromise, in any class loader, so it calls only BlockingCheck ----

    /** At each completion: one branch when there are listeners or waiters, one call when there are none. */
    static final class Settled {
        @Advice.OnMethodExit
        static void exit(@Advice.This Object promise, @Advice.Return boolean hasListeners,
                         @Advice.FieldValue("waiters") short waiters, @Advice.FieldValue("result") Object result) {
            if (!hasListeners && waiters == 0) {
                BlockingCheck.promiseSettled(promise, result);
            }
        }
    }

    /** Per question asked of a promise: one volatile read while no failure is tracked. */
    static final class Observed {
        @Advice.OnMethodEnter
        static void enter(@Advice.This Object promise) {
            if (BlockingCheck.trackedPromises != 0) {
                BlockingCheck.promiseObserved(promise);
            }
        }
    }
}
