package io.loopdiag.loop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One platform thread that carries a running loop's virtual thread and its tasks' virtual threads,
 * so that handing the baton between them never wakes another core: an unpark just queues the next
 * virtual thread behind the one that is about to park. With the JDK's shared scheduler each hand-off
 * woke a second carrier thread, and a task switch cost about 1 us instead of 0.45 us (measured with
 * JMH in bench/, docs/decisions.md).
 *
 * <p>The JDK has no public API for a virtual thread's scheduler yet. The loop uses this carrier only
 * when {@code java.lang} is open to loop-core ({@code --add-opens java.base/java.lang=ALL-UNNAMED},
 * or {@code Add-Opens: java.base/java.lang} in an executable jar's manifest); otherwise
 * {@link #open} returns null and the loop runs on the shared scheduler, correct and slower.
 *
 * <p>A virtual thread inherits the scheduler of the thread that creates it, so one started from a
 * task or a callback would land here and run in the loop's place. The carrier therefore runs only the
 * threads it {@linkplain #adopt adopted} (the loop's and its tasks'); any other is passed on to the
 * JDK's shared scheduler, where it would have run without this class.
 */
final class LoopCarrier implements Executor {
    private static final Access ACCESS = Access.find();

    /** An idle carrier's platform thread ends after this long, and a new one starts when needed. */
    private static final long IDLE_SECONDS = 10;

    private final ThreadPoolExecutor thread;
    /** The {@code runContinuation} of each adopted virtual thread: what the JDK hands to {@link #execute}. */
    private final Set<Runnable> adopted = ConcurrentHashMap.newKeySet();

    private LoopCarrier(String name) {
        thread = new ThreadPoolExecutor(1, 1, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), work -> {
            Thread carrier = new Thread(work, "loopdiag-carrier-" + name);
            carrier.setDaemon(true);
            return carrier;
        });
        // A loop that is never closed must not keep a platform thread for ever.
        thread.allowCoreThreadTimeOut(true);
    }

    /** A new carrier, or null when the JDK does not let loop-core choose a virtual thread's scheduler. */
    static LoopCarrier open(String name) {
        return ACCESS == null || Boolean.getBoolean("loopdiag.sharedScheduler") ? null : new LoopCarrier(name);
    }

    /** An unstarted virtual thread on this carrier, adopted. */
    Thread newThread(String threadName, Runnable body) {
        Thread thread = ACCESS.builder(this).name(threadName).unstarted(body);
        adopt(thread);
        return thread;
    }

    /** From now on {@code virtualThread} runs here: call before starting it. */
    void adopt(Thread virtualThread) {
        adopted.add(ACCESS.runContinuation(virtualThread));
    }

    /** {@code virtualThread} ended, or is about to: forget it. */
    void release(Thread virtualThread) {
        adopted.remove(ACCESS.runContinuation(virtualThread));
    }

    @Override
    public void execute(Runnable continuation) {
        if (adopted.contains(continuation)) {
            thread.execute(continuation);
        } else {
            ACCESS.sharedScheduler.execute(continuation);
        }
    }

    /** Stops the platform thread once the work queued on it is done (the loop closes). */
    void close() {
        thread.shutdown();
    }

    /** The JDK internals this needs, found once; null when any of them is missing or closed. */
    private record Access(Constructor<?> builderWithScheduler, VarHandle runContinuation, Executor sharedScheduler) {
        static Access find() {
            try {
                Class<?> builder = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder");
                Constructor<?> constructor = builder.getDeclaredConstructor(Executor.class);
                constructor.setAccessible(true);
                Class<?> virtualThread = Class.forName("java.lang.VirtualThread");
                MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(virtualThread, MethodHandles.lookup());
                VarHandle runContinuation = lookup.findVarHandle(virtualThread, "runContinuation", Runnable.class);
                Field defaultScheduler = virtualThread.getDeclaredField("DEFAULT_SCHEDULER");
                defaultScheduler.setAccessible(true);
                Executor shared = (Executor) defaultScheduler.get(null);
                return new Access(constructor, runContinuation, shared);
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

        Runnable runContinuation(Thread virtualThread) {
            return (Runnable) runContinuation.get(virtualThread);
        }
    }
}
