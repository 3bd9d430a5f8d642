package io.loopdiag.loop.net;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.Coroutine;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.ExceptionContext;
import io.loopdiag.loop.LoopClock;
import io.loopdiag.loop.LoopSnapshot;
import io.loopdiag.loop.Task;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TLS streams over real loopback sockets, against the JDK's own {@code SSLSocket} on platform
 * threads and against themselves. The JDK peers run with {@code com.sun.net.ssl.requireCloseNotify}
 * (the surefire configuration sets it), so a peer that reads EOF cleanly got close_notify.
 */
@Timeout(30)
class TlsStreamsTest {
    /** Loop iterations a test yields while waiting for something the loop is already doing. */
    private static final int MAX_YIELDS = 100_000;

    private final EventLoop loop = new EventLoop();
    /** Closed after each test; the peers' threads add the sockets they accept, so that closing them ends those threads. */
    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<ExceptionContext> reported = new ArrayList<>();

    TlsStreamsTest() {
        loop.setExceptionHandler((l, context) -> reported.add(context));
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        loop.close();
    }

    private Server serve(SSLContext tls, Streams.Handler handler) throws IOException {
        Server server = Streams.startServer(loop, handler, "127.0.0.1", 0, tls);
        resources.add(server);
        return server;
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] bytes = new byte[n];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** What a JDK peer does with its end of one connection, on a platform thread. */
    @FunctionalInterface
    private interface JdkSession {
        void run(SSLSocket socket) throws Exception;
    }

