package io.loopdiag.protocol;

import java.util.List;

/**
 * The kinds of event loop a dump holds, as a loop's {@link Fields#KIND} says it: loop-core's own
 * loops, and the foreign loops, threads of other frameworks that the agent watches without owning
 * them. A foreign loop has the fields of a loop-core loop: its {@link Fields#ID} and {@link
 * Fields#NAME} are its thread's, its {@link Fields#RUNNING} is the unit of work it runs now (what
 * a callback is to loop-core), and it has no tasks. A loop without a kind is loop-core's (a dump
 * of an agent that writes none): readers take {@link #of}.
 */
public final class LoopKinds {
    /**
     * A loop of loop-core, the reference loop: {@code running} is its callback, and the dump has
     * its ready callbacks, timers and tasks.
     */
    public static final String LOOP_CORE = "loop-core";
    /**
     * A Netty event loop's thread ({@code nioEventLoopGroup-2-1}): a unit of work is one task or
     * the I/O of one channel's handler; {@link Fields#READY_COUNT} is its pending tasks, {@link
     * Fields#TIMER_COUNT} its scheduled tasks, {@link Fields#CHANNEL_COUNT} its registered channels.
     */
    public static final String NETTY = "netty";
    /**
     * A Vert.x event loop's thread ({@code vert.x-eventloop-thread-0}): a Netty event loop (Vert.x
     * runs on Netty), with Netty's units of work and counts.
     */
    public static final String VERTX = "vertx";
    /**
     * A thread Reactor marks non-blocking ({@code parallel-1}): it has no unit of work ({@link
     * #hasUnits}), so it is {@link States#RUNNING} while the thread is runnable or blocked, and
     * its {@link Fields#RUNNING} is then the thread's state in words ({@code thread blocked}) with
     * its whole stack; else {@link States#IDLE}.
     */
    public static final String REACTOR = "reactor";
    /**
     * The Swing/AWT event dispatch thread ({@code AWT-EventQueue-0}): a unit of work is one event;
     * {@link Fields#READY_COUNT} is the events queued.
     */
    public static final String AWT = "awt";
    /**
     * A thread the user names as a loop with the agent option {@code threads} (a regular expression):
     * like {@link #REACTOR}, no unit of work.
     */
    public static final String NAMED = "named";

    private static final List<String> ALL = List.of(LOOP_CORE, NETTY, VERTX, REACTOR, AWT, NAMED);

    private LoopKinds() {
    }

    /** Every kind, loop-core's first: the order a count by kind lists them in. */
    public static List<String> all() {
        return ALL;
    }

    /** The kind of a loop whose {@link Fields#KIND} is {@code kind}: {@link #LOOP_CORE} for null (a loop without one). */
    public static String of(String kind) {
        return kind == null ? LOOP_CORE : kind;
    }

    /** True for a loop the agent does not own: any kind but {@link #LOOP_CORE}, one it does not know included. */
    public static boolean isForeign(String kind) {
        return !LOOP_CORE.equals(of(kind));
    }

    /**
     * True for a loop that runs units of work (a callback, a task, an event), whose {@link
     * Fields#RUNNING} says how long the one running now has run; false for {@link #REACTOR} and
     * {@link #NAMED} threads, which are loops for their whole life. A kind not known here is
     * taken to have units.
     */
    public static boolean hasUnits(String kind) {
        return !REACTOR.equals(kind) && !NAMED.equals(kind);
    }

    /**
     * The packages of the framework that runs a loop of {@code kind}: on that loop, a frame of
     * theirs is the loop's machinery, not the application's code ({@link Frame#application(List,
     * String)}). Empty for loop-core (whose frames are always the library's), for named threads and
     * for a kind not known here. Each ends with a dot.
     */
    public static List<String> frameworkPackages(String kind) {
        return switch (of(kind)) {
            case NETTY -> List.of("io.netty.");
            case VERTX -> List.of("io.vertx.", "io.netty.");
            case REACTOR -> List.of("reactor.");
            case AWT -> List.of("java.awt.", "javax.swing.", "sun.awt.");
            default -> List.of();
        };
    }
}
