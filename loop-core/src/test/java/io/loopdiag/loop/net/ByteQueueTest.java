package io.loopdiag.loop.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ByteQueueTest {
    private static final int MAX_READ = 256 * 1024;

    @Test
    void readsIntoTheRoomThereIsAndDoublesItOnlyWhenAReadFillsIt() throws Exception {
        byte[] sent = new byte[10_000];
        new Random(1).nextBytes(sent);
        ReadableByteChannel channel = Channels.newChannel(new ByteArrayInputStream(sent));
        ByteQueue queue = new ByteQueue();

        List<Integer> reads = new ArrayList<>();
        int read;
        while ((read = queue.readFrom(channel, MAX_READ)) > 0) {
            reads.add(read);
        }

        // A new queue has a kilobyte: a quiet connection keeps that, not room for MAX_READ.
        assertEquals(List.of(1024, 1024, 2048, 4096, 1808), reads);
        assertEquals(-1, read);
        assertArrayEquals(sent, queue.take(queue.size()));
    }

    @Test
    void readsAtMostMaxAndReusesTheRoomOnceTheBytesAreTaken() throws Exception {
        byte[] sent = new byte[3_000];
        new Random(2).nextBytes(sent);
        ReadableByteChannel channel = Channels.newChannel(new ByteArrayInputStream(sent));
        ByteQueue queue = new ByteQueue();

        assertEquals(100, queue.readFrom(channel, 100));
        byte[] first = queue.take(100);
        assertEquals(1024, queue.readFrom(channel, MAX_READ), "emptied, the whole kilobyte is room again");
        byte[] second = queue.take(1024);
        assertArrayEquals(java.util.Arrays.copyOfRange(sent, 0, 100), first);
        assertArrayEquals(java.util.Arrays.copyOfRange(sent, 100, 1124), second);
    }
}
