package io.loopdiag.loop;

import io.loopdiag.protocol.AwaitKinds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.SelectableChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import sun.misc.Signal;

/**
 * One thread's scheduler, in the style of asyncio's event loop. It runs iterations until
 * {@link #stop()}; each iteration ({@code runOnce}, asyncio's {@code _run_once}) has six phases, a
 * method each, in this order:
 * <ol>
 *   <li>{@code takeThreadsafeCallbacks}: the callbacks other threads scheduled with
 *       {@link #callSoonThreadsafe} join the ready queue;</li>
 *   <li>{@code purgeCancelledTimers}: cancelled timers leave the timer heap;</li>
 *   <li>{@code selectTimeoutNanos}: 0 if anything is ready, else until the earliest timer;</li>
 *   <li>{@code pollIo}: the selector queues the handles of ready channels, waiting for one in
 *       {@code waitForIo} only if nothing is ready;</li>
 *   <li>{@code queueDueTimers}: due timers join the ready queue;</li>
 *   <li>{@code runReady}: runs exactly the handles that were ready when this phase began: callbacks
 *       scheduled now run in the next iteration.</li>
 * </ol>
 * {@code dispatch} is the one method that invokes callbacks. It publishes the callback it runs and
 * counts dispatches ({@link #currentCallback()}, {@link #dispatchCount()}); the agent finds a slow
 * callback by sampling those from a watchdog thread, with nothing woven into the dispatch itself.
 *
 * <p>The loop runs on a virtual thread ({@link #runForever()} called from a platform thread
 * starts one and joins it), and each {@link Task} on a virtual thread of its own; exactly one of
 * them holds the baton ({@link Baton}) and runs at a time. Where the JDK allows it, all of them are
 * carried by one platform thread of the loop's own ({@link LoopCarrier}). The loop's methods may be
 * called only by the thread holding the baton (the loop's or the running task's) or, while the
 * loop is not running, by any one thread; other threads use {@link #callSoonThreadsafe}. A
 * wrong-thread call throws {@link IllegalStateException} at once. The {@code snapshot} and
 * {@code is*} queries may be called from any thread.
 */
public final class EventLoop implements AutoCloseable, Executor {

    /** Cancelled timers are compacted out of the heap in one pass only once the heap holds more than this many. */
    private static final int MIN_TIMERS_FOR_COMPACTION = 100;
    /** ...and more than this fraction of them are cancelled (asyncio's thresholds); otherwise they are dropped as they reach the head. */
    private static final double MIN_CANCELLED_TIMER_FRACTION = 0.5;
    /**
     * With callbacks ready (select timeout 0), poll the selector only every this many iterations:
     * a {@code selectNow} costs about twenty callbacks (docs/decisions.md, "loop-core's cost
     * decisions"), and a callback chain runs one callback per iteration. I/O is still polled at
     * once whenever the loop would wait.
     */
    private static final int MAX_ITERATIONS_WITHOUT_IO_POLL = 64;
    /**
     * Read the clock every this many dispatches (a mask), so that "running since" in a snapshot is
     * at most that many callbacks early: a {@code nanoTime} costs about as much as a callback (see
     * docs/decisions.md).
     */
    private static final int CLOCK_STAMP_EVERY_MASK = 63;
    /** A time-out meaning "wait until something happens". */
    private static final long FOREVER = -1;

    private static final AtomicLong LOOP_IDS = new AtomicLong();

