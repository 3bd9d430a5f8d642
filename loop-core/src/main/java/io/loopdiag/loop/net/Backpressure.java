package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.IoWait;
import java.io.IOException;

/**
 * The back-pressure of a send buffer, asyncio's pair of water marks: once the buffer has grown
 * above {@link StreamWriter#HIGH_WATER_BYTES}, {@link #drain} suspends until the loop has sent it
 * down to {@link StreamWriter#LOW_WATER_BYTES}. The owner reports the buffer's size as it grows and
 * shrinks. One draining task at a time; loop thread only.
 */
final class Backpressure {
    private final EventLoop loop;
    /** What a draining task waits on, as a dump shows it: io {@code direction} of {@code target}. */
    private final String direction;
    private final String target;
    private boolean paused; // above high water and not yet back at low water
    private Future<Void> waiter;

    Backpressure(EventLoop loop, String direction, String target) {
        this.loop = loop;
        this.direction = direction;
        this.target = target;
    }

    /** The buffer grew to {@code buffered} bytes. */
    void grew(int buffered) {
        if (buffered > StreamWriter.HIGH_WATER_BYTES) {
            paused = true;
        }
    }

    /** The buffer shrank to {@code buffered} bytes: at low water, a waiting drain returns. */
    void shrank(int buffered) {
        if (paused && buffered <= StreamWriter.LOW_WATER_BYTES) {
            release(null);
        }
    }

    /** Nothing more will be sent: a waiting drain returns, or throws {@code failure} if there is one. */
    void release(IOException failure) {
        paused = false;
        Future<Void> waiting = waiter;
        if (waiting == null || waiting.isDone()) {
            return;
        }
        if (failure == null) {
            waiting.setResult(null);
        } else {
            waiting.setException(failure);
        }
    }

    /** Suspends while paused, until {@link #shrank} or {@link #release}; returns at once otherwise. Inside a task. */
    void drain() throws Exception {
        if (!paused) {
            return;
        }
        if (waiter != null) {
            throw new IllegalStateException("drain() called while another task is already draining " + target);
        }
        Future<Void> drained = new IoWait(direction, target).future(loop);
        waiter = drained;
        try {
            await(drained);
        } finally {
            waiter = null;
        }
    }
}
