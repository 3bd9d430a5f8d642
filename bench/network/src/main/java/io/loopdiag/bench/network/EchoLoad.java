package io.loopdiag.bench.network;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.PriorityQueue;

/**
 * {@code echo-load}: a closed-loop echo client. Each of C connections sends a message, waits for
 * all of its bytes to come back, checks them, and sends the next; after the warm-up it counts
 * completed round trips and their times for the measured seconds, then prints three JSON lines:
 * throughput ({@code msg/s}) and the 50th and 99th percentile round trip ({@code us}).
 *
 * <p>Why one selector thread: the client shares the machine's two cores with the server. A
 * thread per connection would put a hundred runnable threads in competition with the server's
 * and spend the CPU on context switches; one thread multiplexing every connection uses at most
 * one core, costs one read and one write syscall per message (as the server does), and gets many
 * ready connections per {@code select}. The note says how many cores the client and the server
 * used, so a run where the client was the limit can be seen as such.
 */
final class EchoLoad {
    static final String[] OPTIONS = {"host", "port", "connections", "size", "seconds", "warmup", "rate",
        "subject", "variant", "server-pid", "server-stderr", "detector", "context"};
    private static final String WORKLOAD = "echo";
    /** The longest the selector waits, so that the phases end on time even if the server stops answering. */
    private static final long SELECT_TIMEOUT_MILLIS = 100;
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    /** At the end, how long the connections get to finish their last echo and close cleanly. */
    private static final long DRAIN_NANOS = 2_000_000_000L;

    private EchoLoad() {
    }

    static int run(Options options, PrintStream out, PrintStream err) throws IOException {
        String host = options.string("host", "127.0.0.1");
        int port = options.integer("port", null, 1, 65535);
        int connections = options.integer("connections", 100, 1, 10_000);
        int size = options.integer("size", 64, 12, 1 << 20);
        int seconds = options.integer("seconds", 10, 1, 3600);
        int warmup = options.integer("warmup", 3, 0, 3600);
        int rate = options.integer("rate", 0, 0, 10_000_000);
        String subject = options.string("subject", "unknown");
        String variant = options.string("variant", "default");
        String serverPid = options.string("server-pid", null);
        Path serverStderr = options.path("server-stderr");

        Map<String, Object> params = new LinkedHashMap<>();
        params.put("connections", connections);
        params.put("size", size);
        params.put("seconds", seconds);
        if (rate > 0) {
            params.put("rate", rate);
        }
        EchoLoad.Result result;
        String error = null;
        try {
            result = new Run(new InetSocketAddress(host, port), connections, size,
                    serverPid == null ? -1 : Long.parseLong(serverPid), rate).measure(warmup, seconds, err);
        } catch (IOException | NumberFormatException e) {
            result = null;
            error = "echo load failed: " + e.getMessage();
        }
        String note = result == null ? null : result.note(rate);
        String context = options.string("context", null);
        if (context != null) {
            note = (note == null ? "" : note + "; ") + context;
        }
        if (serverStderr != null) {
            Detections detections = Detections.read(serverStderr,
                    Detections.Tool.named(options.string("detector", "loopdiag")));
            params.put("detections", detections.count());
            String problem = detections.problem();
            if (problem != null) {
                note = (note == null ? "" : note + "; ") + problem;
                if (!detections.loaded() && error == null) {
                    error = problem;
                }
            }
        }
        if (error == null && result != null && result.messages() == 0) {
            error = "no echo completed in the measured " + seconds + " s";
        }
        for (Measurement line : lines(subject, variant, params, result, error, note)) {
            out.println(line.toJson());
        }
        out.flush();
        return error == null ? Main.EXIT_OK : Main.EXIT_FAILED;
    }

    private static List<Measurement> lines(String subject, String variant, Map<String, Object> params,
                                           Result result, String error, String note) {
        Map<String, Object> p50 = Measurement.with(params, "percentile", 50);
        Map<String, Object> p99 = Measurement.with(params, "percentile", 99);
        if (error != null) {
            return List.of(
                    Measurement.failed(WORKLOAD, subject, variant, "msg/s", error, params, note),
                    Measurement.failed(WORKLOAD, subject, variant, "us", error, p50, note),
                    Measurement.failed(WORKLOAD, subject, variant, "us", error, p99, note));
        }
        return List.of(
                Measurement.of(WORKLOAD, subject, variant, "msg/s", Math.round(result.messagesPerSecond()), params, note),
                Measurement.of(WORKLOAD, subject, variant, "us", result.latency().percentileNanos(50) / 1000, p50, note),
                Measurement.of(WORKLOAD, subject, variant, "us", result.latency().percentileNanos(99) / 1000, p99, note));
    }

