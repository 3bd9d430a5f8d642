package io.loopdiag.agent.boot;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * What the advice woven into the JDK's blocking methods, and into the foreign loops' dispatch
 * methods, calls. Injected into the bootstrap class loader by the agent before any JDK class is
 * instrumented, because advice is inlined into {@code java.base} classes (and into classes of any
 * class loader) that see only bootstrap classes; so it uses JDK types only.
 *
 * <p>A thread runs loop code while it holds a running loop-core loop's baton (the loop's own
 * thread, or the task it handed the baton to: {@link #loopCoreStarted}), or while it is marked: a
 * foreign loop marks each unit of work ({@link #beginUnit}: a Netty task or I/O batch, an AWT
 * event); a thread the {@link Listener} names as a loop thread (a Reactor non-blocking thread, one
 * matching {@code threads=REGEX}) is marked for its whole life. A
 * blocking method entered on a marked thread, outside the loop's own waiting, is passed to the
 * {@link Listener} once (nested blocking methods inside it are not: the outermost call is the one
 * the application made). On every other thread the check costs one {@code ThreadLocal} read
 * (and, while a loop-core loop runs, a look at the running loops' batons).
 *
 * <p>A loop-core loop and all its tasks share one state, found from the baton: only its holder
 * runs, so only it can block. A state per task's thread would cost each suspended task a
 * thread-local map and its entries, about 240 bytes (bench/README.md).
 */
public final class BlockingCheck {

    /** Receives the blocking calls made on loop threads, and names foreign loop threads. */
    public interface Listener {
        /**
         * Called as {@code operation} (the JDK method, {@code java.lang.Thread.sleep(long)}) is
         * entered; {@code blocker} is the object a park waits on, or null. Returns null to let
         * the call go on, or a message to throw as a {@link BlockingCallError}.
         */
        String blockingCall(String operation, Object blocker);

        /**
         * The kind of loop {@code thread} runs for its whole life (a Reactor non-blocking thread,
         * a thread the user named), or null for an ordinary thread. Asked once per platform thread,
         * on that thread, the first time it may block.
         */
        String loopKindOf(Thread thread);

        /**
         * {@code loop} (a thread's state) ran its first unit of work of kind {@code hint}, begun in
         * a method of {@code origin}: the listener may refine its kind and find its loop object. On
         * the loop thread, once per thread.
         */
        void loopStarted(LoopThread loop, String hint, Class<?> origin);

        /**
         * The blocking call for which the listener left {@code timing} in the thread's state
         * ({@link LoopThread#timing}) has returned or thrown; on the loop thread.
         */
        void blockingCallEnded(Object timing);

        /** A Netty promise completed with nobody listening or waiting; {@code result} is its outcome field. */
        void promiseSettled(Object promise, Object result);

        /** Someone asked a tracked Netty promise for its outcome, or listens to it now. */
        void promiseObserved(Object promise);
    }

    /** How many failed Netty promises are tracked: while none is, asking a promise costs one read. */
    public static volatile int trackedPromises;

    private static final ThreadLocal<LoopThread> STATE = new ThreadLocal<>();
    /** The state of every thread that is not a loop's, once asked. */
    private static final LoopThread ORDINARY = new LoopThread(null);
    /** What {@link #enterHandler} returns on a thread that runs no foreign loop. */
    private static final Object NOT_A_LOOP = new Object();
    private static final ConcurrentLinkedQueue<LoopThread> FOREIGN = new ConcurrentLinkedQueue<>();
    /** Foreign loop threads found running when the agent started that have not begun a unit since; guarded by the class. */
    private static final Map<Thread, LoopThread> ADOPTED = new ConcurrentHashMap<>();
    private static volatile Listener listener;
    /** The class whose instances the loop parks on to pass its baton (EventLoop): not a blocking call. */
    private static volatile Class<?> ownBlocker;
    /** loop-core's {@code EventLoop.current}: the loop whose baton the calling thread holds, or null. */
    private static volatile Supplier<Object> heldLoop;
    /** The state of each loop-core loop running now, by loop: shared by whoever holds its baton. */
    private static final Map<Object, LoopThread> LOOP_CORE = new ConcurrentHashMap<>();
    /**
     * The agent's watchdog while it sleeps through a quiet spell (no loop ran a unit since two of
     * its samples), else null: the next unit to begin wakes it ({@link #wakeWatchdog}), so that the
     * watchdog times that unit from its start. One read of this field per unit.
     */
    private static volatile Thread quietWatchdog;

    private BlockingCheck() {
    }

    /**
     * Starts the check; {@code loopClass} is loop-core's baton blocker and {@code currentLoop} its
     * {@code EventLoop.current}, both null without loop-core.
     */
    public static void install(Listener newListener, Class<?> loopClass, Supplier<Object> currentLoop) {
        ownBlocker = loopClass;
        heldLoop = currentLoop;
        listener = newListener;
    }

    /** loop-core's {@code loop} starts a run: from now on, whoever holds its baton runs loop code. */
    public static void loopCoreStarted(Object loop) {
        LOOP_CORE.put(loop, loopCoreState());
        wakeWatchdog();
    }

    /** Whether loop-core's running {@code loop} waits in its own idle wait, which it leaves through {@link #exitIdle}. */
    public static boolean loopCoreWaits(Object loop) {
        LoopThread state = LOOP_CORE.get(loop);
        return state != null && state.idle > 0;
    }

    /**
     * {@code watchdog} sleeps from now on until the next unit of any loop begins, or wakes as it
     * would anyway; null: it samples again on its period.
     */
    public static void quiet(Thread watchdog) {
        quietWatchdog = watchdog;
    }

    /** Whether {@code watchdog} is still quiet: no unit has begun since it said so. */
    public static boolean isQuiet(Thread watchdog) {
        return quietWatchdog == watchdog;
    }

    private static void wakeWatchdog() {
        Thread sleeping = quietWatchdog;
        if (sleeping != null) {
            quietWatchdog = null;
            LockSupport.unpark(sleeping);
        }
    }

    /** loop-core's {@code loop} was running when the agent started, unless it is known already. */
    public static void loopCoreRunning(Object loop) {
        LOOP_CORE.putIfAbsent(loop, loopCoreState());
    }

    /** loop-core's {@code loop} stopped running, or closed. */
    public static void loopCoreStopped(Object loop) {
        LOOP_CORE.remove(loop);
    }

    /** A loop-core loop's state: of no one thread (its thread's and its tasks' in turn), running loop code. */
    private static LoopThread loopCoreState() {
        LoopThread state = new LoopThread(null);
        state.marks = 1;
        return state;
    }

    /** The current thread runs loop code until the matching {@link #unmarkLoopThread} (the agent's self-check). */
    public static void markLoopThread() {
        LoopThread state = STATE.get();
        if (state == null || state == ORDINARY) {
            state = new LoopThread(Thread.currentThread());
            STATE.set(state);
        }
        state.marks++;
    }

    public static void unmarkLoopThread() {
        LoopThread state = STATE.get();
        if (state != null && state != ORDINARY && --state.marks <= 0 && state.kind == null) {
            STATE.remove();
        }
    }

    /**
     * A unit of work of a foreign loop begins on the current thread: {@code work} is the task or
     * event, {@code hint} the loop's kind as the hook knows it, {@code origin} the hooked class.
     * Returns the thread's state, for {@link #endUnit}.
     */
    public static LoopThread beginUnit(String hint, Class<?> origin, Object work) {
        if (quietWatchdog != null) {
            wakeWatchdog();
        }
        LoopThread state = STATE.get();
        if (state == null || state == ORDINARY || state.kind == null) {
            state = foreign(state, hint, origin);
        }
        state.begin(work);
        return state;
    }

    /** The unit begun by {@link #beginUnit} on this thread has ended. */
    public static void endUnit(LoopThread state) {
        if (state != null) {
            state.end();
        }
    }

    /** The I/O batch begun by {@link #beginUnit} on this thread has ended, having handled {@code handled} channels (-1: it threw). */
    public static void endIoBatch(LoopThread state, int handled) {
        if (state != null) {
            if (handled == 0) {
                state.emptyUnits++;
            }
            state.end();
        }
    }

    /**
     * A unit of work of a foreign loop dispatches to the handler of {@code handler} (a Vert.x
     * route or event-bus registration), until the matching {@link #exitHandler}. Returns what to
     * pass to it: the handler this one runs inside, or a marker when the thread runs no loop.
     */
    public static Object enterHandler(Object handler) {
        LoopThread state = STATE.get();
        if (state == null || state == ORDINARY || state.kind == null) {
            return NOT_A_LOOP;
        }
        Object outer = state.handler;
        state.handler = handler;
        return outer;
    }

    public static void exitHandler(Object outer) {
        if (outer != NOT_A_LOOP) {
            LoopThread state = STATE.get();
            if (state != null) {
                state.handler = outer;
            }
        }
    }

    /** The loop thread starts its own wait (for I/O, for its next task): blocking inside it is the loop idling. */
    public static void enterIdle() {
        LoopThread state = stateOfThisThread();
        if (state != ORDINARY) {
            state.idle++;
        }
    }

    public static void exitIdle() {
        LoopThread state = known();
        if (state != null && state != ORDINARY && state.idle > 0) { // > 0: a wait entered before the agent was
            state.idle--;
        }
        if (quietWatchdog != null) {
            wakeWatchdog();
        }
    }

    /**
     * Entry of a blocking method. Returns true if this call was counted (the advice then calls
     * {@link #exit}); throws {@link BlockingCallError} if the listener refuses the call.
     */
    public static boolean enter(String operation, Object blocker) {
        if (blocker != null && blocker.getClass() == ownBlocker) {
            return false; // loop-core passing its baton: the most frequent park of all, so checked first
        }
        LoopThread state = stateOfThisThread();
        if (state.marks <= 0 || state.idle != 0 || state.inCall != 0) {
            return false;
        }
        state.inCall = 1;
        Listener current = listener;
        String refusal = null;
        if (current != null) {
            try {
                refusal = current.blockingCall(operation, blocker);
            } catch (Throwable ignored) {
                // The agent must never break the application; a failed report is a lost report.
            }
        }
        if (refusal != null) {
            state.inCall = 0;
            throw new BlockingCallError(refusal);
        }
        return true;
    }

    public static void exit() {
        LoopThread state = known();
        if (state == null || state == ORDINARY) {
            return;
        }
        Object timing = state.timing;
        if (timing != null) {
            state.timing = null;
            Listener current = listener;
            try {
                if (current != null) {
                    current.blockingCallEnded(timing); // still inCall: nothing it does is a blocking call
                }
            } catch (Throwable ignored) {
                // As in enter.
            }
        }
        state.inCall = 0;
    }

    /** The current thread's state while it runs loop code, else null. */
    public static LoopThread current() {
        LoopThread state = known();
        return state == null || state == ORDINARY || state.marks <= 0 ? null : state;
    }

    /** The threads of foreign loops that are alive, in the order they started; the dead are forgotten. */
    public static List<LoopThread> foreignLoops() {
        List<LoopThread> alive = new ArrayList<>();
        for (LoopThread loop : FOREIGN) {
            if (loop.thread.isAlive()) {
                alive.add(loop);
            } else {
                FOREIGN.remove(loop);
                ADOPTED.remove(loop.thread);
            }
        }
        return alive;
    }

    /**
     * {@code thread}, found running a foreign loop of {@code kind} when the agent started (it was
     * attached to a running JVM), is listed now: a unit of work it began before the hooks were
     * woven is not marked, so it is seen only on the thread's stack until the thread begins its
     * next unit, which makes this state its own. Nothing happens if the thread is listed already.
     */
    public static synchronized void adopt(Thread thread, String kind) {
        for (LoopThread known : FOREIGN) {
            if (known.thread == thread) {
                return;
            }
        }
        LoopThread state = new LoopThread(thread);
        state.kind = kind;
        state.adopted = true;
        ADOPTED.put(thread, state);
        FOREIGN.add(state);
    }

    /** A Netty promise completed without a listener or a waiter (the advice calls it once per such completion). */
    public static void promiseSettled(Object promise, Object result) {
        Listener current = listener;
        if (current != null) {
            try {
                current.promiseSettled(promise, result);
            } catch (Throwable ignored) {
                // A failure not tracked is a lost report, never a broken promise.
            }
        }
    }

    public static void promiseObserved(Object promise) {
        Listener current = listener;
        if (current != null) {
            try {
                current.promiseObserved(promise);
            } catch (Throwable ignored) {
                // As above.
            }
        }
    }

    /** The state of the loop-core loop whose baton this thread holds, else this thread's own, or null if it has none yet. */
    private static LoopThread known() {
        LoopThread state = heldLoopState();
        return state != null ? state : STATE.get();
    }

    private static LoopThread heldLoopState() {
        Supplier<Object> current = heldLoop;
        if (current == null || LOOP_CORE.isEmpty()) {
            return null;
        }
        Object loop = current.get();
        return loop == null ? null : LOOP_CORE.get(loop);
    }

    /** This thread's state; on a platform thread's first call, the listener says whether it is a loop's. */
    private static LoopThread stateOfThisThread() {
        LoopThread state = known();
        if (state != null) {
            return state;
        }
        Thread thread = Thread.currentThread();
        STATE.set(ORDINARY); // while the listener answers: a blocking call inside it must not ask again
        String kind = null;
        Listener current = listener;
        if (current != null && !thread.isVirtual()) {
            try {
                kind = current.loopKindOf(thread);
            } catch (Throwable ignored) {
                // An ordinary thread, then.
            }
        }
        if (kind == null) {
            return ORDINARY;
        }
        LoopThread loop = new LoopThread(thread);
        loop.kind = kind;
        loop.permanent = true;
        loop.marks = 1;
        STATE.set(loop);
        FOREIGN.add(loop);
        return loop;
    }

    /** The current thread becomes a foreign loop's, keeping what loop-core or the listener had marked. */
    private static LoopThread foreign(LoopThread known, String hint, Class<?> origin) {
        LoopThread state = known == null || known == ORDINARY ? null : known;
        if (state == null || !state.permanent) {
            state = list(state);
        }
        state.kind = hint;
        STATE.set(state);
        Listener current = listener;
        if (current != null) {
            try {
                current.loopStarted(state, hint, origin);
            } catch (Throwable ignored) {
                // The loop keeps the hook's kind and no loop object.
            }
        }
        return state;
    }

    /** Lists the current thread's {@code state} as a foreign loop's, or its adopted state, or a new one when null. */
    private static synchronized LoopThread list(LoopThread state) {
        LoopThread adopted = ADOPTED.isEmpty() ? null : ADOPTED.remove(Thread.currentThread());
        if (adopted != null) {
            adopted.adopted = false;
            return adopted; // already listed
        }
        LoopThread listed = state != null ? state : new LoopThread(Thread.currentThread());
        FOREIGN.add(listed);
        return listed;
    }
}
