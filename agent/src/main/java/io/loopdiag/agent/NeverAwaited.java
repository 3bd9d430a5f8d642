package io.loopdiag.agent;

import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Task;
import io.loopdiag.protocol.Kind;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Finds coroutines that were created and dropped without being awaited or made a task
 * ({@code never-awaited}), like asyncio's "coroutine ... was never awaited", and also at natural
 * boundaries so that CI runs are repeatable: when the coroutine is garbage-collected, when the loop
 * it was created on closes, or at JVM exit.
 *
 * <p>Most coroutines are awaited within moments of their creation, so a new one goes to a small
 * nursery (strong references, one lock) at a cost of tens of nanoseconds; every
 * {@link #NURSERY_SWEEP_AT} creations the nursery is swept: the awaited ones are forgotten, the
 * others are watched through weak references until they are awaited, collected, or their loop closes.
 */
final class NeverAwaited {
    static final int NURSERY_SWEEP_AT = 64;

    /**
     * What is known of a coroutine from its creation; formatted only if it is reported, as
     * creating one is on the path of every coroutine.
     */
    private record Origin(String name, EventLoop loop, Task<?> task, Throwable site) {
    }

    /** A coroutine in the nursery, with its origin. */
    private record Newborn(Coroutine<?> coroutine, Origin origin) {
    }

    /** A coroutine that outlived a sweep without being awaited. */
    private static final class Watched extends WeakReference<Coroutine<?>> {
        final Origin origin;

        Watched(Coroutine<?> coroutine, Origin origin, ReferenceQueue<Coroutine<?>> queue) {
            super(coroutine, queue);
            this.origin = origin;
        }
    }

    /** How many coroutines are watched: while none is, an await costs one read. */
    static volatile int watchedCount;

    private final Findings findings;
    private final List<Newborn> nursery = new ArrayList<>(); // guarded by this
    private final Map<Coroutine<?>, Watched> watched = new WeakHashMap<>(); // guarded by this
    private final Set<Watched> pending = new HashSet<>(); // keeps each Watched reachable until handled
    private final ReferenceQueue<Coroutine<?>> collected = new ReferenceQueue<>();

    NeverAwaited(Findings findings) {
        this.findings = findings;
    }

    /** On the thread creating {@code coroutine}, from advice at the end of its constructor. */
    void created(Coroutine<?> coroutine) {
        Task<?> task = Task.current();
        Origin origin = new Origin(coroutine.name(), task != null ? task.loop() : EventLoop.current(), task,
                CreationSites.capture());
        synchronized (this) {
            nursery.add(new Newborn(coroutine, origin));
            if (nursery.size() >= NURSERY_SWEEP_AT) {
                sweep(null, false);
            }
        }
    }

    /** {@code coroutine} was awaited or made a task; called only while some coroutine is watched. */
    synchronized void consumed(Coroutine<?> coroutine) {
        Watched entry = watched.remove(coroutine);
        if (entry != null) {
            pending.remove(entry);
            watchedCount = pending.size();
        }
    }

    /** Reports the coroutines collected unawaited since the last call (the watchdog calls it). */
    void pollCollected() {
        List<Origin> lost = new ArrayList<>();
        synchronized (this) {
            java.lang.ref.Reference<? extends Coroutine<?>> ref;
            while ((ref = collected.poll()) != null) {
                if (pending.remove(ref)) {
                    lost.add(((Watched) ref).origin);
                }
            }
            watchedCount = pending.size();
        }
        lost.forEach(this::report);
    }

    /** {@code loop} closed: its coroutines not awaited by now never will be. */
    void loopClosed(EventLoop loop) {
        report(collectUnawaited(loop));
    }

    /** The JVM exits: every coroutine not awaited by now never was. */
    void exiting() {
        pollCollected();
        report(collectUnawaited(null));
    }

    private synchronized List<Origin> collectUnawaited(EventLoop loop) {
        List<Origin> lost = sweep(loop, true);
        for (Iterator<Watched> it = pending.iterator(); it.hasNext(); ) {
            Watched entry = it.next();
            Coroutine<?> coroutine = entry.get();
            if (loop == null || entry.origin.loop() == loop) {
                it.remove();
                if (coroutine == null) {
                    lost.add(entry.origin); // collected, not yet polled: consuming it would have ended its watch
                } else {
                    watched.remove(coroutine);
                    if (!coroutine.isConsumed()) {
                        lost.add(entry.origin);
                    }
                }
            }
        }
        watchedCount = pending.size();
        return lost;
    }

    /**
     * Empties the nursery of the coroutines of {@code loop} (null: all): awaited ones are
     * forgotten; the others are returned if {@code final}, else watched. Holds the lock.
     */
    private List<Origin> sweep(EventLoop loop, boolean isFinal) {
        List<Origin> lost = new ArrayList<>();
        nursery.removeIf(newborn -> {
            Origin origin = newborn.origin();
            if (loop != null && origin.loop() != loop) {
                return false;
            }
            Coroutine<?> coroutine = newborn.coroutine();
            if (!coroutine.isConsumed()) {
                if (isFinal) {
                    lost.add(origin);
                } else {
                    Watched entry = new Watched(coroutine, origin, collected);
                    watched.put(coroutine, entry);
                    pending.add(entry);
                }
            }
            return true;
        });
        watchedCount = pending.size();
        return lost;
    }

    private void report(List<Origin> lost) {
        lost.forEach(this::report);
    }

    private void report(Origin origin) {
        List<StackTraceElement> site = CreationSites.decode(origin.site());
        String what = "coroutine '" + Names.withoutLambdaAddress(origin.name()) + "' was never awaited nor made a task"
                + (site == null ? " (" + CreationSites.NOT_RECORDED + ")"
                        : site.isEmpty() ? "" : ", created at " + site.get(0));
        findings.report(new Occurrence(Kind.NEVER_AWAITED, origin.loop(), origin.loop() != null ? origin.loop().name() : null,
                Names.task(origin.task()), what, site != null ? site : List.of(), null, 0));
    }
}
