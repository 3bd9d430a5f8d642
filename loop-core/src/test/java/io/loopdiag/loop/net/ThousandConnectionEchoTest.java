package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class ThousandConnectionEchoTest {
    private static final int CONNECTIONS = 1000;
    private static final int WRITES_PER_CONNECTION = 5;
    /** Each connection needs two descriptors (client and accepted); leave room for the JVM's own. */
    private static final long SPARE_DESCRIPTORS = 200;

    private final EventLoop loop = new EventLoop();
    private Server server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
        loop.close();
    }

    /** Echoes every byte back until the client's EOF. */
    private static void echo(StreamReader reader, StreamWriter writer) throws Exception {
        byte[] chunk;
        while ((chunk = reader.read(64 * 1024)).length > 0) {
            writer.write(chunk);
            writer.drain();
        }
    }

    /** The {@code part}th write of client {@code id}: distinct per client and part, of varying length. */
    private static byte[] payload(int id, int part) {
        return ("client " + id + " part " + part + " " + "x".repeat((id * 7 + part * 131) % 2000) + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aThousandClientsOnOneLoopEachGetEveryByteBackInOrder() throws Exception {
        checkDescriptorsAvailable(2L * CONNECTIONS + SPARE_DESCRIPTORS);
        server = Streams.startServer(loop, ThousandConnectionEchoTest::echo, "127.0.0.1", 0);
        int port = server.port();
        List<Integer> checked = loop.runUntilComplete(Coroutine.of("clients", () -> {
            List<Task<Integer>> clients = new ArrayList<>(CONNECTIONS);
            for (int i = 0; i < CONNECTIONS; i++) {
                int id = i;
                clients.add(Async.createTask("client-" + id, () -> runClient(id, port)));
            }
            Future<List<Integer>> all = Async.gather(clients, false);
            return await(all);
        }));
        assertEquals(CONNECTIONS, checked.size());
        for (int i = 0; i < CONNECTIONS; i++) {
            assertEquals(expectedLength(i), checked.get(i), "bytes echoed to client " + i);
        }
    }

    private static int expectedLength(int id) {
        int total = 0;
        for (int part = 0; part < WRITES_PER_CONNECTION; part++) {
            total += payload(id, part).length;
        }
        return total;
    }

    /** Sends the client's parts in separate writes, reads the echo of each, and checks it byte for byte. */
    private static int runClient(int id, int port) throws Exception {
        Streams.Connection connection = Streams.openConnection("127.0.0.1", port);
        int total = 0;
        try {
            for (int part = 0; part < WRITES_PER_CONNECTION; part++) {
                byte[] sent = payload(id, part);
                connection.writer().write(sent);
                connection.writer().drain();
                byte[] echoed = connection.reader().readExactly(sent.length);
                assertArrayEquals(sent, echoed, "echo of part " + part + " of client " + id);
                total += echoed.length;
            }
            connection.writer().writeEof();
            assertEquals(0, connection.reader().read(1).length, "the server sent more than the echo to client " + id);
            assertTrue(connection.reader().atEof());
        } finally {
            connection.writer().close();
        }
        connection.writer().waitClosed();
        return total;
    }

    /** Fails with a clear message if this process cannot open {@code needed} more descriptors. */
    private static void checkDescriptorsAvailable(long needed) {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            long free = unix.getMaxFileDescriptorCount() - unix.getOpenFileDescriptorCount();
            assertTrue(free >= needed, "this test opens " + (2 * CONNECTIONS) + " sockets and needs " + needed
                    + " free file descriptors, but the process limit (ulimit -n) is " + unix.getMaxFileDescriptorCount()
                    + " with " + unix.getOpenFileDescriptorCount() + " open: raise the limit of the shell that runs the build");
        }
    }
}
