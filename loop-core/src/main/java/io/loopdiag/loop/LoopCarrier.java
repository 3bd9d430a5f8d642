package io.loopdiag.loop;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One platform thread that carries a running loop's virtual thread and its tasks' virtual threads,
 * so that handing the baton between them never wakes another core: an unpark just queues the next
 * virtual thread behind the one that is about to park. With the JDK's shared scheduler each hand-off
 * woke a second carrier thread, and a task switch took more than twice as long (docs/decisions.md).
 *
 * <p>The JDK has no public API for a virtual thread's scheduler yet. The loop uses this carrier only
 * when {@code java.lang} is open to loop-core ({@code --add-opens java.base/java.lang=ALL-UNNAMED},
 * or {@code Add-Opens: java.base/java.lang} in an executable jar's manifest); otherwise
 * {@link #open} returns null and the loop runs on the shared scheduler, correct and slower.
 *
 * <p>A virtual thread inherits the scheduler of the thread that creates it, so one started from a
 * task or a callback would land here and run in the loop's place. The carrier therefore runs only
 * the loop's own thread and the thread the baton is {@linkplain #handOff handed} to, which it knows
 * by identity; any other goes to the JDK's shared scheduler, where it would have run without this
 * class. So does a task's thread woken another way (an interrupt, the timeout of a blocking call
 * made in a task) until its next hand-off: correct, since the baton, not the carrier, keeps one
 * thread at a time in the loop's code. Telling them apart costs two reference compares; a set of
 * the tasks' threads cost a hash-set insert and removal per task and a lookup per hand-off
 * (docs/decisions.md).
 *
 * <p>A virtual thread that parks while pinned (in a class initializer, under a native frame, in
 * {@code synchronized} on JDK 21 to 23) parks the platform thread under it, and with it every
 * thread queued here: the loop would hang. So one watcher thread looks at the carriers, every
 * {@link #WATCH_NANOS} while they run and less often while they do not; a carrier whose thread it
 * finds parked or blocked inside the same run at two looks in a row is <em>held</em>, and until
 * that run ends, what is queued and what comes goes to the JDK's shared scheduler, where the baton
 * still keeps one thread at a time in the loop's code.
 */
final class LoopCarrier implements Executor {
    private static final Access ACCESS = Access.find();
    private static final VarHandle SLOT;
    private static final VarHandle RUNS;
    private static final VarHandle HELD_RUN;
    private static final VarHandle AFTER_YIELD;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            SLOT = lookup.findVarHandle(LoopCarrier.class, "slot", Runnable.class);
            RUNS = lookup.findVarHandle(LoopCarrier.class, "runs", long.class);
            HELD_RUN = lookup.findVarHandle(LoopCarrier.class, "heldRun", long.class);
            AFTER_YIELD = lookup.findVarHandle(LoopCarrier.class, "afterYield", Runnable.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** An idle carrier's platform thread ends after this long, and a new one starts when needed. */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);
    /**
     * How often the watcher looks for a held carrier while the carriers run continuations (a
     * pinned park is held at the second look that finds it); each look that finds none has run
     * since the last doubles the wait, up to {@link #WATCH_MAX_NANOS}.
     */
    private static final long WATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The longest wait between two looks: about the longest a pinned park stalls a loop (a quiet one wakes it once a second). */
    private static final long WATCH_MAX_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The carriers that have a platform thread now: what the watcher looks at. */
    private static final Set<LoopCarrier> CARRYING = ConcurrentHashMap.newKeySet();
    /** Whether the watcher's thread runs (or is about to); set by whoever starts it. */
    private static final AtomicBoolean WATCHING = new AtomicBoolean();

    private final String threadName;
    /** The {@code runContinuation} of the loop's thread: what the JDK hands to {@link #execute} to run it. */
    private volatile Runnable loopThread;
    /**
     * The {@code runContinuation} of the thread being handed the baton, while {@link #handOff} starts
     * or unparks it: the JDK calls {@link #execute} on the same thread, before that returns.
     */
    private Runnable handingTo;
    /**
     * The continuation to run next. A hand-off queues one continuation for a carrier that has none
     * queued, so it takes this slot: no queue node a hand-off (24 bytes). Lock-free on purpose:
     * {@link #execute} runs on the loop's thread at every hand-off, where a lock would be a
     * blocking call for the agent to check.
     */
    private volatile Runnable slot;
    /** Continuations queued while {@link #slot} was taken (the loop's thread woken meanwhile), run first. */
    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** Whether a platform thread is carrying (or about to); set by whoever starts one. */
    private final AtomicBoolean hasThread = new AtomicBoolean();
    /** The carrying thread, while it parks for want of work (the producer must wake it). */
    private volatile Thread idle;
    private volatile boolean closed;
    /** Run by the carrying thread once the virtual thread it runs has yielded or ended, then cleared. */
    private volatile Runnable afterYield;
    /** The platform thread carrying now, or the last one (written by it, compared by the threads it carries). */
    private volatile Thread carrying;
    /**
     * Odd while the carrying thread runs a continuation: it counts up before and after each run,
     * with release stores, so that a hand-off pays no fence for the watcher.
     */
    private long runs;
    /** The run ({@link #runs}) a pinned park holds, while its continuations go to the JDK's scheduler; else 0. */
    private volatile long heldRun;
    /** Told, on the watcher's thread, the carrying thread a pinned park holds. */
    private final Consumer<Thread> onHeld;
    /** {@link #runs} when the watcher last looked (the watcher's alone). */
    private long runsSeen;
    /** The run the watcher found parked or blocked at its last look, or 0 (the watcher's alone). */
    private long suspectRun;

    private LoopCarrier(String name, Consumer<Thread> onHeld) {
        threadName = "loopdiag-carrier-" + name;
        this.onHeld = onHeld;
    }

    /**
     * A new carrier, or null when the JDK does not let loop-core choose a virtual thread's
     * scheduler. {@code onHeld} is told the carrying thread when a pinned park holds it.
     */
    static LoopCarrier open(String name, Consumer<Thread> onHeld) {
        return ACCESS == null || Boolean.getBoolean("loopdiag.sharedScheduler") ? null : new LoopCarrier(name, onHeld);
    }

    /** Whether {@code virtualThread} is mounted on {@code carrier} now (false for a platform thread). */
    static boolean isMountedOn(Thread virtualThread, Thread carrier) {
        return ACCESS != null && virtualThread.isVirtual() && ACCESS.carrierOf(virtualThread) == carrier;
    }

    /** The loop's thread: an unstarted virtual thread that runs here. */
    Thread newLoopThread(String name, Runnable body) {
        Thread thread = threadBuilder().name(name).unstarted(body);
        loopThread = ACCESS.runContinuation(thread);
        return thread;
    }

    /** A builder of virtual threads that run here, whichever thread creates them. */
    Thread.Builder.OfVirtual threadBuilder() {
        return ACCESS.builder(this);
    }

    /**
     * Whether the calling virtual thread runs on this carrier now, not on the JDK's scheduler where
     * a wake-up other than a hand-off puts it.
     */
    boolean carriesCurrentThread() {
        return ACCESS.currentCarrierThread() == carrying;
    }

    /**
     * Makes the carrying thread run {@code action} as soon as the calling virtual thread, which
     * runs here ({@link #carriesCurrentThread}), has yielded (parked or ended).
     */
    void runAfterYield(Runnable action) {
        afterYield = action;
    }

    /**
     * Starts ({@code start}) or unparks {@code virtualThread}, the loop's or a task's (whose
     * scheduler this is: it was created on the loop's thread or a task's), to run here next.
     */
    void handOff(Thread virtualThread, boolean start) {
        handingTo = ACCESS.runContinuation(virtualThread);
        try {
            if (start) {
                virtualThread.start();
            } else {
                LockSupport.unpark(virtualThread);
            }
        } finally {
            handingTo = null;
        }
    }

    /** Called by the JDK to mount a virtual thread whose scheduler this is. */
    @Override
    public void execute(Runnable continuation) {
        if (closed || heldRun != 0 || (continuation != handingTo && continuation != loopThread)) {
            ACCESS.sharedScheduler.execute(continuation);
            return;
        }
        if (!SLOT.compareAndSet(this, null, continuation)) {
            queue.offer(continuation);
        }
        // The common case, a hand-off on this carrier, needs no wake-up: the carrier is busy
        // running the caller and polls the queue before it parks.
        Thread sleeper = idle;
        if (sleeper != null) {
            LockSupport.unpark(sleeper);
        } else if (!hasThread.get() && hasThread.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name(threadName).start(this::carry);
        }
    }

    /** The platform thread's body: runs continuations until idle for {@link #IDLE_NANOS} or closed. */
    private void carry() {
        Thread me = Thread.currentThread();
        carrying = me;
        watch(this);
        while (true) {
            Runnable next = poll();
            if (next == null) {
                idle = me;
                long idleUntil = System.nanoTime() + IDLE_NANOS;
                // Polled again after idle is set: what was offered before a producer saw it is not slept on.
                while ((next = poll()) == null && !closed) {
                    long leftNanos = idleUntil - System.nanoTime();
                    if (leftNanos <= 0) {
                        break;
                    }
                    LockSupport.parkNanos(this, leftNanos);
                }
                idle = null;
                if (next == null) {
                    CARRYING.remove(this); // before hasThread goes false: a new thread adds it back
                    hasThread.set(false);
                    // Offered after the poll but before hasThread went false: carry on, unless a new thread does.
                    if ((slot == null && queue.isEmpty()) || !hasThread.compareAndSet(false, true)) {
                        return;
                    }
                    watch(this);
                    continue;
                }
            }
            long run = runs + 1;
            RUNS.setRelease(this, run);
            try {
                try {
                    next.run();
                } finally {
                    RUNS.setRelease(this, run + 1);
                    if (heldRun == run) {
                        HELD_RUN.compareAndSet(this, run, 0L);
                    }
                }
                if (afterYield != null) {
                    Runnable action = (Runnable) AFTER_YIELD.getAndSet(this, null);
                    if (action != null) {
                        action.run();
                    }
                }
            } catch (Throwable t) {
                me.getUncaughtExceptionHandler().uncaughtException(me, t);
            }
        }
    }

    /** The next continuation to run, or null: a queued one first, so that none waits behind a chain of hand-offs. */
    private Runnable poll() {
        Runnable queued = queue.poll();
        return queued != null ? queued : (Runnable) SLOT.getAndSet(this, null);
    }

    /**
     * Marks {@code carrier} as carrying, and starts the watcher unless it runs. Called by the
     * carrier's thread as it starts; it leaves {@link #CARRYING} as it ends.
     */
    private static void watch(LoopCarrier carrier) {
        CARRYING.add(carrier);
        if (!WATCHING.get() && WATCHING.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("loopdiag-carriers-watcher").start(LoopCarrier::watchCarriers);
        }
    }

    /** The watcher's body: looks at each carrier while any carries, the more often the more they run. */
    private static void watchCarriers() {
        long waitNanos = WATCH_NANOS;
        while (true) {
            LockSupport.parkNanos(waitNanos);
            boolean ran = false;
            for (LoopCarrier carrier : CARRYING) {
                try {
                    ran |= carrier.lendIfHeld();
                } catch (Throwable t) {
                    Thread me = Thread.currentThread();
                    me.getUncaughtExceptionHandler().uncaughtException(me, t);
                }
            }
            waitNanos = ran ? WATCH_NANOS : Math.min(2 * waitNanos, WATCH_MAX_NANOS);
            if (CARRYING.isEmpty()) {
                WATCHING.set(false);
                // A carrier that started after the check above finds WATCHING false, or this goes on.
                if (CARRYING.isEmpty() || !WATCHING.compareAndSet(false, true)) {
                    return;
                }
            }
        }
    }

    /**
     * On the watcher's thread: if a pinned park holds the carrying thread inside a run (a
     * virtual thread mounted here parks or blocks its carrier for long only when pinned), sends
     * what is queued here to the JDK's scheduler, as {@link #execute} does until that run ends,
     * once it has told {@link #onHeld}. The run must be found parked or blocked at two looks in a
     * row: a thread unmounting may wait a moment for its own lock, which the JDK also takes to
     * read a mounted thread's state (the agent's watchdog does, at every sample). Clears a hold
     * whose run ended while this set it. Returns whether the carrier is held, suspected or has
     * run anything since the last look.
     */
    private boolean lendIfHeld() {
        long held = heldRun;
        long run = (long) RUNS.getAcquire(this);
        boolean ran = run != runsSeen;
        runsSeen = run;
        if (held != 0) {
            if (run != held) {
                HELD_RUN.compareAndSet(this, held, 0L);
                return true;
            }
            lend(); // what came in a race with the hold, and a new task's start waiting for the held thread's yield
            return true;
        }
        Thread thread = carrying;
        boolean stuck = (run & 1) != 0 && thread != null && isParkedOrBlocked(thread.getState())
                && (long) RUNS.getAcquire(this) == run;
        long suspect = suspectRun;
        suspectRun = stuck ? run : 0;
        if (!stuck || suspect != run || !HELD_RUN.compareAndSet(this, 0L, run)) {
            return ran || stuck;
        }
        if ((long) RUNS.getAcquire(this) != run) {
            // The run ended meanwhile, and its thread may have missed the hold: undo it.
            HELD_RUN.compareAndSet(this, run, 0L);
            return true;
        }
        try {
            onHeld.accept(thread); // first: the held thread is still where it parked
        } finally {
            lend();
        }
        return true;
    }

    /** Sends the queued continuations to the JDK's scheduler, and runs the action waiting for the held thread's yield. */
    private void lend() {
        for (Runnable next = poll(); next != null; next = poll()) {
            ACCESS.sharedScheduler.execute(next);
        }
        Runnable action = (Runnable) AFTER_YIELD.getAndSet(this, null);
        if (action != null) {
            action.run();
        }
    }

    private static boolean isParkedOrBlocked(Thread.State state) {
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
    }

    /** The loop closed: its thread ends once idle, and anything scheduled later goes to the JDK. */
    void close() {
        closed = true;
        Thread sleeper = idle;
        if (sleeper != null) {
            LockSupport.unpark(sleeper);
        }
    }

    /** The JDK internals this needs, found once; null when any of them is missing or closed. */
    private record Access(Constructor<?> builderWithScheduler, VarHandle runContinuation, Executor sharedScheduler,
                          MethodHandle currentCarrier, VarHandle carrierThread) {
        static Access find() {
            try {
                Class<?> builder = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder");
                Constructor<?> constructor = builder.getDeclaredConstructor(Executor.class);
                constructor.setAccessible(true);
                Class<?> virtualThread = Class.forName("java.lang.VirtualThread");
                MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(virtualThread, MethodHandles.lookup());
                VarHandle runContinuation = lookup.findVarHandle(virtualThread, "runContinuation", Runnable.class);
                VarHandle carrierThread = lookup.findVarHandle(virtualThread, "carrierThread", Thread.class);
                Field defaultScheduler = virtualThread.getDeclaredField("DEFAULT_SCHEDULER");
                defaultScheduler.setAccessible(true);
                Executor shared = (Executor) defaultScheduler.get(null);
                MethodHandle currentCarrier = MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup())
                        .findStatic(Thread.class, "currentCarrierThread", MethodType.methodType(Thread.class));
                return new Access(constructor, runContinuation, shared, currentCarrier, carrierThread);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // Not opened (the usual InaccessibleObjectException), or another JDK's internals: share.
                return null;
            }
        }

        Thread.Builder.OfVirtual builder(Executor scheduler) {
            try {
                return (Thread.Builder.OfVirtual) builderWithScheduler.newInstance(scheduler);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot build a virtual thread on the loop's carrier", e);
            }
        }

        Thread currentCarrierThread() {
            try {
                return (Thread) currentCarrier.invokeExact();
            } catch (Throwable e) {
                throw new IllegalStateException("cannot tell the current carrier thread", e);
            }
        }

        Runnable runContinuation(Thread virtualThread) {
            return (Runnable) runContinuation.get(virtualThread);
        }

        Thread carrierOf(Thread virtualThread) {
            return (Thread) carrierThread.getVolatile(virtualThread);
        }
    }
}