    /** What one run measured: round trips completed in {@code elapsedNanos}, their times, and CPU use. */
    record Result(long messages, long elapsedNanos, LatencyHistogram latency, OptionalLong clientCpuNanos,
                  OptionalLong serverCpuNanos, OptionalLong machineBusyNanos) {
        double messagesPerSecond() {
            return messages * 1e9 / elapsedNanos;
        }

        /** Says how the load ran ({@code rate} 0: a closed loop) and the CPU each side used. */
        String note(int rate) {
            StringBuilder note = new StringBuilder(rate > 0 ? "paced at " + rate + " msg/s in all" : "closed loop")
                    .append(", one message in flight per connection; CPU over the measured time (2 cores shared by server and client):");
            serverCpuNanos.ifPresent(nanos -> note.append(String.format(" server %.2f cores,", nanos / (double) elapsedNanos)));
            clientCpuNanos.ifPresent(nanos -> note.append(String.format(" client %.2f cores,", nanos / (double) elapsedNanos)));
            if (machineBusyNanos.isPresent() && serverCpuNanos.isPresent() && clientCpuNanos.isPresent()) {
                long rest = machineBusyNanos.getAsLong() - serverCpuNanos.getAsLong() - clientCpuNanos.getAsLong();
                note.append(String.format(" rest of the machine %.2f cores,", Math.max(0, rest) / (double) elapsedNanos));
            }
            note.setLength(note.length() - 1);
            return note.toString();
        }
    }

    /** One connection's state: the message in flight, its echo so far, and when it was sent. */
    private static final class Connection {
        final SocketChannel channel;
        final int id;
        final ByteBuffer sent;
        final ByteBuffer received;
        long sequence;
        long sentAtNanos;
        long dueNanos; // paced: when its current or next message is due

        Connection(SocketChannel channel, int id, int size) {
            this.channel = channel;
            this.id = id;
            this.sent = ByteBuffer.allocateDirect(size);
            this.received = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < size; i++) {
                sent.put(i, (byte) ('a' + (i * 7 + id) % 26));
            }
        }

        /** The next message: its sequence number and connection id in front, so a misrouted or stale echo differs. */
        void prepareNext() {
            sequence++;
            sent.clear();
            sent.putLong(0, sequence).putInt(8, id);
            received.clear();
        }

