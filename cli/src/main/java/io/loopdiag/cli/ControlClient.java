package io.loopdiag.cli;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.protocol.Control;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Text;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * The CLI's end of the agent's control socket (the agent's is {@code ControlServer}): finds the
 * socket through the attach mechanism, sends one command line, reads one JSON answer as it
 * arrives. Every way a request can fail (no agent, a silent or dying JVM, broken JSON, an agent's
 * refusal) is a {@link Failure} with one line.
 */
final class ControlClient {
    /** A dump is at most this big; a larger answer is not a loopdiag agent's. */
    private static final long MAX_ANSWER_BYTES = 2L << 30;

    final Jvm jvm;

    ControlClient(Jvm jvm) {
        this.jvm = jvm;
    }

    /** Reads an agent's answer, JSON in UTF-8, to its end. */
    @FunctionalInterface
    interface AnswerReader<T> {
        T read(InputStream answer) throws IOException, Failure;
    }

    /** Sends {@code command} and returns the agent's JSON answer as a tree (for small answers: info). */
    JsonNode request(String command) throws Failure {
        JsonNode answer = request(command, bytes -> {
            try (JsonParser parser = Json.mapper().createParser(bytes)) {
                JsonNode tree = parser.readValueAsTree();
                if (parser.nextToken() != null) {
                    throw new JsonParseException(parser, "content after the answer");
                }
                return tree;
            }
        });
        if (answer == null || !answer.isObject()) {
            throw new Failure("the agent in JVM " + jvm.pid + " answered nothing");
        }
        if (answer.has(Fields.ERROR)) {
            throw agentError(answer.path(Fields.ERROR).asText());
        }
        return answer;
    }

    /**
     * Sends {@code command} and gives {@code reader} the answer as it arrives, to be read to its
     * end. An answer cut short (the JVM died, the agent broke off) makes the reader's parser fail;
     * that and every other way the request can fail is a {@link Failure}.
     */
    <T> T request(String command, AnswerReader<T> reader) throws Failure {
        AnswerStream answer = null;
        try (SocketChannel channel = connect()) {
            channel.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.UTF_8)));
            answer = new AnswerStream(channel);
            return reader.read(answer);
        } catch (IOException e) {
            if (answer != null && answer.silent) {
                throw Attach.silent(jvm);
            }
            if (e instanceof JsonProcessingException broken && !jvm.hasExited()) {
                throw new Failure("the agent in JVM " + jvm.pid + " answered with broken JSON ("
                        + Text.printable(broken.getOriginalMessage()) + ")");
            }
            throw Attach.lost(jvm, e);
        } finally {
            if (answer != null) {
                answer.done = true;
            }
        }
    }

    /**
     * A connection to the agent's control socket. Where the agent put it where this CLI would
     * ({@code TMPDIR/loopdiag-USER/PID.sock}, in a folder of this user's alone), straight to it;
     * else (the JVM's temporary folder or user is not the CLI's, or its socket is gone) at the path
     * the JVM publishes, read through the attach mechanism, which costs a request 0.1 s, and the
     * first to a JVM 0.3 s (docs/decisions.md).
     */
    private SocketChannel connect() throws Failure, IOException {
        SocketChannel direct = direct(jvm.pid);
        if (direct != null) {
            return direct;
        }
        String socket = Attach.controlSocket(jvm);
        if (socket == null) {
            throw new Failure("JVM " + jvm.pid + " runs without the loopdiag agent: start it with -javaagent:"
                    + Jars.agentHint() + ", or load it now with 'loopdiag attach " + jvm.pid + "'");
        }
        return open(Path.of(socket));
    }

    /**
     * A connection to {@code PID.sock} in this user's own control folder, or null: no such socket,
     * a folder that is not this user's alone (so no other user can have put a socket there), or
     * nothing listening (a socket left by a JVM killed with SIGKILL). What listens there is the
     * agent of the live process {@code pid}: an agent removes a socket of its pid before it binds
     * its own, and binds none of another name.
     */
    private static SocketChannel direct(long pid) {
        Path folder = Path.of(System.getProperty("java.io.tmpdir"), Control.DIRECTORY_PREFIX + System.getProperty("user.name"));
        Path socket = folder.resolve(pid + ".sock");
        try {
            if (!Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY)
                    || !Files.getOwner(folder, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"))
                    || !Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) {
                return null;
            }
            return open(socket);
        } catch (IOException | RuntimeException notThere) {
            return null;
        }
    }

    private static SocketChannel open(Path socket) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    /** The agent's answer {@code {"error": ...}} as a failure. */
    Failure agentError(String message) {
        return new Failure("the agent in JVM " + jvm.pid + " answered " + Text.printable(message));
    }

    /**
     * The agent's answer as it arrives. Past {@link #MAX_ANSWER_BYTES} it fails, so a hostile or
     * broken peer cannot exhaust the CLI's memory; a read that waits {@link Attach#SILENCE_LIMIT}
     * for a byte is ended by a watching daemon thread, which closes the connection (time the CLI
     * spends writing, to a paused pager say, is not the target's silence).
     */
    private static final class AnswerStream extends FilterInputStream {
        private static final long NOT_READING = Long.MIN_VALUE;
        private final SocketChannel channel;
        private long left = MAX_ANSWER_BYTES;
        private volatile long readingSince = NOT_READING;
        volatile boolean done;
        volatile boolean silent;

        AnswerStream(SocketChannel channel) {
            super(Channels.newInputStream(channel));
            this.channel = channel;
            Thread watching = new Thread(this::closeWhenSilent, "loopdiag-silence");
            watching.setDaemon(true);
            watching.start();
        }

        private void closeWhenSilent() {
            long limit = Attach.SILENCE_LIMIT.toNanos();
            while (!done) {
                long since = readingSince;
                long waited = since == NOT_READING ? 0 : System.nanoTime() - since;
                if (waited >= limit) {
                    silent = true;
                    try {
                        channel.close();
                    } catch (IOException ignored) {
                        // Closing is all there is to do.
                    }
                    return;
                }
                LockSupport.parkNanos(Math.min(limit - waited, 100_000_000L));
            }
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (left <= 0) {
                throw new IOException("the answer is larger than " + MAX_ANSWER_BYTES + " bytes");
            }
            readingSince = System.nanoTime();
            try {
                int n = super.read(buffer, offset, (int) Math.min(length, left));
                if (n > 0) {
                    left -= n;
                }
                return n;
            } finally {
                readingSince = NOT_READING;
            }
        }
    }
}
