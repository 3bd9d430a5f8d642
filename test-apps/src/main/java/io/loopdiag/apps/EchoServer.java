package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.net.Server;
import io.loopdiag.loop.net.StreamReader;
import io.loopdiag.loop.net.StreamWriter;
import io.loopdiag.loop.net.Streams;

/**
 * {@code echo-server [--port N]}: a well-behaved TCP echo server on 127.0.0.1, one task per
 * connection, serving until killed. It prints {@code echo-server listening on 127.0.0.1:PORT}
 * once it accepts connections.
 */
final class EchoServer {
    static final String NAME = "echo-server";
    static final String DESCRIPTION = "TCP echo server on 127.0.0.1 (--port N, 0 for any), one task per connection";
    private static final String HOST = "127.0.0.1";
    private static final int READ_CHUNK_BYTES = 64 * 1024;

    private EchoServer() {
    }

    static int main(String[] args) throws Exception {
        int port = Main.requirePortOnly(args, NAME);
        EventLoop.run(() -> {
            Server server = Streams.startServer(EchoServer::echo, HOST, port);
            System.out.println(NAME + " listening on " + HOST + ":" + server.port());
            System.out.flush();
            await(Async.loop().createFuture()); // serve until the process is killed
            return null;
        });
        return Main.EXIT_OK;
    }

    /** Sends back every byte read, respecting the writer's back-pressure, until the client's EOF; shared with {@link Healthy}. */
    static void echo(StreamReader reader, StreamWriter writer) throws Exception {
        byte[] chunk;
        while ((chunk = reader.read(READ_CHUNK_BYTES)).length > 0) {
            writer.write(chunk);
            writer.drain();
        }
    }
}