        boolean echoMatches() {
            received.flip();
            sent.clear();
            return received.equals(sent);
        }
    }

    /**
     * One measurement on one selector thread (the calling one). Closed loop, or paced at a total
     * rate: then each connection sends its next message one interval (connections / rate) after
     * the previous one was due, or as soon as its echo is back if that is later.
     */
    static final class Run {
        private final Selector selector;
        private final List<Connection> connections = new ArrayList<>();
        private final LatencyHistogram latency = new LatencyHistogram();
        private final long serverPid;
        private final long intervalNanos; // 0: closed loop
        private final PriorityQueue<Connection> waiting = new PriorityQueue<>(Comparator.comparingLong(c -> c.dueNanos));
        private long completed;
        private boolean measuring;
        private boolean draining;
        private int open;

        /** Connects {@code count} connections; {@code rate} messages a second in all, or 0 for a closed loop. */
        Run(InetSocketAddress server, int count, int size, long serverPid, int rate) throws IOException {
            this.serverPid = serverPid;
            this.intervalNanos = rate > 0 ? count * 1_000_000_000L / rate : 0;
            this.selector = Selector.open();
            try {
                for (int id = 0; id < count; id++) {
                    SocketChannel channel = SocketChannel.open();
                    channel.socket().connect(server, CONNECT_TIMEOUT_MILLIS);
                    channel.configureBlocking(false);
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    Connection connection = new Connection(channel, id, size);
                    channel.register(selector, SelectionKey.OP_READ, connection);
                    connections.add(connection);
                }
            } catch (IOException e) {
                close();
                throw new IOException("connecting to " + server + ": " + e.getMessage(), e);
            }
        }

        Result measure(int warmupSeconds, int seconds, PrintStream err) throws IOException {
            try {
                long start = System.nanoTime();
                for (Connection connection : connections) {
                    if (intervalNanos > 0) { // spread over one interval rather than all at once
                        connection.dueNanos = start + intervalNanos * connection.id / connections.size();
                        waiting.add(connection);
                    } else {
                        send(connection, start);
                    }
                }
                if (warmupSeconds > 0) {
                    runUntil(start + warmupSeconds * 1_000_000_000L);
                }
                err.printf("echo-load: %d connections, warm-up %d s done, measuring %d s%n", connections.size(), warmupSeconds, seconds);
                latency.reset();
                completed = 0;
                measuring = true;
                OptionalLong clientCpuStart = ProcessCpu.self();
                OptionalLong serverCpuStart = serverPid > 0 ? ProcessCpu.of(serverPid) : OptionalLong.empty();
                OptionalLong machineStart = ProcessCpu.machineBusy();
                long measureStart = System.nanoTime();
                runUntil(measureStart + seconds * 1_000_000_000L);
                long elapsed = System.nanoTime() - measureStart;
                OptionalLong clientCpu = difference(clientCpuStart, ProcessCpu.self());
                OptionalLong serverCpu = serverPid > 0 ? difference(serverCpuStart, ProcessCpu.of(serverPid)) : OptionalLong.empty();
                OptionalLong machine = difference(machineStart, ProcessCpu.machineBusy());
                drain();
                return new Result(completed, elapsed, latency, clientCpu, serverCpu, machine);
            } finally {
                close();
            }
        }

        private static OptionalLong difference(OptionalLong before, OptionalLong after) {
            return before.isPresent() && after.isPresent()
                    ? OptionalLong.of(after.getAsLong() - before.getAsLong()) : OptionalLong.empty();
        }

        /**
         * Ends the run the way a well-behaved client does: each connection waits for its last
         * echo, shuts its output down and closes on the server's EOF, so that no server sees a
         * reset (loop-core's echo-server, for one, logs a reset as a failed connection).
         */
        private void drain() throws IOException {
            measuring = false;
            draining = true;
            open = connections.size();
            for (Connection idle : waiting) { // no message in flight: end it now
                idle.channel.shutdownOutput();
            }
            waiting.clear();
            runUntil(System.nanoTime() + DRAIN_NANOS);
        }

        private void runUntil(long deadlineNanos) throws IOException {
            long now;
            while ((now = System.nanoTime()) < deadlineNanos && !(draining && open == 0)) {
                long waitMillis = Math.min(SELECT_TIMEOUT_MILLIS, Math.max(1, (deadlineNanos - now) / 1_000_000));
                while (!draining && !waiting.isEmpty() && waiting.peek().dueNanos <= now) {
                    send(waiting.poll(), now);
                }
                if (!waiting.isEmpty()) {
                    waitMillis = Math.min(waitMillis, Math.max(1, (waiting.peek().dueNanos - now) / 1_000_000));
                }
                try {
                    selector.select(this::onReady, waitMillis);
                } catch (java.io.UncheckedIOException e) {
                    throw e.getCause(); // from onReady, which the selector's action cannot throw checked
                }
            }
        }

        private void onReady(SelectionKey key) {
            Connection connection = (Connection) key.attachment();
            try {
                if (key.isWritable()) {
                    writeRest(connection, key);
                }
                if (key.isReadable()) {
                    read(connection);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        private void read(Connection connection) throws IOException {
            int read = connection.channel.read(connection.received);
            if (read < 0) {
                if (!draining) {
                    throw new IOException("the server closed connection " + connection.id + " before echoing its message");
                }
                connection.channel.close();
                open--;
                return;
            }
            if (connection.received.hasRemaining()) {
                return; // part of the echo: wait for the rest
            }
            long now = System.nanoTime();
            if (!connection.echoMatches()) {
                throw new IOException("connection " + connection.id + " got back different bytes for message " + connection.sequence);
            }
            if (measuring) {
                latency.record(now - connection.sentAtNanos);
                completed++;
            }
            if (draining) {
                connection.channel.shutdownOutput(); // the server's EOF follows, read above
                return;
            }
            if (intervalNanos > 0) {
                connection.dueNanos += intervalNanos; // kept on schedule: a late echo does not lower the rate
                if (connection.dueNanos > now) {
                    waiting.add(connection);
                    return;
                }
            }
            send(connection, now);
        }

        private void send(Connection connection, long now) throws IOException {
            connection.prepareNext();
            connection.sentAtNanos = now;
            connection.channel.write(connection.sent);
            if (connection.sent.hasRemaining()) {
                SelectionKey key = connection.channel.keyFor(selector);
                key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            }
        }

        private void writeRest(Connection connection, SelectionKey key) throws IOException {
            connection.channel.write(connection.sent);
            if (!connection.sent.hasRemaining()) {
                key.interestOps(SelectionKey.OP_READ);
            }
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
}
