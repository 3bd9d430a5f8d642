package io.loopdiag.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * A loop's selector and the reader and writer handle of each channel registered with it; a select
 * appends the handles of the ready channels to the loop's ready queue. Only the thread holding the
 * loop's baton may call it, except {@link #wakeup}, which any thread may.
 */
final class LoopSelector {
    private final Selector selector;
    private final ArrayDeque<Object> ready;
    private final Consumer<SelectionKey> onSelected = this::queueReadyChannel;

    /** The reader and writer handles of one registered channel. */
    private static final class IoRegistration {
        Handle reader;
        Handle writer;
    }

    /** A selector whose ready channels' handles go to {@code ready}, the loop's ready queue. */
    LoopSelector(ArrayDeque<Object> ready) {
        this.ready = ready;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector", e);
        }
    }

    /**
     * Sets or ({@code handle} null) clears the reading or writing side of {@code channel}; returns
     * whether a handle was there before. The previous handle is cancelled.
     */
    boolean setIoCallback(SelectableChannel channel, Handle handle, boolean reading) {
        SelectionKey key = channel.keyFor(selector);
        IoRegistration io;
        if (key == null || !key.isValid()) {
            if (handle == null) {
                return false;
            }
            io = new IoRegistration();
            try {
                key = channel.register(selector, 0, io);
            } catch (ClosedChannelException e) {
                throw new UncheckedIOException("channel is closed: " + channel, e);
            }
        } else {
            io = (IoRegistration) key.attachment();
        }
        Handle previous = reading ? io.reader : io.writer;
        if (previous != null) {
            previous.cancel(); // it may be queued in this iteration's ready handles
        }
        if (reading) {
            io.reader = handle;
        } else {
            io.writer = handle;
        }
        int ops = 0;
        if (io.reader != null) {
            ops |= (channel.validOps() & SelectionKey.OP_ACCEPT) != 0 ? SelectionKey.OP_ACCEPT : SelectionKey.OP_READ;
        }
        if (io.writer != null) {
            // OP_CONNECT is polled only while a connect is pending; OP_WRITE serves once it is done.
            ops |= channel instanceof SocketChannel socket && socket.isConnectionPending()
                    ? SelectionKey.OP_CONNECT | SelectionKey.OP_WRITE : SelectionKey.OP_WRITE;
        }
        // A key with no interest stays registered: cancelling it and registering the channel
        // again before the next select would throw CancelledKeyException.
        key.interestOps(ops);
        return previous != null;
    }

    /** Whether any channel is registered, so that a poll could find anything. */
    boolean hasChannels() {
        return !selector.keys().isEmpty();
    }

    /** Queues the handles of the channels ready now, without waiting. */
    void selectNow() throws IOException {
        selector.selectNow(onSelected);
    }

    /**
     * Waits up to {@code waitNanos} (negative: until {@link #wakeup}) for a channel to be ready and
     * queues the handles of the ready ones. The loop calls it only from {@code EventLoop.waitForIo}.
     */
    void select(long waitNanos) throws IOException {
        if (waitNanos < 0) {
            selector.select(onSelected);
        } else {
            selector.select(onSelected, Math.max(1, (waitNanos + 999_999) / 1_000_000));
        }
    }

    /** Makes a select in progress, or the next one, return at once. Any thread. */
    void wakeup() {
        selector.wakeup();
    }

    /** Closes the selector; the registered channels stay open. */
    void close() {
        try {
            selector.close();
        } catch (IOException ignored) {
            // Nothing useful to do: the loop is gone either way.
        }
    }

    private void queueReadyChannel(SelectionKey key) {
        IoRegistration io = (IoRegistration) key.attachment();
        int readyOps = key.readyOps();
        if (io.reader != null && (readyOps & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0) {
            ready.add(io.reader);
        }
        if (io.writer != null && (readyOps & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0) {
            ready.add(io.writer);
        }
    }
}
