package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.Future;
import io.loopdiag.loop.Task;
import java.io.IOException;
import java.net.BindException;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class UnixStreamsTest {
    private final EventLoop loop = new EventLoop();
    private final List<Server> servers = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        for (Server server : servers) {
            server.close();
        }
        loop.close();
    }

    private Server serve(Path path, Streams.Handler handler) throws IOException {
        Server server = Streams.startUnixServer(loop, handler, path);
        servers.add(server);
        return server;
    }

    private static boolean isSocketFile(Path path) throws IOException {
        return Files.exists(path) && Files.readAttributes(path, BasicFileAttributes.class).isOther();
    }

    @Test
    void aUnixConnectionCarriesLinesBothWays() throws Exception {
        Path socket = dir.resolve("echo.sock");
        serve(socket, EchoLines::handle);
        List<String> echoed = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openUnixConnection(socket);
            List<String> lines = new ArrayList<>();
            for (String line : List.of("one\n", "two\n", "three\n")) {
                connection.writer().write(line.getBytes(UTF_8));
                lines.add(connection.reader().readLineUtf8());
            }
            connection.writer().writeEof();
            assertEquals(0, connection.reader().read(-1).length, "the server closes after our EOF");
            connection.writer().close();
            return lines;
        }));
        assertEquals(List.of("one\n", "two\n", "three\n"), echoed);
    }

    @Test
    void bothEndsOfAUnixConnectionAreLabelledWithThePath() throws Exception {
        Path socket = dir.resolve("labels.sock");
        Future<String> serverSide = loop.createFuture();
        serve(socket, (reader, writer) -> {
            serverSide.setResult(Task.current().name() + " | " + writer.peer());
            reader.read(-1);
        });
        String clientPeer = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openUnixConnection(socket);
            await(serverSide);
            connection.writer().close();
            return connection.writer().peer();
        }));
        // A client's socket is unnamed: the accepted end is shown by the server's path, not "".
        assertEquals("conn " + socket + " | " + socket, serverSide.result());
        assertEquals(socket.toString(), clientPeer);
    }

    @Test
    void aUnixServerHasAPathAndNoPortAndATcpServerTheOtherWayRound() throws Exception {
        Path socket = dir.resolve("addr.sock");
        Server unix = serve(socket, (reader, writer) -> { });
        assertEquals(socket, unix.path());
        assertEquals(UnixDomainSocketAddress.of(socket), unix.address());
        assertThrows(IllegalStateException.class, unix::port);

        Server tcp = Streams.startServer(loop, (reader, writer) -> { }, "127.0.0.1", 0);
        servers.add(tcp);
        assertTrue(tcp.port() > 0, String.valueOf(tcp.port()));
        assertThrows(IllegalStateException.class, tcp::path);
    }

    @Test
    void closingAUnixServerDeletesItsSocketFile() throws Exception {
        Path socket = dir.resolve("gone.sock");
        Server server = serve(socket, (reader, writer) -> { });
        assertTrue(isSocketFile(socket), "the bind creates the socket file");
        server.close();
        assertFalse(server.isServing());
        assertFalse(Files.exists(socket), "close leaves the socket file behind");
        server.close(); // idempotent, with the file already gone
    }

    @Test
    void closeLeavesAFileThatTookTheSocketFilesPlaceAlone() throws Exception {
        Path socket = dir.resolve("taken.sock");
        Server server = serve(socket, (reader, writer) -> { });
        Files.delete(socket);
        Files.writeString(socket, "someone else's");
        server.close();
        assertEquals("someone else's", Files.readString(socket));
    }

    @Test
    void aStaleSocketFileIsReplacedButAnOrdinaryFileIsNot() throws Exception {
        Path stale = dir.resolve("stale.sock");
        try (ServerSocketChannel crashed = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            crashed.bind(UnixDomainSocketAddress.of(stale)); // closing it leaves the file, like a crash
        }
        assertTrue(isSocketFile(stale));
        serve(stale, EchoLines::handle);
        String echoed = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openUnixConnection(stale);
            connection.writer().write("hi\n".getBytes(UTF_8));
            String line = connection.reader().readLineUtf8();
            connection.writer().close();
            return line;
        }));
        assertEquals("hi\n", echoed);

        Path ordinary = dir.resolve("ordinary");
        Files.writeString(ordinary, "data");
        IOException refused = assertThrows(IOException.class, () -> serve(ordinary, (reader, writer) -> { }));
        assertInstanceOf(BindException.class, refused, String.valueOf(refused));
        assertEquals("data", Files.readString(ordinary));
    }

    @Test
    void openUnixConnectionToAMissingPathFailsWithAnIoExceptionNamingThePath() throws Exception {
        Path missing = dir.resolve("nobody-listens.sock");
        IOException failure = assertThrows(IOException.class, () -> loop.runUntilComplete(Coroutine.of("client",
                () -> Streams.openUnixConnection(missing))));
        assertTrue(failure.getMessage().startsWith("connect to " + missing + " failed: "), failure.getMessage());
        assertInstanceOf(SocketException.class, failure.getCause(), "the JDK's own failure, kept as the cause");
    }
}
