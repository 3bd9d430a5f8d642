package io.loopdiag.loop.sync;

import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.loop.Async;
import io.loopdiag.loop.Future;
import java.util.ArrayDeque;

/**
 * A FIFO queue between tasks of one loop (asyncio's {@code Queue}): {@link #get()} suspends while
 * it is empty and, if it is bounded, {@link #put} suspends while it is full. Tasks waiting to get
 * or to put are woken one at a time in the order they began to wait. Every put item counts as
 * unfinished until a consumer calls {@link #taskDone()}, which is what {@link #join()} waits for.
 * Loop thread and its tasks only.
 *
 * <p>A woken task takes its item when it runs, so a task calling {@link #getNowait()} in between
 * can take it first; the woken one then waits again at the back, as in asyncio. A task cancelled
 * after it was woken passes the wake-up on to the next waiter, so no item is left unclaimed.
 *
 * <p>{@link #shutdown} ends the queue (asyncio 3.13): puts fail with {@link QueueShutDownException}
 * at once, gets once the queue is empty. {@link LifoQueue} and {@link PriorityQueue} take their
 * items in another order and are queues in every other way.
 */
public class Queue<T> {
    private final int maxSize;
    private final java.util.Queue<T> items;
    private boolean shutDown;
    private final LoopBinding binding = new LoopBinding("queue");
    private final Waiters getters = new Waiters(binding, AwaitKinds.QUEUE, "queue get", this);
    private final Waiters putters = new Waiters(binding, AwaitKinds.QUEUE, "queue put", this);
    private final Waiters joiners = new Waiters(binding, AwaitKinds.QUEUE, "queue join", this);
    private int unfinishedTasks; // items put and not yet marked done with taskDone()

    /** An unbounded queue. */
    public Queue() {
        this(0);
    }

    /** A queue holding at most {@code maxSize} items; zero or less means unbounded, as in asyncio. */
    public Queue(int maxSize) {
        this(maxSize, new ArrayDeque<>());
    }

    /** A queue whose items are kept, and taken in the order of, {@code items}. */
    Queue(int maxSize, java.util.Queue<T> items) {
        this.maxSize = Math.max(0, maxSize);
        this.items = items;
    }

    /** The bound given at creation, or 0 if the queue is unbounded. */
    public int maxSize() {
        return maxSize;
    }

    /** How many items the queue holds now. */
    public int size() {
        return items.size();
    }

    public boolean isEmpty() {
        return items.isEmpty();
    }

    /** True if the queue is bounded and holds {@link #maxSize()} items: {@link #put} would suspend. */
    public boolean isFull() {
        return maxSize > 0 && items.size() >= maxSize;
    }

    /**
     * Adds {@code item} (not null) at the back, first suspending the calling task while the queue
     * is full. On {@link io.loopdiag.loop.CancelledException} the item was not added.
     */
    public void put(T item) throws Exception {
        requireItem(item);
        while (isFull() && !shutDown) {
            Future<Void> putter = putters.add();
            try {
                Async.await(putter);
            } catch (Throwable failure) {
                putters.remove(putter);
                if (!isFull() && Waiters.isWoken(putter)) {
                    putters.wakeFirst(); // the free slot we were woken for is another putter's now
                }
                throw failure;
            }
        }
        putNowait(item);
    }

    /**
     * Adds {@code item} (not null) at the back without waiting; throws {@link QueueFullException}
     * if full, {@link QueueShutDownException} if shut down.
     */
    public void putNowait(T item) {
        getters.checkThread();
        requireItem(item);
        if (shutDown) {
            throw new QueueShutDownException("queue is shut down: no more puts");
        }
        if (isFull()) {
            throw new QueueFullException("queue is full (" + maxSize + " items)");
        }
        items.add(item);
        unfinishedTasks++;
        getters.wakeFirst();
    }

    /**
     * Removes and returns the item at the front, first suspending the calling task while the queue
     * is empty. On {@link io.loopdiag.loop.CancelledException} no item was taken.
     */
    public T get() throws Exception {
        while (isEmpty() && !shutDown) {
            Future<Void> getter = getters.add();
            try {
                Async.await(getter);
            } catch (Throwable failure) {
                getters.remove(getter);
                if (!isEmpty() && Waiters.isWoken(getter)) {
                    getters.wakeFirst(); // the item we were woken for is another getter's now
                }
                throw failure;
            }
        }
        return getNowait();
    }

    /**
     * Removes and returns the item at the front without waiting; throws {@link QueueEmptyException}
     * if empty, {@link QueueShutDownException} if empty and shut down.
     */
    public T getNowait() {
        getters.checkThread();
        T item = items.poll();
        if (item == null) {
            throw shutDown ? new QueueShutDownException("queue is shut down and empty") : new QueueEmptyException("queue is empty");
        }
        putters.wakeFirst();
        return item;
    }

    /**
     * Marks one item taken with {@link #get()} as processed; when every put item is, tasks in
     * {@link #join()} are woken. Throws IllegalStateException if called more times than items were put.
     */
    public void taskDone() {
        getters.checkThread();
        if (unfinishedTasks <= 0) {
            throw new IllegalStateException("taskDone() called more times than items were put");
        }
        unfinishedTasks--;
        if (unfinishedTasks == 0) {
            joiners.wakeAll();
        }
    }

    /** Suspends the calling task until every item put so far has been marked with {@link #taskDone()}. */
    public void join() throws Exception {
        if (unfinishedTasks == 0) {
            return;
        }
        joiners.await();
    }

    /**
     * Ends the queue (asyncio 3.13's {@code shutdown}): from now on a put fails with {@link
     * QueueShutDownException}, and so does a get once the queue is empty; every task waiting to put
     * or to get is woken to find that out. With {@code immediate}, the items left are dropped and
     * count as done, so that {@link #join()} returns. Calling it again changes nothing more,
     * except that an immediate one still drops the items left.
     */
    public void shutdown(boolean immediate) {
        getters.checkThread();
        shutDown = true;
        if (immediate) {
            int dropped = items.size();
            items.clear();
            unfinishedTasks = Math.max(0, unfinishedTasks - dropped);
            if (unfinishedTasks == 0) {
                joiners.wakeAll();
            }
        }
        getters.wakeAll();
        putters.wakeAll();
    }

    /** True once {@link #shutdown} was called. */
    public boolean isShutDown() {
        return shutDown;
    }

    /** How many put items have not been marked with {@link #taskDone()} yet. */
    public int unfinishedTasks() {
        return unfinishedTasks;
    }

    private static void requireItem(Object item) {
        if (item == null) {
            throw new NullPointerException("a queue item cannot be null");
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[size " + items.size() + (maxSize > 0 ? "/" + maxSize : "")
                + ", getters " + getters.pendingCount() + ", putters " + putters.pendingCount()
                + ", unfinished " + unfinishedTasks + (shutDown ? ", shut down" : "") + "]";
    }
}
