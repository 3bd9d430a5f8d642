package io.loopdiag.loop.sync;

import java.util.ArrayDeque;
import java.util.Collections;

/** A {@link Queue} that gives the item put last first (asyncio's {@code LifoQueue}). */
public final class LifoQueue<T> extends Queue<T> {
    /** An unbounded LIFO queue. */
    public LifoQueue() {
        this(0);
    }

    /** A LIFO queue holding at most {@code maxSize} items; zero or less means unbounded. */
    public LifoQueue(int maxSize) {
        super(maxSize, Collections.asLifoQueue(new ArrayDeque<>()));
    }
}
