package io.loopdiag.agent.boot;

/**
 * What {@link BlockingCheck} knows of one thread: whether it runs loop code now (and how deeply
 * nested), and, for a thread of a loop the agent does not own (a Netty event loop, the AWT event
 * dispatch thread, a Reactor non-blocking thread), the loop's kind and the unit of work it runs
 * now. A loop-core loop has one state for a run, shared by its thread and its tasks' (whoever
 * holds the baton); a foreign loop thread's lives as long as the thread and is listed in
 * {@link BlockingCheck#foreignLoops()}.
 *
 * <p>The unit of work and its count are plain fields, written by the loop thread at each unit's
 * start and end and read by the agent's watchdog without synchronization, as loop-core publishes
 * its current handle: a reader may see them a moment late, never torn (a reference and a long
 * written by one thread; the watchdog only compares them across samples).
 */
public final class LoopThread {
    /** The thread this state is of; null for a loop-core loop's, which its thread and its tasks' share. */
    public final Thread thread;
    /** The loop's kind ({@code netty}, {@code awt}...), or null for a loop-core thread. */
    public volatile String kind;
    /** The loop object itself where the agent found one (a Netty event loop), else null. */
    public volatile Object loop;
    /** True for a thread marked for its whole life (a Reactor non-blocking thread, a named thread). */
    boolean permanent;
    /**
     * True for a loop thread found running when the agent started, until its first unit since:
     * a unit it began before the hooks is not marked, only its stack shows it.
     */
    public volatile boolean adopted;

    int marks;
    int idle;
    int inCall;

    /** The unit of work running now, or null between units. */
    public Object work;
    /**
     * What the unit runs for, where a hook inside it said so (a Vert.x route or event-bus
     * registration dispatching to its handler), else null; written on the loop thread.
     */
    public volatile Object handler;
    /** How many units have started on this thread. */
    public long units;
    /**
     * Of those, the I/O batches that found no I/O to handle: Netty 4.2's I/O handlers run one at
     * every wake-up of the loop, keys or not, and say how many they handled.
     */
    public long emptyUnits;
    /**
     * The agent's record of the blocking call being made now, timed to its end (a JFR event begun
     * as it was entered), or null; the loop thread's own.
     */
    public Object timing;
    private Object[] outer = new Object[2];
    private int depth;

    LoopThread(Thread thread) {
        this.thread = thread;
    }

    /** A unit starts; one already running (a nested event dispatch) waits under it. */
    void begin(Object unit) {
        marks++;
        if (depth > 0) {
            if (depth > outer.length) {
                outer = java.util.Arrays.copyOf(outer, outer.length * 2);
            }
            outer[depth - 1] = work;
        }
        depth++;
        work = unit;
        units++;
    }

    /** The unit begun last ends; the one it ran in (if any) resumes, as a new unit for the watchdog. */
    void end() {
        marks--;
        if (depth == 0) {
            return;
        }
        depth--;
        if (depth > 0) {
            work = outer[depth - 1];
            outer[depth - 1] = null;
            units++;
        } else {
            work = null;
        }
    }
}
