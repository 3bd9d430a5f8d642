package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;
import static java.nio.charset.StandardCharsets.US_ASCII;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.net.Server;
import io.loopdiag.loop.net.StreamReader;
import io.loopdiag.loop.net.StreamWriter;
import io.loopdiag.loop.net.Streams;
import java.io.IOException;

/**
 * {@code http-server [--port N]}: the plaintext "hello" of HTTP benchmarks on 127.0.0.1, one task
 * per connection like {@link EchoServer}, serving until killed. It prints
 * {@code http-server listening on 127.0.0.1:PORT} once it accepts connections.
 *
 * <p>Every request, whatever its method and path, is answered with {@link #RESPONSE}. A request
 * ends at its empty line ({@code \r\n\r\n}), plus the body its {@code Content-Length} announces;
 * requests may come pipelined several per read or split across reads, and the answers to all the
 * requests completed by one read go out in one write. {@code Connection: close} closes the
 * connection after its answer; a chunked body or an oversized header cannot be framed by
 * {@link HttpRequestFramer}, so such a request gets a 501 or 431 answer and the connection closes.
 */
final class HttpServer {
    static final String NAME = "http-server";
    static final String DESCRIPTION = "HTTP/1.1 hello on 127.0.0.1 (--port N, 0 for any), keep-alive, pipelining, one task per connection";
    private static final String HOST = "127.0.0.1";
    private static final int READ_CHUNK_BYTES = 64 * 1024;

    /** The one answer, byte for byte (the same as the Netty, asyncio and Node peers of the benchmark). */
    static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\n"
            + "Content-Type: text/plain\r\n"
            + "Content-Length: 13\r\n"
            + "Connection: keep-alive\r\n"
            + "\r\n"
            + "Hello, World!").getBytes(US_ASCII);
    /** The last answer on a connection whose request could not be framed. */
    private static final byte[] HEADER_TOO_LARGE = ("HTTP/1.1 431 Request Header Fields Too Large\r\n"
            + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(US_ASCII);
    private static final byte[] NOT_IMPLEMENTED = ("HTTP/1.1 501 Not Implemented\r\n"
            + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(US_ASCII);

    private HttpServer() {
    }

    static int main(String[] args) throws Exception {
        int port = Main.requirePortOnly(args, NAME);
        EventLoop.run(() -> {
            Server server = Streams.startServer(HttpServer::serve, HOST, port);
            System.out.println(NAME + " listening on " + HOST + ":" + server.port());
            System.out.flush();
            await(Async.loop().createFuture()); // serve until the process is killed
            return null;
        });
        return Main.EXIT_OK;
    }

    /**
     * One connection: answers every complete request of each read in one write, until EOF or a
     * close. A connection the client resets (as wrk does with requests in flight when it stops)
     * ends quietly, as in any HTTP server: it is no failure of the server's.
     */
    static void serve(StreamReader reader, StreamWriter writer) throws Exception {
        try {
            answer(reader, writer);
        } catch (IOException connectionLost) {
            // the reader or writer already closed the socket; Server closes the writer again, harmlessly
        }
    }

    private static void answer(StreamReader reader, StreamWriter writer) throws Exception {
        HttpRequestFramer requests = new HttpRequestFramer();
        byte[] answers = new byte[RESPONSE.length * 16]; // grown for deeper pipelines, reused across reads
        byte[] chunk;
        while ((chunk = reader.read(READ_CHUNK_BYTES)).length > 0) {
            int complete = requests.scan(chunk);
            if (complete > 0) {
                int length = complete * RESPONSE.length;
                if (answers.length < length) {
                    answers = new byte[length];
                }
                for (int i = 0; i < complete; i++) {
                    System.arraycopy(RESPONSE, 0, answers, i * RESPONSE.length, RESPONSE.length);
                }
                writer.write(answers, 0, length);
            }
            switch (requests.verdict()) {
                case KEEP_ALIVE -> writer.drain();
                case CLOSE -> {
                    return; // the connection's task ends: Server closes the writer once the answers are sent
                }
                case HEADER_TOO_LARGE -> {
                    writer.write(HEADER_TOO_LARGE);
                    return;
                }
                case UNFRAMEABLE -> {
                    writer.write(NOT_IMPLEMENTED);
                    return;
                }
            }
        }
    }
}
