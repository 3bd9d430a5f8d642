package io.loopdiag.loop;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Values held weakly, so that listing them never keeps one alive: the JVM's loops ({@link
 * #LOOPS}). Any thread may add, remove and list. (A loop's tasks are in its {@link TaskTable}.)
 */
final class WeakRegistry<T> {
    /** Every loop made and not yet closed or collected, for {@link EventLoop#allLoops()}. */
    static final WeakRegistry<EventLoop> LOOPS = new WeakRegistry<>(EventLoop::id);

    private final ToLongFunction<? super T> idOf;
    private final Set<Ref<T>> refs = ConcurrentHashMap.newKeySet();
    private final ReferenceQueue<T> collected = new ReferenceQueue<>();

    WeakRegistry(ToLongFunction<? super T> idOf) {
        this.idOf = idOf;
    }

    /** A reference to {@code value} for {@link #add}, made once its id is set. */
    Ref<T> newRef(T value) {
        return new Ref<>(value, idOf.applyAsLong(value), collected);
    }

    /** Lists {@code ref}'s value until {@link #remove} or its collection. */
    void add(Ref<T> ref) {
        forgetCollected();
        refs.add(ref);
    }

    void remove(Ref<T> ref) {
        refs.remove(ref);
    }

    /** The values not yet collected that {@code keep} accepts, by id. */
    List<T> list(Predicate<? super T> keep) {
        forgetCollected();
        List<T> live = new ArrayList<>(refs.size());
        for (Ref<T> ref : refs) {
            T value = ref.get();
            if (value != null && keep.test(value)) {
                live.add(value);
            }
        }
        live.sort((a, b) -> Long.compare(idOf.applyAsLong(a), idOf.applyAsLong(b)));
        return live;
    }

    private void forgetCollected() {
        Reference<? extends T> gone;
        while ((gone = collected.poll()) != null) {
            refs.remove(gone);
        }
    }

    /** Hashed by the value's id, so that registering costs no identity hash; equal only to itself. */
    static final class Ref<T> extends WeakReference<T> {
        private final int hash;

        private Ref(T value, long id, ReferenceQueue<T> queue) {
            super(value, queue);
            this.hash = Long.hashCode(id);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            return this == other;
        }
    }
}
