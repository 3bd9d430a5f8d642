package io.loopdiag.loop.sync;

import java.util.Comparator;

/**
 * A {@link Queue} that gives the least item first, by {@code order} or the items' natural order
 * (asyncio's {@code PriorityQueue}, which takes the least of its tuples). Items that compare
 * equal come out in no set order, as from a heap.
 */
public final class PriorityQueue<T> extends Queue<T> {
    /** An unbounded queue of {@link Comparable} items, least first. */
    public PriorityQueue() {
        this(0, null);
    }

    /** A queue holding at most {@code maxSize} items (zero or less: unbounded), least by {@code order} first; null: natural order. */
    public PriorityQueue(int maxSize, Comparator<? super T> order) {
        super(maxSize, new java.util.PriorityQueue<>(order));
    }
}
