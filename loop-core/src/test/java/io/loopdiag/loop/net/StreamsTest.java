package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.ExceptionContext;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import java.io.IOException;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class StreamsTest {
    /** Loop iterations a test yields while waiting for loopback data that is already on its way. */
    private static final int MAX_YIELDS = 100_000;

    private final EventLoop loop = new EventLoop();
    private final List<Server> servers = new ArrayList<>();

    @AfterEach
    void close() {
        for (Server server : servers) {
            server.close();
        }
        loop.close();
    }

    private Server serve(Streams.Handler handler) throws IOException {
        Server server = Streams.startServer(loop, handler, "127.0.0.1", 0);
        servers.add(server);
        return server;
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] bytes = new byte[n];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void readLineReturnsEachLineWithItsNewlineThenTheRestThenEmptyAtEof() throws Exception {
        Server server = serve((reader, writer) -> writer.write("one\ntwo\n\nlast".getBytes(UTF_8)));
        List<String> lines = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            List<String> read = new ArrayList<>();
            while (!connection.reader().atEof()) {
                read.add(connection.reader().readLineUtf8());
            }
            read.add(connection.reader().readLineUtf8());
            connection.writer().close();
            return read;
        }));
        assertEquals(List.of("one\n", "two\n", "\n", "last", ""), lines);
    }

    @Test
    void readLineWithoutNewlineWithinTheLimitThrowsLimitOverrun() throws Exception {
        Server server = serve((reader, writer) -> {
            writer.write(new byte[3 * StreamReader.DEFAULT_LIMIT]);
            writer.drain();
            reader.read(1); // keep the connection open until the client closes
        });
        LimitOverrunException overrun = assertThrows(LimitOverrunException.class,
                () -> loop.runUntilComplete(Coroutine.of("client", () -> {
                    Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
                    try {
                        return connection.reader().readLine();
                    } finally {
                        connection.writer().close();
                    }
                })));
        assertTrue(overrun.consumed() > StreamReader.DEFAULT_LIMIT, overrun.getMessage());
    }

    @Test
    void readExactlyThrowsIncompleteReadWithThePartialBytesAtEarlyEof() throws Exception {
        Server server = serve((reader, writer) -> writer.write("abcde".getBytes(UTF_8)));
        IncompleteReadException incomplete = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            assertEquals("abc", new String(connection.reader().readExactly(3), UTF_8));
            IncompleteReadException thrown = assertThrows(IncompleteReadException.class,
                    () -> connection.reader().readExactly(5));
            assertTrue(connection.reader().atEof());
            connection.writer().close();
            return thrown;
        }));
        assertEquals("de", new String(incomplete.partial(), UTF_8));
        assertEquals(5, incomplete.expected());
    }

    @Test
    void readReturnsAtMostMaxBytesThenEmptyAtEof() throws Exception {
        Server server = serve((reader, writer) -> writer.write("0123456789".getBytes(UTF_8)));
        List<String> chunks = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            List<String> read = new ArrayList<>();
            byte[] chunk;
            while ((chunk = connection.reader().read(4)).length > 0) {
                assertTrue(chunk.length <= 4, "read(4) returned " + chunk.length + " bytes");
                read.add(new String(chunk, UTF_8));
            }
            connection.writer().close();
            return read;
        }));
        assertEquals("0123456789", String.join("", chunks));
    }

    @Test
    void drainSuspendsAboveTheHighWaterMarkUntilTheBufferIsBackAtTheLowWaterMark() throws Exception {
        byte[] sent = randomBytes(16 << 20, 1);
        Future<Void> release = loop.createFuture();
        Future<byte[]> receivedByServer = loop.createFuture();
        Server server = serve((reader, writer) -> {
            await(release);
            receivedByServer.setResult(reader.read(-1));
        });
        loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            StreamWriter writer = connection.writer();
            writer.drain(); // nothing buffered: returns at once
            writer.write(sent);
            assertTrue(writer.bufferedBytes() > StreamWriter.HIGH_WATER_BYTES,
                    "the kernel took " + (sent.length - writer.bufferedBytes()) + " bytes at once");
            Task<Void> draining = Async.createTask("drain", () -> {
                writer.drain();
                return null;
            });
            for (int i = 0; i < 100; i++) {
                sleep(Duration.ZERO);
            }
            assertFalse(draining.isDone(), "drain returned while the peer read nothing");
            assertEquals("drain " + writer.peer(), draining.awaiting().awaitLabel());
            release.setResult(null);
            await(draining);
            assertTrue(writer.bufferedBytes() <= StreamWriter.LOW_WATER_BYTES, writer.toString());
            writer.close();
            writer.waitClosed();
            return null;
        }));
        assertArrayEquals(sent, loop.runUntilComplete(receivedByServer));
    }

    @Test
    void readingPausesWhenTheBufferExceedsTwiceTheLimitAndResumesOnceRead() throws Exception {
        byte[] sent = randomBytes(1 << 20, 2);
        Future<byte[]> receivedByServer = loop.createFuture();
        Server server = serve((reader, writer) -> {
            int yields = 0;
            while (!reader.isReadingPaused()) {
                assertTrue(++yields < MAX_YIELDS, "reading never paused: " + reader);
                sleep(Duration.ZERO);
            }
            int buffered = reader.bufferedBytes();
            assertTrue(buffered > 2 * reader.limit(), reader.toString());
            for (int i = 0; i < 1000; i++) {
                sleep(Duration.ZERO);
            }
            assertEquals(buffered, reader.bufferedBytes(), "a paused reader kept reading");
            receivedByServer.setResult(reader.readExactly(sent.length));
            assertFalse(reader.isReadingPaused());
        });
        loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            connection.writer().write(sent);
            await(receivedByServer);
            connection.writer().close();
            return null;
        }));
        assertArrayEquals(sent, receivedByServer.result());
    }

    @Test
    void eachConnectionIsServedByATaskNamedAfterThePeer() throws Exception {
        Future<String> taskName = loop.createFuture();
        Server server = serve((reader, writer) -> taskName.setResult(Task.current().name()));
        String clientAddress = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            String local = localAddressOf(connection);
            await(taskName);
            assertEquals(0, connection.reader().read(1).length, "the server closes when the handler returns");
            connection.writer().close();
            return local;
        }));
        assertEquals("conn " + clientAddress, taskName.result());
    }

    private static String localAddressOf(Streams.Connection connection) throws IOException {
        return String.valueOf(connection.writer().localAddress());
    }

    @Test
    void closeSendsTheBufferedBytesBeforeClosingAndWaitClosedReturnsAfter() throws Exception {
        byte[] sent = randomBytes(4 << 20, 3);
        Future<byte[]> receivedByServer = loop.createFuture();
        Server server = serve((reader, writer) -> receivedByServer.setResult(reader.read(-1)));
        loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            StreamWriter writer = connection.writer();
            writer.write(sent);
            writer.close();
            assertTrue(writer.isClosing());
            assertThrows(IOException.class, () -> writer.write(new byte[1]));
            assertTrue(connection.reader().atEof(), "closing the writer ends the reader");
            writer.waitClosed();
            assertEquals(0, writer.bufferedBytes());
            return null;
        }));
        assertArrayEquals(sent, loop.runUntilComplete(receivedByServer));
    }

    @Test
    void writeEofLetsThePeerReadToTheEndAndStillAnswer() throws Exception {
        Server server = serve((reader, writer) -> {
            byte[] request = reader.read(-1);
            writer.write(("got " + request.length).getBytes(UTF_8));
        });
        String answer = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            connection.writer().write(new byte[1000]);
            connection.writer().writeEof();
            String reply = new String(connection.reader().read(-1), UTF_8);
            connection.writer().close();
            return reply;
        }));
        assertEquals("got 1000", answer);
    }

    @Test
    void aClosedServerStopsServingAndRefusesConnections() throws Exception {
        Server server = serve((reader, writer) -> { });
        assertTrue(server.isServing());
        int port = server.port();
        server.close();
        assertFalse(server.isServing());
        IOException refused = assertThrows(IOException.class, () -> loop.runUntilComplete(Coroutine.of("client",
                () -> Streams.openConnection("127.0.0.1", port))));
        // Refused, or reset: the JDK closes a registered channel's socket only at the selector's
        // next select, and until then a half-closed stand-in resets connections.
        assertInstanceOf(SocketException.class, refused.getCause(), String.valueOf(refused));
    }

    @Test
    void aFailingHandlerIsReportedToTheExceptionHandlerAndItsConnectionClosed() throws Exception {
        List<ExceptionContext> reported = new ArrayList<>();
        loop.setExceptionHandler((l, context) -> reported.add(context));
        Server server = serve((reader, writer) -> {
            throw new IllegalStateException("handler broke");
        });
        byte[] read = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            byte[] rest = connection.reader().read(-1);
            connection.writer().close();
            return rest;
        }));
        assertEquals(0, read.length);
        assertEquals(1, reported.size(), String.valueOf(reported));
        assertEquals("handler broke", reported.get(0).exception().getMessage());
        assertTrue(reported.get(0).task().name().startsWith("conn /127.0.0.1:"), reported.get(0).describe());
    }
}
