package io.loopdiag.loop.net;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.Arrays;

/**
 * A growable FIFO of bytes: appended at the end, taken from the front. The bytes live in
 * {@code data[start, end)}; room is made by moving them to the front before growing the array.
 */
final class ByteQueue {
    private byte[] data = new byte[1024];
    private int start;
    private int end;

    int size() {
        return end - start;
    }

    boolean isEmpty() {
        return start == end;
    }

    void append(byte[] bytes, int offset, int length) {
        ensureRoom(length);
        System.arraycopy(bytes, offset, data, end, length);
        end += length;
    }

    /**
     * Reads once from {@code channel} into the room there is, at most {@code max} bytes; the
     * channel's return value. The array grows (doubling, up to room for {@code max}) only when a
     * read finds it full, so it follows the traffic: making room for {@code max} up front cost every
     * connection {@code max} bytes, 256 MB of heap for a thousand quiet ones.
     */
    int readFrom(ReadableByteChannel channel, int max) throws IOException {
        if (end == data.length) {
            ensureRoom(Math.min(max, data.length));
        }
        int read = channel.read(ByteBuffer.wrap(data, end, Math.min(max, data.length - end)));
        if (read > 0) {
            end += read;
        }
        return read;
    }

    /** Writes the front bytes to {@code channel} once and drops those written; returns their count. */
    int writeTo(WritableByteChannel channel) throws IOException {
        int written = channel.write(ByteBuffer.wrap(data, start, size()));
        discard(written);
        return written;
    }

    /** Index (relative to the front) of the first {@code b} at or after {@code from}, or -1. */
    int indexOf(byte b, int from) {
        for (int i = start + from; i < end; i++) {
            if (data[i] == b) {
                return i - start;
            }
        }
        return -1;
    }

    /** Removes and returns the first {@code length} bytes. */
    byte[] take(int length) {
        byte[] taken = Arrays.copyOfRange(data, start, start + length);
        discard(length);
        return taken;
    }

    void discard(int length) {
        start += length;
        if (start == end) {
            start = 0;
            end = 0;
        }
    }

    private void ensureRoom(int length) {
        if (data.length - end >= length) {
            return;
        }
        int size = size();
        if (data.length - size >= length) {
            System.arraycopy(data, start, data, 0, size);
        } else {
            byte[] grown = new byte[Math.max(data.length * 2, size + length)];
            System.arraycopy(data, start, grown, 0, size);
            data = grown;
        }
        start = 0;
        end = size;
    }
}
