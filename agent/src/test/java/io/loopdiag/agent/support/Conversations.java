package io.loopdiag.agent.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Many client connections to one server, all open at once, driven from the calling thread by one
 * selector (a thread each would compete with the server for the machine's cores). Each connection
 * follows its script: it sends a request, checks every byte of the answer as it arrives, sends the
 * next once the answer is complete, and after the last one shuts its output down and waits for the
 * server's close. After its first answer a connection waits until every connection has had its
 * first answer, so the server serves them all at the same time.
 */
public final class Conversations {
    /** One request and the exact answer it must get. */
    public record Exchange(byte[] request, byte[] answer) {
    }

    /**
     * What happened: how many connections had their first answer while all of them were open, how
     * many ended their script with the server's clean close, and the first failure (null if none).
     */
    public record Outcome(int servedAtOnce, int completed, String failure) {
    }

    /** A hang guard, not a measure: a healthy run takes a few seconds. */
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(90);

    private static final class Connection {
        final int id;
        final SocketChannel channel;
        final List<Exchange> script;
        int exchange; // the one in progress; script.size() once the output is shut down
        ByteBuffer sending;
        int answered; // bytes of the current answer received so far

        Connection(int id, SocketChannel channel, List<Exchange> script) {
            this.id = id;
            this.channel = channel;
            this.script = script;
        }
    }

    private final Selector selector;
    private final List<Connection> connections = new ArrayList<>();
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(64 * 1024);
    private final List<Connection> firstAnswered = new ArrayList<>(); // held until all have their first answer
    private int completed;
    private String failure;

    private Conversations() throws IOException {
        selector = Selector.open();
    }

    /** Opens one connection per script to 127.0.0.1:{@code port}, then plays every script to its end. */
    public static Outcome run(int port, List<List<Exchange>> scripts) throws IOException {
        Conversations run = new Conversations();
        try {
            InetSocketAddress server = new InetSocketAddress("127.0.0.1", port);
            for (List<Exchange> script : scripts) {
                SocketChannel channel = SocketChannel.open(server);
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                Connection connection = new Connection(run.connections.size(), channel, script);
                channel.register(run.selector, SelectionKey.OP_READ, connection);
                run.connections.add(connection);
            }
            run.play();
            return new Outcome(run.firstAnswered.size(), run.completed, run.failure);
        } finally {
            run.close();
        }
    }

    private void play() throws IOException {
        for (Connection connection : connections) {
            startExchange(connection);
        }
        long giveUpAt = System.nanoTime() + GIVE_UP_NANOS;
        while (failure == null && completed < connections.size()) {
            if (System.nanoTime() > giveUpAt) {
                failure = "gave up waiting: " + (connections.size() - completed) + " connections not done, first: " + firstUnfinished();
                return;
            }
            selector.select(this::onReady, 1_000);
        }
    }

    private void onReady(SelectionKey key) {
        Connection connection = (Connection) key.attachment();
        try {
            if (key.isValid() && key.isWritable()) {
                writeRest(connection, key);
            }
            if (key.isValid() && key.isReadable()) {
                read(connection);
            }
        } catch (IOException e) {
            fail(connection, e.toString());
        }
    }

    private void startExchange(Connection connection) throws IOException {
        if (connection.exchange == connection.script.size()) {
            connection.channel.shutdownOutput(); // the server closes in turn: read below sees -1
            return;
        }
        connection.sending = ByteBuffer.wrap(connection.script.get(connection.exchange).request());
        connection.answered = 0;
        writeRest(connection, connection.channel.keyFor(selector));
    }

    private void writeRest(Connection connection, SelectionKey key) throws IOException {
        connection.channel.write(connection.sending);
        key.interestOps(connection.sending.hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    private void read(Connection connection) throws IOException {
        readBuffer.clear();
        int read = connection.channel.read(readBuffer);
        if (read < 0) {
            if (connection.exchange == connection.script.size()) {
                completed++;
                connection.channel.close();
            } else {
                fail(connection, "the server closed the connection with " + connection.answered + " bytes of the answer");
            }
            return;
        }
        readBuffer.flip();
        while (readBuffer.hasRemaining()) {
            if (connection.exchange == connection.script.size()) {
                fail(connection, "bytes after the last answer");
                return;
            }
            byte[] answer = connection.script.get(connection.exchange).answer();
            byte got = readBuffer.get();
            if (got != answer[connection.answered]) {
                fail(connection, "byte " + connection.answered + " of the answer is " + got + ", expected " + answer[connection.answered]);
                return;
            }
            if (++connection.answered == answer.length) {
                if (readBuffer.hasRemaining()) {
                    fail(connection, "bytes beyond the answer before the next request was sent");
                    return;
                }
                connection.exchange++;
                if (connection.exchange == 1) {
                    holdUntilAllAnswered(connection);
                } else {
                    startExchange(connection);
                }
            }
        }
    }

    private void holdUntilAllAnswered(Connection connection) throws IOException {
        firstAnswered.add(connection);
        if (firstAnswered.size() == connections.size()) {
            for (Connection held : firstAnswered) {
                startExchange(held);
            }
        }
    }

    private void fail(Connection connection, String why) {
        if (failure == null) {
            failure = "connection " + connection.id + ", exchange " + connection.exchange + ": " + why;
        }
    }

    private String firstUnfinished() {
        for (Connection connection : connections) {
            if (connection.channel.isOpen()) {
                return "connection " + connection.id + " at exchange " + connection.exchange + " with "
                        + connection.answered + " bytes of its answer";
            }
        }
        return "none";
    }

    private void close() {
        for (Connection connection : connections) {
            try {
                connection.channel.close();
            } catch (IOException ignored) {
                // closing releases the descriptor anyway
            }
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
    }
}
