package io.loopdiag.loop;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The baton a loop's virtual thread and its tasks' virtual threads hand each other, so that exactly
 * one of them runs the loop's code at a time. The hand-off is made by the thread holding the baton
 * (the loop's to step a task, the task's to give it back); {@link #check} and the queries work from
 * any thread.
 */
final class Baton {
    /**
     * What every baton wait parks on: the agent tells this park, the most frequent of all, from a
     * blocking call by its blocker's class ({@code LoopCoreHooks.BATON_BLOCKER}).
     */
    private final EventLoop loop;
    /**
     * The batons of the loops running now, copied on write: which task runs the calling code is
     * the task of the baton it holds. A thread-local would cost every task's thread a map of its
     * own (136 bytes a task, bench/README.md), and loops start and stop far more rarely than
     * tasks ask.
     */
    private static final AtomicReference<Baton[]> RUNNING = new AtomicReference<>(new Baton[0]);

    /** Carries the loop's and its tasks' virtual threads; null when the JDK does not allow it. */
    private final LoopCarrier carrier;
    /** The thread running the loop's iterations, or null when the loop is not running. */
    private volatile Thread loopThread;
    /** The thread allowed to run loop code now: the loop's, or the task it handed the baton to. */
    private volatile Thread holder;
    /** The task holding the baton, or null while the loop itself runs. */
    private volatile Task<?> task;
    /**
     * Who waits in {@link #runEagerStep} for an eager task's first step to end, innermost last:
     * while one does, only that task (and eager tasks it creates) can give the baton up.
     */
    private final ArrayDeque<EagerCaller> eagerCallers = new ArrayDeque<>();

    /**
     * The body of every task's thread: it waits for the baton, which comes with the task it is the
     * thread of ({@link #task}), and runs that task's coroutine. One per loop, where one per task
     * cost 16 bytes a task (docs/decisions.md).
     */
    final Runnable taskThreadBody = this::runTaskThread;
    /** The holder while the carrier starts the thread of the task the baton goes to ({@link #handBack}). */
    private static final Thread STARTING = Thread.ofVirtual().unstarted(() -> { });
    /** Starts the thread of {@link #task} on the carrier, after the thread that handed it the baton yielded. */
    private final Runnable startTaskThread = this::startTaskThread;
    /**
     * Builds every task's thread: one builder per loop, used by the thread holding the baton. With
     * a carrier, its threads run there whoever creates them (a task created before the loop runs).
     */
    private final Thread.Builder.OfVirtual taskThreads;

    /** A thread waiting for an eager task's first step, and the task it runs (null: the loop itself). */
    private record EagerCaller(Thread thread, Task<?> task) {
    }

    Baton(EventLoop loop, LoopCarrier carrier) {
        this.loop = loop;
        this.carrier = carrier;
        this.taskThreads = carrier != null ? carrier.threadBuilder() : Thread.ofVirtual();
    }

    /** An unstarted virtual thread to run the loop, on the loop's carrier when it has one. */
    Thread newLoopThread(String name, Runnable body) {
        return carrier == null ? Thread.ofVirtual().name(name).unstarted(body) : carrier.newLoopThread(name, body);
    }

    /**
     * An unstarted thread for a task named {@code name}, whose body is {@link #taskThreadBody}; on
     * the thread holding the baton. Named as the task, for jcmd's thread dump, profilers and logs:
     * a given name is the same string, so that a named task's thread costs no name of its own (64
     * bytes a task for {@code task 'fetch' #12}, see docs/decisions.md).
     */
    Thread newTaskThread(String name) {
        return taskThreads.name(name).unstarted(taskThreadBody);
    }

    /** The calling thread starts running the loop's iterations, holding the baton. */
    void loopStarted() {
        Thread me = Thread.currentThread();
        loopThread = me;
        holder = me;
        RUNNING.updateAndGet(batons -> {
            Baton[] now = Arrays.copyOf(batons, batons.length + 1);
            now[batons.length] = this;
            return now;
        });
    }

    /** The loop stopped running: any one thread may use it again. */
    void loopStopped() {
        RUNNING.updateAndGet(batons -> Arrays.stream(batons).filter(baton -> baton != this).toArray(Baton[]::new));
        holder = null;
        loopThread = null;
    }

    /** The task whose thread is the calling thread and holds its loop's baton, or null (a loop's thread, or no loop's). */
    static Task<?> currentTask() {
        Baton held = held();
        return held == null ? null : held.task;
    }

    /** The loop whose baton the calling thread holds (its own thread's or a task's), or null. */
    static EventLoop currentLoop() {
        Baton held = held();
        return held == null ? null : held.loop;
    }

    private static Baton held() {
        Thread me = Thread.currentThread();
        for (Baton baton : RUNNING.get()) {
            if (baton.holder == me) {
                return baton;
            }
        }
        return null;
    }

    Thread loopThread() {
        return loopThread;
    }

    Task<?> task() {
        return task;
    }

    private void runTaskThread() {
        awaitBaton();
        task.runCoroutine();
    }

    /** Loop side of a task step: hands the baton to the task's thread and waits until it comes back. */
    void runTaskStep(Task<?> stepped, Thread taskThread, boolean start) {
        task = stepped;
        handTo(taskThread, start);
        awaitBaton();
        task = null;
    }

    /**
     * The caller's side of an eager task's first step: hands the baton to the task's new thread
     * and waits until the step suspends or ends, when {@link #handBack} gives it back here.
     */
    void runEagerStep(Task<?> stepped, Thread taskThread) {
        eagerCallers.push(new EagerCaller(Thread.currentThread(), task));
        task = stepped;
        handTo(taskThread, true);
        awaitBaton();
    }

    /** Makes {@code to} the holder and wakes it, starting it if it is a task's new thread. */
    private void handTo(Thread to, boolean start) {
        holder = to;
        if (carrier != null) {
            carrier.handOff(to, start);
        } else if (start) {
            to.start();
        } else {
            LockSupport.unpark(to);
        }
    }

    /**
     * Task side: gives the baton back, without waiting for it again: a suspending task then
     * {@linkplain #awaitBaton awaits} it itself, so that its parked stack holds one frame less
     * (docs/decisions.md). When the loop's next handle steps another suspended task, the baton goes
     * straight to that task's thread ({@link EventLoop#takeDirectStep}): one virtual-thread switch
     * instead of two, while the loop's thread stays parked in {@link #runTaskStep} until a task
     * gives it back. When it starts a new task, the loop's carrier starts that task's thread once
     * this thread has yielded: started here, the start was compiled into the frames every
     * suspended task keeps (docs/decisions.md).
     */
    void handBack() {
        EagerCaller caller = eagerCallers.poll();
        if (caller != null) {
            task = caller.task();
            handTo(caller.thread(), false);
        } else {
            Task<?> next = loop.takeDirectStep();
            if (next != null) {
                task = next;
                if (!next.isResumable()) {
                    next.beginFirstStep();
                    holder = STARTING;
                    carrier.runAfterYield(startTaskThread);
                    return;
                }
            }
            handTo(next != null ? next.thread() : loopThread, false);
        }
    }

    /**
     * Whether {@link #handBack} can give the baton to a new task's thread: the calling thread runs
     * on the loop's carrier, which starts that thread once the caller has yielded.
     */
    boolean canStartDirectly() {
        return carrier != null && carrier.carriesCurrentThread();
    }

    /** On the carrier, once the thread that gave the baton up has yielded: starts the thread of {@link #task}. */
    private void startTaskThread() {
        handTo(task.thread(), true);
    }

    /** Parks until this thread holds the baton. An interrupt is kept for the code that runs next. */
    void awaitBaton() {
        Thread me = Thread.currentThread();
        boolean interrupted = false;
        while (holder != me) {
            LockSupport.park(loop);
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
        if (interrupted) {
            me.interrupt();
        }
    }

    boolean isHeldBy(Thread thread) {
        return holder == thread;
    }

    /** Throws IllegalStateException unless the calling thread holds the baton or nobody does. */
    void check() {
        Thread current = holder;
        if (current != null && current != Thread.currentThread()) {
            throw new IllegalStateException("event loop '" + loop.name() + "' is running on " + describe(loopThread)
                    + "; it was called from " + describe(Thread.currentThread())
                    + ". Use callSoonThreadsafe to reach it from another thread.");
        }
    }

    /** The loop is closed: its carrier's thread ends once idle. */
    void close() {
        if (carrier != null) {
            carrier.close();
        }
    }

    private static String describe(Thread thread) {
        return thread == null ? "no thread" : "thread '" + thread.getName() + "' (#" + thread.threadId() + ")";
    }
}
