package io.loopdiag.apps;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;

/**
 * Blocking queues: {@code take} on an empty {@code ArrayBlockingQueue} that another thread fills,
 * {@code put} on a full {@code LinkedBlockingQueue} that another thread drains, and {@code take}
 * on a {@code SynchronousQueue}.
 */
final class BlockingQueues {
    static final String NAME = "blocking-queue";
    static final String DESCRIPTION = "take and put on java.util.concurrent blocking queues in a task";

    private BlockingQueues() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingQueues::operations);
        return Main.done(NAME);
    }

    private static void operations() throws InterruptedException {
        arrayBlockingQueueTake();
        linkedBlockingQueuePut();
        synchronousQueueTake();
    }

    private static void arrayBlockingQueueTake() throws InterruptedException {
        ArrayBlockingQueue<String> queue = new ArrayBlockingQueue<>(1);
        OtherThread.after(() -> queue.put("item"));
        queue.take();
    }

    private static void linkedBlockingQueuePut() throws InterruptedException {
        LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>(1);
        if (!queue.offer("first")) { // offer, not put: filling the queue must not block
            throw new IllegalStateException("a new queue of capacity 1 refused its first item");
        }
        OtherThread.after(queue::take);
        queue.put("second");
    }

    private static void synchronousQueueTake() throws InterruptedException {
        SynchronousQueue<String> queue = new SynchronousQueue<>();
        OtherThread.after(() -> queue.put("item"));
        queue.take();
    }
}
