package io.loopdiag.agent.boot;

/**
 * What the advice woven into the JDK's blocking methods calls. Injected into the bootstrap class
 * loader by the agent before any JDK class is instrumented, because advice is inlined into
 * {@code java.base} classes that see only bootstrap classes; so it uses JDK types only.
 *
 * <p>Each thread that runs a loop or a task is marked while it does ({@link #markLoopThread}); a
 * blocking method entered on a marked thread, outside the loop's own waiting, is passed to the
 * {@link Listener} once (nested blocking methods inside it are not: the outermost call is the one
 * the application made). On every other thread the check costs one {@code ThreadLocal} read.
 */
public final class BlockingCheck {

    /** Receives the blocking calls made on loop threads. Called on the blocking thread. */
    public interface Listener {
        /**
         * Called as {@code operation} (the JDK method, {@code java.lang.Thread.sleep(long)}) is
         * entered; {@code blocker} is the object a park waits on, or null. Returns null to let
         * the call go on, or a message to throw as a {@link BlockingCallError}.
         */
        String blockingCall(String operation, Object blocker);
    }

    /** Per marked thread: nesting of loop runs, of the loop's own waits, and of reported calls. */
    private static final class State {
        int marks;
        int idle;
        int inCall;
    }

    private static final ThreadLocal<State> STATE = new ThreadLocal<>();
    private static volatile Listener listener;
    /** The class whose instances the loop parks on to pass its baton (EventLoop): not a blocking call. */
    private static volatile Class<?> ownBlocker;

    private BlockingCheck() {
    }

    public static void install(Listener newListener, Class<?> loopClass) {
        ownBlocker = loopClass;
        listener = newListener;
    }

    /** The current thread runs a loop or a task until the matching {@link #unmarkLoopThread}. */
    public static void markLoopThread() {
        State state = STATE.get();
        if (state == null) {
            state = new State();
            STATE.set(state);
        }
        state.marks++;
    }

    public static void unmarkLoopThread() {
        State state = STATE.get();
        if (state != null && --state.marks <= 0) {
            STATE.remove();
        }
    }

    /** The loop thread starts its own wait for I/O: blocking inside it is the loop idling. */
    public static void enterIdle() {
        State state = STATE.get();
        if (state != null) {
            state.idle++;
        }
    }

    public static void exitIdle() {
        State state = STATE.get();
        if (state != null) {
            state.idle--;
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
        State state = STATE.get();
        if (state == null || state.idle != 0 || state.inCall != 0) {
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
        State state = STATE.get();
        if (state != null) {
            state.inCall = 0;
        }
    }

    /** True while the current thread is inside a reported blocking call or the agent's own reporting. */
    public static boolean isInCall() {
        State state = STATE.get();
        return state != null && state.inCall != 0;
    }
}