    /**
     * A JDK {@code SSLServerSocket} on {@code bindTo} serving one connection with {@code session} on
     * a platform thread; the future ends with the session, or with its failure.
     */
    private CompletableFuture<Void> jdkServer(SSLContext tls, InetAddress bindTo, JdkSession session, int[] port)
            throws IOException {
        SSLServerSocket listening = (SSLServerSocket) tls.getServerSocketFactory().createServerSocket(0, 1, bindTo);
        resources.add(listening);
        port[0] = listening.getLocalPort();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try (SSLSocket socket = accepted((SSLSocket) listening.accept())) {
                session.run(socket);
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }, "jdk-tls-server");
        threads.add(thread);
        thread.start();
        return done;
    }

    private <S extends Socket> S accepted(S socket) {
        resources.add(socket);
        return socket;
    }

    private static String readLine(BufferedReader in) throws IOException {
        String line = in.readLine();
        return line == null ? null : line + "\n";
    }

    // ---- against the JDK -------------------------------------------------------------------------

    @Test
    void aClientEchoesThroughAJdkServerAndItsCloseIsACleanEofThere() throws Exception {
        TestCertificates.Identity identity = TestCertificates.localhost();
        int[] port = new int[1];
        CompletableFuture<Void> served = jdkServer(identity.server(), InetAddress.getLoopbackAddress(), socket -> {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            byte[] chunk = new byte[8192];
            int read;
            while ((read = in.read(chunk)) > 0) { // -1 only after close_notify (requireCloseNotify)
                out.write(chunk, 0, read);
                out.flush();
            }
        }, port);
        byte[] large = randomBytes(300_000, 1);
        loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", port[0], identity.client());
            StreamWriter writer = connection.writer();
            assertEquals("TLSv1.3", writer.sslSession().getProtocol());
            assertEquals("CN=localhost", writer.sslSession().getPeerPrincipal().getName());
            writer.write("hello\n".getBytes(UTF_8));
            assertEquals("hello\n", connection.reader().readLineUtf8());
            writer.write(large);
            assertArrayEquals(large, connection.reader().readExactly(large.length));
            writer.close();
            writer.waitClosed();
            return null;
        }));
        served.get(); // the JDK server read EOF, without an SSLProtocolException
    }

    @Test
    void aServerAnswersAJdkClient() throws Exception {
        TestCertificates.Identity identity = TestCertificates.localhost();
        Server server = serve(identity.server(), EchoLines::handle);
        List<String> answers = loop.runUntilComplete(Coroutine.of("client", () -> Async.toThread(() -> {
            try (SSLSocket socket = (SSLSocket) identity.client().getSocketFactory().createSocket("127.0.0.1", server.port())) {
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), UTF_8));
                OutputStream out = socket.getOutputStream();
                List<String> lines = new ArrayList<>();
                for (String line : List.of("one\n", "two\n")) {
                    out.write(line.getBytes(UTF_8));
                    out.flush();
                    lines.add(readLine(in));
                }
                socket.shutdownOutput(); // close_notify: the handler reads EOF and returns
                lines.add(readLine(in)); // the server's close_notify: a clean EOF (requireCloseNotify)
                return lines;
            }
        })));
        assertEquals(Arrays.asList("one\n", "two\n", null), answers);
        assertEquals(List.of(), reported);
    }

    @Test
    void theClientSendsTheHostAsSniOnlyWhenItIsAName() throws Exception {
        TestCertificates.Identity identity = TestCertificates.localhost();
        InetAddress localhost = InetAddress.getByName("localhost"); // where the client's lookup will lead
        List<SNIServerName> requestedByName = new CopyOnWriteArrayList<>();
        List<SNIServerName> requestedByAddress = new CopyOnWriteArrayList<>();
        int[] byName = new int[1];
        CompletableFuture<Void> first = jdkServer(identity.server(), localhost, recordSni(requestedByName), byName);
        int[] byAddress = new int[1];
        CompletableFuture<Void> second = jdkServer(identity.server(), InetAddress.getLoopbackAddress(),
                recordSni(requestedByAddress), byAddress);
        loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.openConnection("localhost", byName[0], identity.client()).writer().close();
            Streams.openConnection("127.0.0.1", byAddress[0], identity.client()).writer().close();
            return null;
        }));
        first.get();
        second.get();
        assertEquals(List.of(new SNIHostName("localhost")), requestedByName);
        assertEquals(List.of(), requestedByAddress, "no SNI for an IP literal");
    }

    private static JdkSession recordSni(List<SNIServerName> requested) {
        return socket -> {
            socket.startHandshake();
            requested.addAll(((ExtendedSSLSession) socket.getSession()).getRequestedServerNames());
            socket.getInputStream().read(); // until the client closes
        };
    }

    @Test
    void aKeyUpdateFromTheJdkPeerMidStreamIsHandled() throws Exception {
        assertEquals(List.of("got a\n", "got b\n", "got c\n"), echoWithAHandshakeMidStream("TLSv1.3"));
    }

    @Test
    void aRenegotiationByTheJdkPeerIsAnsweredWhileTheClientOnlyReads() throws Exception {
        assertEquals(List.of("got a\n", "got b\n", "got c\n"), echoWithAHandshakeMidStream("TLSv1.2"));
    }

    /**
     * A JDK server on {@code protocol} that, before its first answers, calls {@code startHandshake()}:
     * in TLS 1.3 it sends a KeyUpdate asking for the client's; in TLS 1.2 it renegotiates, and the
     * client, which only reads while it waits for the answer, must answer from its read path.
     */
    private List<String> echoWithAHandshakeMidStream(String protocol) throws Exception {
        TestCertificates.Identity identity = TestCertificates.localhost();
        int[] port = new int[1];
        CompletableFuture<Void> served = jdkServer(identity.server(), InetAddress.getLoopbackAddress(), socket -> {
            socket.setEnabledProtocols(new String[] {protocol});
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), UTF_8));
            OutputStream out = socket.getOutputStream();
            for (int round = 0; round < 3; round++) {
                String line = readLine(in);
                if (round < 2) { // the client closes after the last round, and the JDK fails a renegotiation that a close_notify interrupts
                    socket.startHandshake();
                }
                out.write(("got " + line).getBytes(UTF_8));
                out.flush();
            }
            assertNull(in.readLine());
        }, port);
        List<String> answers = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", port[0], identity.client());
            assertEquals(protocol, connection.writer().sslSession().getProtocol());
            List<String> lines = new ArrayList<>();
            for (String line : List.of("a\n", "b\n", "c\n")) {
                connection.writer().write(line.getBytes(UTF_8));
                lines.add(connection.reader().readLineUtf8());
            }
            connection.writer().close();
            return lines;
        }));
        served.get();
        return answers;
    }

    @Test
    void aPeerClosingTcpWithoutCloseNotifyIsAnEofAsInAsyncio() throws Exception {
        TestCertificates.Identity identity = TestCertificates.localhost();
        ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        resources.add(listening);
        Thread thread = new Thread(() -> {
            try (Socket raw = accepted(listening.accept())) {
                SSLSocket socket = (SSLSocket) identity.server().getSocketFactory()
                        .createSocket(raw, null, raw.getPort(), false);
                socket.setUseClientMode(false);
                socket.getOutputStream().write("last words".getBytes(UTF_8));
                socket.getOutputStream().flush();
                // raw closes here, under the TLS session: no close_notify
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "jdk-tls-truncator");
        threads.add(thread);
        thread.start();
        String received = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", listening.getLocalPort(), identity.client());
            byte[] all = connection.reader().read(-1);
            assertTrue(connection.reader().atEof());
            connection.writer().close();
            return new String(all, UTF_8);
        }));
        assertEquals("last words", received);
    }

    // ---- loop to loop ------------------------------------------------------------------------------

    @Test
    void aClientAndAServerOfTheLoopTalkTlsWithTheStreamApi() throws Exception {
        TestCertificates.Identity identity = TestCertificates.localhost();
        CompletableFuture<String> serverSaw = new CompletableFuture<>();
        Server server = serve(identity.server(), (reader, writer) -> {
            serverSaw.complete(writer.sslSession().getProtocol());
            EchoLines.handle(reader, writer);
        });
        loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port(), identity.client());
            StreamWriter writer = connection.writer();
            assertFalse(writer.canWriteEof());
            assertThrows(UnsupportedOperationException.class, writer::writeEof);
            for (String line : List.of("one\n", "two\n", "three\n")) {
                writer.write(line.getBytes(UTF_8));
                assertEquals(line, connection.reader().readLineUtf8());
            }
            writer.close();
            writer.waitClosed();
            return null;
        }));
        assertEquals("TLSv1.3", serverSaw.get());
        assertEquals(List.of(), reported);
    }

    @Test
    void aPlainConnectionHasNoSslSessionAndCanWriteEof() throws Exception {
        Server server = Streams.startServer(loop, EchoLines::handle, "127.0.0.1", 0);
        resources.add(server);
        loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port());
            assertNull(connection.writer().sslSession());
            assertTrue(connection.writer().canWriteEof());
            connection.writer().close();
            return null;
        }));
    }

    @Test
    void megabytesEachWayGoThroughWithBackPressure() throws Exception {
        TestCertificates.Identity identity = TestCertificates.localhost();
        Server server = serve(identity.server(), (reader, writer) -> {
            byte[] chunk;
            while ((chunk = reader.read(100_000)).length > 0) {
                writer.write(chunk);
                writer.drain();
            }
        });
        byte[] sent = randomBytes(8 << 20, 2);
        byte[] echoed = loop.runUntilComplete(Coroutine.of("client", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port(), identity.client());
            StreamWriter writer = connection.writer();
            writer.write(sent);
            assertTrue(writer.bufferedBytes() > StreamWriter.HIGH_WATER_BYTES,
                    "the socket took " + (sent.length - writer.bufferedBytes()) + " bytes at once");
            Task<Void> sender = Async.createTask("drain", () -> {
                writer.drain();
                return null;
            });
            byte[] back = connection.reader().readExactly(sent.length);
            await(sender);
            writer.close();
            writer.waitClosed();
            return back;
        }));
        assertArrayEquals(sent, echoed);
    }

    // ---- failures ------------------------------------------------------------------------------------

    @Test
    void anUntrustedCertificateFailsTheClientNamingThePeerAndTheServerServesTheNext() throws Exception {
        TestCertificates.Identity identity = TestCertificates.localhost();
        Server server = serve(identity.server(), EchoLines::handle);
        SSLHandshakeException failed = assertThrows(SSLHandshakeException.class,
                () -> loop.runUntilComplete(Coroutine.of("untrusting", () -> Streams.openConnection("127.0.0.1",
                        server.port(), TestCertificates.elsewhere().client()))));
        assertTrue(failed.getMessage().startsWith("TLS handshake with /127.0.0.1:" + server.port() + " failed"),
                failed.getMessage());
        assertInstanceOf(SSLHandshakeException.class, failed.getCause(), "the JDK's own exception");

        String echoed = loop.runUntilComplete(Coroutine.of("trusting", () -> {
            Streams.Connection connection = Streams.openConnection("127.0.0.1", server.port(), identity.client());
            connection.writer().write("next\n".getBytes(UTF_8));
            String line = connection.reader().readLineUtf8();
            connection.writer().close();
            int yields = 0;
            while (loop.allTasks().size() > 1) { // the two connection tasks end
                assertTrue(++yields < MAX_YIELDS, "connection tasks left: " + loop.allTasks());
                sleep(Duration.ZERO);
            }
            return line;
        }));
        assertEquals("next\n", echoed);
        assertTrue(server.isServing());
        assertEquals(List.of(), reported, "a failed handshake is dropped, as asyncio drops an OSError there");
    }

    @Test
    void aCertificateForAnotherHostFailsHostNameVerification() throws Exception {
        TestCertificates.Identity elsewhere = TestCertificates.elsewhere();
        Server server = serve(elsewhere.server(), EchoLines::handle);
        SSLHandshakeException failed = assertThrows(SSLHandshakeException.class,
                () -> loop.runUntilComplete(Coroutine.of("client",
                        () -> Streams.openConnection("127.0.0.1", server.port(), elsewhere.client()))));
        Throwable cause = failed;
        while (cause != null && !(cause instanceof CertificateException)) {
            cause = cause.getCause();
        }
        assertNotNull(cause, "trusted, but not for 127.0.0.1: " + failed);
        assertTrue(cause.getMessage().contains("127.0.0.1"), cause.getMessage());
    }

    @Test
    void aPeerThatNeverAnswersTheHandshakeShowsInTheSnapshotAndTimesOut() throws Exception {
        ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        resources.add(silent);
        CountDownLatch clientHelloArrived = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            try (Socket socket = accepted(silent.accept())) {
                InputStream in = socket.getInputStream();
                in.read();
                clientHelloArrived.countDown();
                in.transferTo(OutputStream.nullOutputStream()); // until the client gives up and closes
            } catch (IOException ignored) {
                // the test fails on its own assertions
            }
        }, "silent-peer");
        threads.add(thread);
        thread.start();
        String peer = "/127.0.0.1:" + silent.getLocalPort();
        SSLContext tls = TestCertificates.localhost().client();
        LoopSnapshot.TaskSnapshot[] seen = new LoopSnapshot.TaskSnapshot[1];
        SocketTimeoutException timedOut = assertThrows(SocketTimeoutException.class,
                () -> loop.runUntilComplete(Coroutine.of("main", () -> {
                    Task<Streams.Connection> client = Async.createTask("client",
                            () -> Streams.openConnection("127.0.0.1", silent.getLocalPort(), tls, Duration.ofSeconds(1)));
                    Async.toThread(() -> {
                        clientHelloArrived.await();
                        return null;
                    });
                    // The client sent its hello and then suspended: this task runs only while it waits.
                    if (client.isDone()) {
                        await(client); // its early failure, rather than a snapshot without it
                    }
                    seen[0] = loop.snapshot(true).tasks().stream().filter(t -> t.name().equals("client"))
                            .findFirst().orElseThrow();
                    return await(client);
                })));
        LoopSnapshot.Awaiting awaiting = seen[0].awaiting();
        assertNotNull(awaiting, seen[0].toString());
        assertEquals("io", awaiting.kind());
        assertEquals("handshake", awaiting.io().direction());
        assertEquals(peer, awaiting.io().channel());
        assertEquals("handshake " + peer, awaiting.description());
        assertTrue(seen[0].stack().stream().anyMatch(frame -> frame.getMethodName().equals("openConnection")),
                "its suspension stack: " + seen[0].stack());
        assertTrue(timedOut.getMessage().startsWith("TLS handshake with " + peer + " took longer than 1000 ms"),
                timedOut.getMessage());
    }

    @Test
    void aServerClosesAConnectionWhoseHandshakeTimesOutAndReportsNothing() throws Exception {
        TestCertificates.Identity identity = TestCertificates.localhost();
        // Virtual time: once the loop has nothing to do but wait, the handshake's minute is up.
        EventLoop virtual = new EventLoop("virtual", LoopClock.virtual());
        virtual.setExceptionHandler((l, context) -> reported.add(context));
        Server server = Streams.startServer(virtual, (reader, writer) -> {
            throw new AssertionError("the handler runs only after a handshake");
        }, "127.0.0.1", 0, identity.server(), Streams.TLS_HANDSHAKE_TIMEOUT);
        resources.add(server);
        resources.add(virtual); // closed after the server
        int read = virtual.runUntilComplete(Coroutine.of("silent client", () -> {
            try (SocketChannel channel = SocketChannel.open()) {
                channel.configureBlocking(false);
                Sockets.connect(channel, new InetSocketAddress("127.0.0.1", server.port()));
                return Sockets.recv(channel, ByteBuffer.allocate(1)); // the server says nothing, then closes
            }
        }));
        assertEquals(-1, read);
        assertEquals(List.of(), reported);
    }
}