    private static final VarHandle CURRENT_CALLBACK;
    private static final VarHandle WAKEUP_NEEDED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CURRENT_CALLBACK = lookup.findVarHandle(EventLoop.class, "currentCallback", Object.class);
            WAKEUP_NEEDED = lookup.findVarHandle(EventLoop.class, "wakeupNeeded", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long id;
    private final String name;
    private final LoopClock clock;
    private final LoopSelector selector;
    private final WeakRegistry.Ref<EventLoop> ref;

    /**
     * The ready queue: a {@link Handle}, which can be cancelled, or a bare {@code Runnable}, which
     * cannot and costs no object (a task's step, a done callback, {@link #execute}).
     */
    private final ArrayDeque<Object> ready = new ArrayDeque<>();
    private final ConcurrentLinkedQueue<Handle> threadsafeQueue = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<TimerHandle> timers = new PriorityQueue<>(TimerHandle.ORDER);
    private int cancelledTimers;
    private long timerSeq;
    private int iterationsSinceIoPoll;
    /** Handles of the current run phase not taken yet; 0 outside {@code runReady}. */
    private int readyLeft;
    @SuppressWarnings("unused") // through WAKEUP_NEEDED: true while the loop may block in select
    private volatile boolean wakeupNeeded;

    /** Which thread may run the loop's code now: the loop's, or the task it stepped. */
    final Baton baton;
    private boolean stopping;
    /** asyncio's eager task factory: see {@link #setEagerTasks}. */
    private boolean eagerTasks;
    private volatile boolean closed;

    @SuppressWarnings("unused") // through CURRENT_CALLBACK: the callback being dispatched, for snapshots
    private Object currentCallback;
    private long dispatchCount;
    private long clockStampNanos; // the clock when last read: at or before the current callback started

    private ExceptionHandler exceptionHandler;
    private ExecutorService defaultExecutor;

    private long taskIds;
    /** This loop's tasks that have not finished; a task leaves it when it finishes. */
    final TaskTable tasks = new TaskTable();

    /** Receives exceptions that no future or task can carry (asyncio's exception handler). */
    @FunctionalInterface
    public interface ExceptionHandler {
        void handle(EventLoop loop, ExceptionContext context);
    }

    /** A new loop on the system clock. */
    public EventLoop() {
        this(null, LoopClock.SYSTEM);
    }

    /** A new loop named {@code name} (null for {@code loop-N}) on {@code clock}. */
    public EventLoop(String name, LoopClock clock) {
        this.id = LOOP_IDS.incrementAndGet();
        this.name = name != null ? name : "loop-" + id;
        this.clock = clock;
        this.selector = new LoopSelector(ready);
        this.baton = new Baton(this, LoopCarrier.open(this.name, this::carrierHeld));
        this.clockStampNanos = clock.nanoTime();
        this.ref = WeakRegistry.LOOPS.newRef(this);
        WeakRegistry.LOOPS.add(ref);
    }

    /**
     * asyncio.run: runs {@code main} as a task on a new loop until it completes, then cancels the
     * tasks left, shuts down the default executor and closes the loop. Returns main's result or
     * throws its exception. Call it from a thread that is not running a loop.
     */
    public static <T> T run(Coroutine.Body<T> main) throws Exception {
        return run(Coroutine.of("main", main));
    }

    public static <T> T run(Coroutine<T> main) throws Exception {
        return run(main, new String[0]);
    }

    /**
     * {@link #run(Coroutine.Body)} that shuts down cleanly on any of {@code signals} (such as
     * {@code "INT", "TERM"}), as asyncio's {@code Runner} does on Ctrl-C: the first cancels the main
     * task, whose {@code finally} blocks and task groups clean up, then the tasks left are cancelled
     * and awaited and {@code run} throws {@link StoppedBySignalException}, unless the main task
     * refused the cancellation and returned a result. A second signal does not wait for the loop,
     * which may be stuck: it goes to the handler the first replaced (the JVM's: exit).
     */
    public static <T> T run(Coroutine.Body<T> main, String... signals) throws Exception {
        return run(Coroutine.of("main", main), signals);
    }

    public static <T> T run(Coroutine<T> main, String... signals) throws Exception {
        EventLoop loop = new EventLoop();
        try {
            Task<T> task = loop.createTask(main);
            AtomicReference<Signal> received = new AtomicReference<>();
            for (String signal : signals) {
                LoopSignals.handle(loop, signal, delivered -> {
                    if (!received.compareAndSet(null, delivered)) {
                        LoopSignals.raiseReplaced(loop, delivered);
                        return;
                    }
                    loop.callSoonThreadsafe(new SignalCallback(delivered.getName(), () -> task.cancel("SIG" + delivered.getName())));
                });
            }
            try {
                return loop.runUntilComplete(task);
            } catch (CancelledException cancelled) {
                Signal signal = received.get();
                if (signal != null) {
                    throw new StoppedBySignalException(signal.getName(), signal.getNumber());
                }
                throw cancelled;
            }
        } finally {
            try {
                loop.cancelRemainingTasks();
                loop.shutdownDefaultExecutor();
            } finally {
                loop.close();
            }
        }
    }

    // ---- scheduling ---------------------------------------------------------------------------

    /** Schedules {@code callback} to run in a later iteration; callbacks run in the order scheduled. */
    public Handle callSoon(Runnable callback) {
        checkThread();
        checkOpen();
        Handle handle = new Handle(this, requireCallback(callback));
        ready.add(handle);
        return handle;
    }

    /**
     * Runs {@code callback} in a later iteration without a handle: it cannot be cancelled, and on
     * the thread holding the loop it costs no object ({@link #callSoon} allocates its handle).
     * Any thread, as the loop's {@link Executor}: from another thread it is {@link
     * #callSoonThreadsafe}. {@code CompletableFuture.supplyAsync(work, loop)} runs {@code work} on
     * the loop.
     */
    @Override
    public void execute(Runnable callback) {
        if (baton.isHeldBy(Thread.currentThread())) {
            checkOpen();
            schedule(requireCallback(callback));
        } else {
            callSoonThreadsafe(callback);
        }
    }

    /**
     * Queues {@code callback}, which nobody can cancel, as ready: a {@code Runnable}, or a {@link
     * Task} to step. For the loop's own wake-ups. Loop thread only.
     */
    void schedule(Object callback) {
        ready.add(callback);
    }

    /**
     * Like {@link #callSoon} but callable from any thread: the callback is queued and a loop
     * blocked in select is woken.
     */
    public Handle callSoonThreadsafe(Runnable callback) {
        checkOpen();
        Handle handle = new Handle(this, requireCallback(callback));
        threadsafeQueue.add(handle);
        if (wakeupNeeded && WAKEUP_NEEDED.compareAndSet(this, true, false)) {
            selector.wakeup();
        }
        return handle;
    }

    /** Schedules {@code callback} after {@code delay} on the loop's clock. */
    public TimerHandle callLater(Duration delay, Runnable callback) {
        long delayNanos = delay.isNegative() ? 0 : saturatedNanos(delay);
        long now = timeNanos();
        long deadline = now + delayNanos;
        return callAt(deadline < now ? Long.MAX_VALUE : deadline, callback);
    }

    /** Schedules {@code callback} at {@code deadlineNanos} on the loop's clock ({@link #timeNanos()}). */
    public TimerHandle callAt(long deadlineNanos, Runnable callback) {
        checkThread();
        checkOpen();
        TimerHandle timer = new TimerHandle(this, deadlineNanos, timerSeq++, requireCallback(callback));
        timer.inHeap = true;
        timers.add(timer);
        return timer;
    }

    /** A timer in the heap was cancelled: {@code purgeCancelledTimers} removes it later. */
    void timerCancelled() {
        cancelledTimers++;
    }

    /** The loop's monotonic clock in nanoseconds (asyncio's {@code loop.time()}). */
    public long timeNanos() {
        long now = clock.nanoTime();
        clockStampNanos = now;
        return now;
    }

    /** A new pending future on this loop. */
    public <T> Future<T> createFuture() {
        return new Future<>(this);
    }

    /**
     * Wraps {@code coroutine} in a task whose first step runs in a later iteration or, with {@link
     * #setEagerTasks eager tasks} on a running loop, now.
     */
    public <T> Task<T> createTask(Coroutine<T> coroutine) {
        checkThread();
        checkOpen();
        Task<T> task = new Task<>(this, ++taskIds, coroutine.givenName(), coroutine.consume());
        tasks.add(task);
        if (eagerTasks && isRunning()) {
            task.stepEagerly();
        } else {
            ready.add(task);
        }
        return task;
    }

    /**
     * Eager tasks (asyncio 3.12's {@code eager_task_factory}): while this loop runs, a task's first
     * step runs inside {@code createTask}, before it returns, and the task is scheduled only if
     * that step suspends; one that finishes without suspending comes back done. The caller (a task
     * or a callback) waits meanwhile, so the order changes: the new task runs before the rest of
     * its creator's step and before callbacks already ready. What it saves: create + await of a
     * task that does not suspend is two hand-offs instead of three (bench/README.md).
     */
    public void setEagerTasks(boolean eager) {
        checkThread();
        eagerTasks = eager;
    }

    /** Whether {@link #setEagerTasks eager tasks} are on. */
    public boolean eagerTasks() {
        return eagerTasks;
    }

    /** A task named {@code name} (null for {@code Task-N}) running {@code body}. */
    public <T> Task<T> createTask(String name, Coroutine.Body<T> body) {
        return createTask(Coroutine.of(name, body));
    }

    // ---- running ------------------------------------------------------------------------------

    /**
     * Runs iterations until {@link #stop()}. Called from a platform thread, it runs the loop on a
     * new virtual thread and waits for it (an interrupt of the waiting thread stops the loop).
     */
    public void runForever() {
        checkOpen();
        if (isRunning()) {
            throw new IllegalStateException("event loop '" + name + "' is already running");
        }
        if (current() != null) {
            throw new IllegalStateException("cannot run event loop '" + name
                    + "' while another loop is running on this thread");
        }
        Thread me = Thread.currentThread();
        if (!me.isVirtual()) {
            runOnVirtualThread();
            return;
        }
        baton.loopStarted();
        try {
            runIterations();
        } finally {
            stopping = false;
            baton.loopStopped();
        }
    }

    private void runOnVirtualThread() {
        Throwable[] failure = new Throwable[1];
        Runnable body = () -> {
            try {
                runForever();
            } catch (Throwable t) {
                failure[0] = t;
            }
        };
        String threadName = "loopdiag-loop-" + name;
        Thread thread = baton.newLoopThread(threadName, body);
        thread.start();
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
                if (!closed) {
                    callSoonThreadsafe(this::stop);
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure[0] instanceof RuntimeException e) {
            throw e;
        }
        if (failure[0] instanceof Error e) {
            throw e;
        }
        if (failure[0] != null) {
            throw new IllegalStateException("event loop '" + name + "' failed", failure[0]);
        }
    }

    /** Runs the loop until {@code future} is done, then returns its result or throws its exception. */
    public <T> T runUntilComplete(Future<T> future) throws Exception {
        checkOpen();
        if (future.loop != this) {
            throw new IllegalArgumentException(future + " belongs to another event loop");
        }
        Runnable stopWhenDone = this::stop;
        future.addWaiter(stopWhenDone);
        try {
            runForever();
        } finally {
            future.removeWaiter(stopWhenDone);
        }
        if (!future.isDone()) {
            throw new IllegalStateException("event loop stopped before the future completed");
        }
        return future.result();
    }

    public <T> T runUntilComplete(Coroutine<T> coroutine) throws Exception {
        return runUntilComplete(createTask(coroutine));
    }

    /** Makes the loop return from {@code runForever} after the current iteration. */
    public void stop() {
        checkThread();
        stopping = true;
    }

    public boolean isRunning() {
        return baton.loopThread() != null;
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Closes a loop that is not running: drops pending callbacks and timers, closes the selector
     * and shuts down the default executor without waiting. Idempotent.
     */
    @Override
    public void close() {
        checkThread();
        if (isRunning()) {
            throw new IllegalStateException("cannot close event loop '" + name + "' while it is running");
        }
        if (closed) {
            return;
        }
        closed = true;
        LoopSignals.removeAll(this);
        ready.clear();
        threadsafeQueue.clear();
        timers.clear();
        cancelledTimers = 0;
        selector.close();
        if (defaultExecutor != null) {
            defaultExecutor.shutdown();
        }
        baton.close();
        WeakRegistry.LOOPS.remove(ref);
    }

    // ---- the loop proper: one iteration, phase by phase ---------------------------------------

    /** The loop proper, on the loop's thread: the agent marks the thread as a loop's while it runs. */
    private void runIterations() {
        do {
            runOnce();
        } while (!stopping);
    }

    /** One iteration (asyncio's {@code _run_once}): the phases of the class comment, in its order. */
    private void runOnce() {
        takeThreadsafeCallbacks();
        purgeCancelledTimers();
        long timeoutNanos = selectTimeoutNanos();
        pollIo(timeoutNanos);
        queueDueTimers();
        runReady();
    }

    private void takeThreadsafeCallbacks() {
        Handle handle;
        while ((handle = threadsafeQueue.poll()) != null) {
            ready.add(handle);
        }
    }

    private void purgeCancelledTimers() {
        if (cancelledTimers == 0) {
            return;
        }
        if (timers.size() > MIN_TIMERS_FOR_COMPACTION
                && cancelledTimers > timers.size() * MIN_CANCELLED_TIMER_FRACTION) {
            timers.removeIf(timer -> {
                if (timer.isCancelled()) {
                    timer.inHeap = false;
                    return true;
                }
                return false;
            });
            cancelledTimers = 0;
        } else {
            dropCancelledHead();
        }
    }

    private void dropCancelledHead() {
        TimerHandle head;
        while ((head = timers.peek()) != null && head.isCancelled()) {
            timers.poll();
            head.inHeap = false;
            cancelledTimers--;
        }
    }

    private long selectTimeoutNanos() {
        if (!ready.isEmpty() || stopping) {
            return 0;
        }
        TimerHandle earliest = timers.peek();
        if (earliest == null) {
            return FOREVER;
        }
        return Math.max(0, earliest.deadlineNanos - timeNanos());
    }

    /** With handles ready (timeout 0), polls only every {@link #MAX_ITERATIONS_WITHOUT_IO_POLL} iterations. */
    private void pollIo(long timeoutNanos) {
        try {
            if (timeoutNanos == 0) {
                if (++iterationsSinceIoPoll < MAX_ITERATIONS_WITHOUT_IO_POLL) {
                    return;
                }
                iterationsSinceIoPoll = 0;
                if (selector.hasChannels()) {
                    selector.selectNow();
                }
                return;
            }
            iterationsSinceIoPoll = 0;
            long waitNanos = clock.beforeWait(timeoutNanos);
            wakeupNeeded = true;
            if (!threadsafeQueue.isEmpty()) {
                waitNanos = 0; // queued before the flag was seen: do not sleep on it
            }
            if (waitNanos == 0) {
                selector.selectNow();
            } else {
                waitForIo(waitNanos);
            }
            wakeupNeeded = false;
        } catch (IOException e) {
            throw new UncheckedIOException("select failed on event loop '" + name + "'", e);
        }
    }

    /**
     * The loop's own wait: blocks in select for up to {@code waitNanos} (negative: until woken).
     * The only place the loop thread blocks outside the baton hand-off; the agent marks the thread
     * idle inside it, so the wait is not counted as a blocking call.
     */
    private void waitForIo(long waitNanos) throws IOException {
        selector.select(waitNanos);
    }

    private void queueDueTimers() {
        if (timers.isEmpty()) {
            return;
        }
        long now = timeNanos();
        TimerHandle head;
        while ((head = timers.peek()) != null) {
            if (head.isCancelled()) {
                timers.poll();
                head.inHeap = false;
                cancelledTimers--;
            } else if (head.deadlineNanos <= now) {
                timers.poll();
                head.inHeap = false;
                ready.add(head);
            } else {
                break;
            }
        }
    }

    private void runReady() {
        // Only the handles ready now (asyncio's rule): a callback that keeps scheduling itself
        // cannot starve I/O and timers, which join the queue between iterations. A field, not a
        // local: a task handing the baton straight to the next task takes its step from here too.
        readyLeft = ready.size();
        while (readyLeft > 0) {
            readyLeft--;
            Object next = ready.poll();
            Object callback = next instanceof Handle handle ? handle.callback : next;
            if (callback != null) { // a cancelled handle's callback is null
                dispatch(callback, next);
            }
        }
    }

    /**
     * The single place where callbacks are invoked; an exception goes to the exception handler.
     * What it publishes ({@link #currentCallback()}, {@link #dispatchCount()}) is what the agent's
     * watchdog samples, and a callback's stack in a snapshot ends above this frame.
     */
    private void dispatch(Object callback, Object queued) {
        published(callback);
        try {
            if (callback instanceof Task<?> task) {
                task.step();
            } else {
                ((Runnable) callback).run();
            }
        } catch (Throwable failure) {
            callExceptionHandler(new ExceptionContext("Exception in callback " + Handle.describe(callback), failure,
                    queued instanceof Handle handle ? handle : null, null, null));
        } finally {
            CURRENT_CALLBACK.setOpaque(this, null);
        }
    }

    /** {@code callback} runs now: what the watchdog samples, and the clock stamp every so many dispatches. */
    private void published(Object callback) {
        CURRENT_CALLBACK.setOpaque(this, callback);
        if ((++dispatchCount & CLOCK_STAMP_EVERY_MASK) == 0) {
            clockStampNanos = clock.nanoTime();
        }
    }

    /**
     * Called by a task giving the baton back (on its thread, holding it): if the loop's next
     * handle steps a suspended task, or starts a new one and the baton can start it
     * ({@link Baton#canStartDirectly}), takes it as {@code dispatch} would and returns that task,
     * whose thread gets the baton straight away; otherwise null, and the baton goes back to the
     * loop's thread. When the run phase is over, the task begins the next iteration itself unless
     * the loop is stopping or would wait ({@link #beginIterationInline}). The order and the
     * iterations are the loop's own: only hand-offs are saved (task to task, not task to loop to
     * task).
     */
    Task<?> takeDirectStep() {
        if (readyLeft == 0 && !beginIterationInline()) {
            return null;
        }
        if (!(ready.peek() instanceof Task<?> next)
                || !(next.isResumable() || next.isStartable() && baton.canStartDirectly())) {
            return null;
        }
        ready.poll();
        readyLeft--;
        published(next);
        return next;
    }

    /**
     * The phases before {@code runReady} of the next iteration, as {@link #runOnce} runs them with
     * handles ready, on the thread holding the baton: false, with nothing changed that the loop
     * would not do the same way, when the loop is stopping or nothing is ready (the loop would
     * wait); then the loop's thread runs the iteration.
     */
    private boolean beginIterationInline() {
        if (stopping) {
            return false;
        }
        takeThreadsafeCallbacks();
        if (ready.isEmpty()) {
            return false;
        }
        purgeCancelledTimers();
        pollIo(0); // counts the iteration, and every so many iterations polls I/O without waiting
        queueDueTimers();
        readyLeft = ready.size();
        return true;
    }

    // ---- I/O ----------------------------------------------------------------------------------

    /**
     * Calls {@code callback} each time {@code channel} (non-blocking) is readable, or for a server
     * channel has a connection to accept, until {@link #removeReader}. Replaces a previous reader.
     */
    public void addReader(SelectableChannel channel, Runnable callback) {
        setIoCallback(channel, requireCallback(callback), true);
    }

    /** Calls {@code callback} each time {@code channel} is writable (or its connect finishes). */
    public void addWriter(SelectableChannel channel, Runnable callback) {
        setIoCallback(channel, requireCallback(callback), false);
    }

    /** Stops watching {@code channel} for reading; false if no reader was registered. */
    public boolean removeReader(SelectableChannel channel) {
        return setIoCallback(channel, null, true);
    }

    public boolean removeWriter(SelectableChannel channel) {
        return setIoCallback(channel, null, false);
    }

    private boolean setIoCallback(SelectableChannel channel, Runnable callback, boolean reading) {
        checkThread();
        if (callback == null) {
            return selector.setIoCallback(channel, null, reading);
        }
        checkOpen();
        return selector.setIoCallback(channel, new Handle(this, callback), reading);
    }

    // ---- signals ------------------------------------------------------------------------------

    /**
     * asyncio's {@code add_signal_handler}: from now on {@code signal} ({@code "TERM"} or
     * {@code "SIGTERM"}) runs {@code callback} on this loop, as a callback queued by
     * {@link #callSoonThreadsafe}, so that it may use the loop like any other. Replaces this loop's
     * earlier handler of the signal. A signal has one handler per process: throws
     * {@link IllegalStateException} if another loop handles it, and {@link IllegalArgumentException}
     * for a signal the platform lacks or the JVM keeps ({@code QUIT}; any, under {@code -Xrs}).
     * The loop's {@link #close} removes its handlers.
     */
    public void addSignalHandler(String signal, Runnable callback) {
        checkThread();
        checkOpen();
        SignalCallback handler = new SignalCallback(LoopSignals.signal(signal).getName(), requireCallback(callback));
        LoopSignals.handle(this, signal, delivered -> callSoonThreadsafe(handler));
    }

    /**
     * Stops handling {@code signal} and puts back the handler that {@link #addSignalHandler}
     * replaced; false if this loop did not handle it.
     */
    public boolean removeSignalHandler(String signal) {
        checkThread();
        return LoopSignals.remove(this, signal);
    }

    /** A signal's callback, named after it in dumps and logs. */
    private record SignalCallback(String signal, Runnable callback) implements Runnable {
        @Override
        public void run() {
            callback.run();
        }

        @Override
        public String toString() {
            return "SIG" + signal + " handler " + Handle.describe(callback);
        }
    }

    // ---- worker threads -----------------------------------------------------------------------

    /**
     * Runs blocking {@code work} on {@code executor} (null: the loop's default pool of daemon
     * platform threads) and returns a future of its result, completed on the loop.
     */
    public <T> Future<T> runInExecutor(Executor executor, Callable<T> work) {
        checkThread();
        checkOpen();
        Executor target = executor != null ? executor : defaultExecutor();
        WorkerCall call = new WorkerCall();
        Future<T> future = new Future<>(this, AwaitKinds.WORKER, "worker thread", call);
        target.execute(() -> {
            T value = null;
            Throwable failure = null;
            call.thread = Thread.currentThread();
            try {
                value = work.call();
            } catch (Throwable t) {
                failure = t;
            } finally {
                call.thread = null;
            }
            T result = value;
            Throwable error = failure;
            try {
                callSoonThreadsafe(() -> {
                    if (!future.isDone()) {
                        if (error != null) {
                            future.setException(error);
                        } else {
                            future.setResult(result);
                        }
                    }
                });
            } catch (IllegalStateException loopClosed) {
                // The loop closed while the work ran: nobody is left to take the result.
            }
        });
        return future;
    }

    /** The worker thread running a call of {@link #runInExecutor} now, for dumps; null while queued and once done. */
    static final class WorkerCall {
        volatile Thread thread;
    }

    private Executor defaultExecutor() {
        if (defaultExecutor == null) {
            // asyncio's default: min(32, cpus + 4) workers, created as needed and retired when idle.
            int workers = Math.min(32, Runtime.getRuntime().availableProcessors() + 4);
            AtomicInteger count = new AtomicInteger();
            ThreadPoolExecutor pool = new ThreadPoolExecutor(workers, workers, 60, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), work -> {
                        Thread thread = new Thread(work, "loopdiag-worker-" + name + "-" + count.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    });
            pool.allowCoreThreadTimeOut(true);
            defaultExecutor = pool;
        }
        return defaultExecutor;
    }

    /** Shuts down the default executor and waits for the work it is running (asyncio.run's last step). */
    public void shutdownDefaultExecutor() throws InterruptedException {
        checkThread();
        ExecutorService pool = defaultExecutor;
        if (pool != null) {
            pool.shutdown();
            pool.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        }
    }

    /** Cancels every task still pending and runs the loop until they finish (asyncio.run's cleanup). */
    void cancelRemainingTasks() throws Exception {
        List<Task<?>> remaining = allTasks();
        if (remaining.isEmpty()) {
            return;
        }
        for (Task<?> task : remaining) {
            task.cancel();
        }
        runUntilComplete(Async.gatherOn(this, remaining, true));
        for (Task<?> task : remaining) {
            if (!task.isCancelled() && task.isDone() && task.peekException() != null) {
                callExceptionHandler(new ExceptionContext("unhandled exception during EventLoop.run() shutdown",
                        task.exception(), null, task, task));
            }
        }
    }

    // ---- exceptions ---------------------------------------------------------------------------

    /** Sets the handler for exceptions nobody else can take; null restores the default. */
    public void setExceptionHandler(ExceptionHandler handler) {
        checkThread();
        exceptionHandler = handler;
    }

    public ExceptionHandler exceptionHandler() {
        return exceptionHandler;
    }

    /** Passes {@code context} to the handler; a handler that throws is reported by the default one. */
    public void callExceptionHandler(ExceptionContext context) {
        ExceptionHandler handler = exceptionHandler;
        if (handler == null) {
            defaultExceptionHandler(context);
            return;
        }
        try {
            handler.handle(this, context);
        } catch (Throwable failure) {
            defaultExceptionHandler(new ExceptionContext("Unhandled error in exception handler", failure, null, null, null));
            defaultExceptionHandler(context);
        }
    }

    /**
     * On the carriers' watcher thread: a pinned park holds the loop's carrier thread, so the loop
     * runs on the JDK's scheduler meanwhile ({@link LoopCarrier}). Finds the task whose thread it
     * is, and where it parked, as it is now: that is the code to change.
     */
    private void carrierHeld(Thread carrier) {
        List<Task<?>> held = tasks.list(task -> task.thread() != null && LoopCarrier.isMountedOn(task.thread(), carrier));
        Task<?> task = held.isEmpty() ? null : held.get(0);
        Thread thread = task != null ? task.thread() : baton.loopThread();
        List<StackTraceElement> stack = thread != null && LoopCarrier.isMountedOn(thread, carrier)
                ? LoopSnapshot.suspensionStack(thread.getStackTrace()) : List.of();
        reportPinned(task, stack.toArray(StackTraceElement[]::new));
    }

    /**
     * Tells the exception handler, on the loop, that {@code task} (null: the loop's own thread, or
     * with no {@code stack} a thread gone from the carrier since) parked at {@code stack} while
     * pinned to the loop's carrier; the agent's hook point for the same ({@code LoopCoreHooks}).
     */
    private void reportPinned(Task<?> task, StackTraceElement[] stack) {
        String who = stack.length == 0 ? "A task" : task != null ? "Task '" + task.name() + "'" : "The loop's thread";
        IllegalStateException where = new IllegalStateException("parked while pinned to the loop's carrier thread");
        where.setStackTrace(stack);
        ExceptionContext context = new ExceptionContext(who + " parked while pinned to the loop's carrier thread"
                + " (in a class initializer, under a native frame, or in synchronized on JDK 21 to 23): the loop"
                + " stalled until loop-core saw it (within about a second), then ran on the JDK's scheduler until"
                + " the thread let go. Await outside that frame.", where, null, null, task);
        try {
            callSoonThreadsafe(() -> callExceptionHandler(context));
        } catch (RuntimeException closed) {
            defaultExceptionHandler(context);
        }
    }

    /** Logs {@code context} at ERROR through {@link System.Logger} ({@code io.loopdiag.loop}). */
    public void defaultExceptionHandler(ExceptionContext context) {
        System.getLogger("io.loopdiag.loop").log(System.Logger.Level.ERROR,
                "[" + name + "] " + context.describe(), context.exception());
    }

    // ---- introspection ------------------------------------------------------------------------

    public long id() {
        return id;
    }

    public String name() {
        return name;
    }

    /** The thread running the loop, or null when it is not running. */
    public Thread thread() {
        return baton.loopThread();
    }

    /** The tasks of this loop that are not done (asyncio's {@code all_tasks}). Any thread. */
    public List<Task<?>> allTasks() {
        return tasks.list(task -> !task.isDone());
    }

    /**
     * The loop the calling code runs on: the current task's, or the loop running on this thread;
     * null if there is none (asyncio's {@code _get_running_loop}). {@link Async#loop()} throws instead.
     */
    public static EventLoop current() {
        return Baton.currentLoop();
    }

    /** The task running now on this loop, or null. */
    public Task<?> currentTask() {
        return baton.task();
    }

    /** The loops that are open now, oldest first; closed and collected loops are not listed. Any thread. */
    public static List<EventLoop> allLoops() {
        return WeakRegistry.LOOPS.list(loop -> !loop.closed);
    }

    /**
     * Handles waiting to run, including those queued from other threads (asyncio's
     * {@code len(_ready)}, where {@code call_soon_threadsafe} queues too). Any thread.
     */
    public int readyCount() {
        return ready.size() + threadsafeQueue.size();
    }

    /** Timers in the heap, including cancelled ones not yet purged (asyncio's {@code len(_scheduled)}). */
    public int timerCount() {
        return timers.size();
    }

    /**
     * The callback being dispatched now (a task's step while the task runs), or null between
     * callbacks; {@link Handle#describe} says what it is. Any thread.
     */
    public Object currentCallback() {
        return CURRENT_CALLBACK.getOpaque(this);
    }

    /** How many callbacks this loop has dispatched. */
    public long dispatchCount() {
        return dispatchCount;
    }

    /** The clock when the loop last read it: at or before the start of the current callback. */
    long clockStampNanos() {
        return clockStampNanos;
    }

    LoopClock clock() {
        return clock;
    }

    /**
     * A consistent-enough picture of this loop for dumps, taken from any thread without stopping
     * the loop: like {@code python -m asyncio ps}, it may be torn if the loop moves meanwhile.
     */
    public LoopSnapshot snapshot(boolean withStacks) {
        return LoopSnapshot.of(this, withStacks);
    }

    /**
     * The callback being dispatched now and, with {@code withStack}, the stack of the thread
     * running it; null between callbacks. Any thread; costs one stack walk at most.
     */
    public LoopSnapshot.RunningCallback runningCallback(boolean withStack) {
        return LoopSnapshot.runningCallback(this, withStack);
    }

    /**
     * The thread running the callback being dispatched now (a task's own for a step of it), or
     * null between callbacks: what a watchdog asks whether it is blocked. Any thread; no stack walk.
     */
    public Thread runningThread() {
        return LoopSnapshot.runningThread(this);
    }

    @Override
    public String toString() {
        return "EventLoop[" + name + (closed ? ", closed" : isRunning() ? ", running" : "") + "]";
    }

    // ---- checks -------------------------------------------------------------------------------

    /**
     * Throws IllegalStateException unless the calling thread may use this loop now: the loop's own
     * thread or its running task's, or any thread while the loop is not running.
     */
    public void checkThread() {
        baton.check();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("event loop '" + name + "' is closed");
        }
    }

    private static Runnable requireCallback(Runnable callback) {
        if (callback == null) {
            throw new NullPointerException("callback");
        }
        return callback;
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
