package io.loopdiag.bench.kotlinx

import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.random.Random
import kotlin.time.Duration.Companion.nanoseconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.ExecutorCoroutineDispatcher
import kotlinx.coroutines.Job
import kotlinx.coroutines.async
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield

/**
 * The kotlinx-coroutines peers of loop-core's workloads, one whole workload per call, for Java
 * (bench/jmh) and for [main]. Each returns a checksum so that a caller (JMH) cannot drop the work.
 *
 * **Dispatcher.** Every workload but [suspendedTasks] runs inside `runBlocking` on the calling
 * thread, with no dispatcher given: the coroutines then run on runBlocking's own event loop
 * (`BlockingEventLoop`), a single-thread dispatcher that is the calling thread itself. It is the
 * fastest idiomatic single-thread set-up: its queue is a lock-free array queue touched by one
 * thread, and no work crosses threads, whereas `newSingleThreadContext` (or an executor turned into
 * a dispatcher) hands every dispatch to a `ScheduledThreadPoolExecutor`'s locked queue and the
 * caller to another thread and back (measured here: see bench/kotlinx/README.md). It is also what
 * asyncio's `run_until_complete` and loop-core's loop are: the caller's thread runs the loop.
 * [suspendedTasks] must return while its coroutines stay suspended, so it needs a loop on a thread
 * of its own: a single-thread executor as a dispatcher.
 */
object KotlinxWorkloads {

    /**
     * Launches [tasks] coroutines together; each calls `yield()` [switches] times (each yield puts
     * the coroutine at the back of the loop's queue and runs the next one). Returns once all are
     * done, with the number of yields made (`tasks * switches`).
     */
    @JvmStatic
    fun taskSwitch(tasks: Int, switches: Int): Long {
        var yields = 0L // one thread: no synchronisation needed
        runBlocking {
            repeat(tasks) {
                launch {
                    repeat(switches) {
                        yield()
                        yields++
                    }
                }
            }
        } // runBlocking returns once its children are done
        return yields
    }

    /**
     * In one coroutine, [n] times: `async { 1 }` then `.await()` (the async coroutine is
     * dispatched, runs, completes, and the awaiting coroutine is dispatched again). Returns the sum
     * of the awaited values ([n]).
     */
    @JvmStatic
    fun createAwait(n: Int): Long = runBlocking {
        var sum = 0L
        repeat(n) {
            sum += async { 1 }.await()
        }
        sum
    }

    /**
     * A chain of [n] callbacks on the loop, no coroutine in it: one `Runnable` is handed to the
     * loop's dispatcher with `CoroutineDispatcher.dispatch(EmptyCoroutineContext, it)` (the public
     * API for dispatching a plain runnable); each time it runs it counts itself and, until it has run
     * [n] times, dispatches itself again from inside `run()`, so the loop's queue always holds
     * exactly one callback, like loop-core's `callSoon` from a callback. The dispatcher is
     * runBlocking's event loop (see the class comment); the coroutine of runBlocking starts the chain
     * and suspends on a `CompletableDeferred` that the last callback completes. Returns [n].
     */
    @JvmStatic
    fun callbackChain(n: Int): Long = runBlocking {
        val loop = coroutineContext[ContinuationInterceptor] as CoroutineDispatcher
        val done = CompletableDeferred<Long>()
        val step = object : Runnable {
            var ran = 0L
            override fun run() {
                ran++
                if (ran < n) loop.dispatch(EmptyCoroutineContext, this) else done.complete(ran)
            }
        }
        if (n > 0) loop.dispatch(EmptyCoroutineContext, step) else done.complete(0)
        done.await()
    }

    /**
     * Starts [n] coroutines, each awaiting its own `CompletableDeferred` that is never completed,
     * on a dispatcher of its own (a single-thread executor, daemon thread "kotlinx-suspended"), and
     * returns once all [n] are suspended (they are started `UNDISPATCHED`, so each runs up to its
     * `await()` inside `launch`). [SuspendedTasks.close] cancels them, waits for them to finish and
     * shuts the dispatcher down.
     */
    @JvmStatic
    fun suspendedTasks(n: Int): SuspendedTasks = SuspendedTasks(n)

    /**
     * Launches [n] coroutines, each `delay(d)` with `d` uniform in [0, 10 ms) drawn (in nanoseconds)
     * from `Random(seed)`, and returns once all are done with the sum of the delays drawn, in
     * nanoseconds. `delay` has millisecond resolution: kotlinx rounds a duration up to whole
     * milliseconds, so each timer waits 1 to 10 ms (none is zero, which would not suspend at all).
     * The timers are runBlocking's event loop's own delayed queue (see the class comment); the
     * caller's time from the call to its return is from the first timer scheduled to the last fired.
     */
    @JvmStatic
    fun timers(n: Int, seed: Long): Long {
        val random = Random(seed)
        var fired = 0L
        runBlocking {
            repeat(n) {
                val d = random.nextLong(TIMER_BOUND_NANOS)
                launch {
                    delay(d.nanoseconds)
                    fired += d
                }
            }
        } // runBlocking returns once its children are done
        return fired
    }

    private const val TIMER_BOUND_NANOS = 10_000_000L
}

/**
 * [n] coroutines suspended, each on its own never-completed `CompletableDeferred`, on a
 * single-thread dispatcher of their own; see [KotlinxWorkloads.suspendedTasks]. [close] cancels
 * them, waits until they are done and shuts the dispatcher down; closing twice does nothing.
 */
class SuspendedTasks internal constructor(n: Int) : AutoCloseable {
    private val dispatcher: ExecutorCoroutineDispatcher =
        Executors.newSingleThreadExecutor { r -> Thread(r, "kotlinx-suspended").apply { isDaemon = true } }
            .asCoroutineDispatcher()
    private val job = Job()
    private val closed = AtomicBoolean()

    /** How many coroutines are suspended (the `n` asked for). */
    val count: Int

    init {
        val scope = CoroutineScope(dispatcher + job)
        count = runBlocking(dispatcher) {
            var started = 0
            repeat(n) {
                scope.launch(start = CoroutineStart.UNDISPATCHED) {
                    CompletableDeferred<Unit>().await()
                }
                started++
            }
            started
        }
    }

    override fun close() {
        if (!closed.compareAndSet(false, true)) return
        try {
            runBlocking { job.cancelAndJoin() }
        } finally {
            dispatcher.close()
        }
    }
}
