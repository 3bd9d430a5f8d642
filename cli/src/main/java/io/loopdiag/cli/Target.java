package io.loopdiag.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * A JVM the CLI looks into, by process id. The JDK's attach mechanism (same OS user only) tells
 * whether it runs the loopdiag agent and where the agent's control socket is; requests then go
 * over that Unix domain socket. Every way this can fail is a {@link Failure} with one line a user
 * can act on.
 */
final class Target {
    /** The system property in which the agent publishes its control socket's path. */
    static final String CONTROL_PROPERTY = "loopdiag.control";
    /**
     * How long a target may stay silent (no answer to the attach, no byte of a dump) before the
     * CLI gives up on it: a stopped or starved JVM must not hang the CLI, nor {@code list} for all.
     * The system property {@code loopdiag.silenceMillis} changes it (tests).
     */
    static final java.time.Duration SILENCE_LIMIT = java.time.Duration.ofMillis(Long.getLong("loopdiag.silenceMillis", 10_000));
    /** A dump is at most this big; a larger answer is not a loopdiag agent's. */
    private static final long MAX_ANSWER_BYTES = 2L << 30;

    /** Why a target cannot be reached, with the exit code it means. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final int exitCode;

        Failure(String message, int exitCode) {
            super(message);
            this.exitCode = exitCode;
        }
    }

    final long pid;

    private Target(long pid) {
        this.pid = pid;
    }

    /** Checks that {@code pid} names a running JVM of this user; does not attach yet. */
    static Target of(long pid) throws Failure {
        if (pid <= 0) {
            throw new Failure("'" + pid + "' is not a process id (a positive number)", ExitCodes.USAGE);
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty() || !isAlive(pid)) {
            throw new Failure("no process with id " + pid, ExitCodes.FINDINGS_OR_FAILURE);
        }
        String me = ProcessHandle.current().info().user().orElse(null);
        String owner = process.get().info().user().orElse(null);
        if (owner == null || (me != null && !me.equals(owner) && !me.equals("root"))) {
            throw new Failure("process " + pid + " belongs to " + (owner != null ? "user '" + owner + "'" : "another user")
                    + "; loopdiag reaches only JVMs of its own user (the JDK's attach mechanism admits no other)",
                    ExitCodes.FINDINGS_OR_FAILURE);
        }
        if (!isJvm(pid)) {
            if (!isAlive(pid)) {
                throw new Failure("process " + pid + " exited", ExitCodes.FINDINGS_OR_FAILURE);
            }
            throw new Failure("process " + pid + " is not a Java virtual machine", ExitCodes.FINDINGS_OR_FAILURE);
        }
        return new Target(pid);
    }

    /** Listed by the attach mechanism, or (for a JVM run with -XX:-UsePerfData) mapping libjvm. */
    private static boolean isJvm(long pid) {
        String id = Long.toString(pid);
        for (VirtualMachineDescriptor jvm : VirtualMachine.list()) {
            if (jvm.id().equals(id)) {
                return true;
            }
        }
        try {
            return Files.readString(Path.of("/proc", id, "maps")).contains("/libjvm.");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The target's system properties, through the attach mechanism; a JVM that does not answer
     * within {@link #SILENCE_LIMIT} (stopped, or starved) is given up on.
     */
    Properties systemProperties() throws Failure {
        java.util.concurrent.CompletableFuture<Properties> answer = new java.util.concurrent.CompletableFuture<>();
        Thread asking = new Thread(() -> {
            try {
                VirtualMachine vm = attach();
                try {
                    answer.complete(vm.getSystemProperties());
                } finally {
                    detach(vm);
                }
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        }, "loopdiag-attach");
        asking.setDaemon(true); // if the JVM never answers, nothing waits for this thread
        asking.start();
        try {
            return answer.get(SILENCE_LIMIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw silent();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Failure failure) {
                throw failure;
            }
            throw e.getCause() instanceof IOException io ? lost(io) : new Failure("cannot attach to JVM " + pid + " ("
                    + Views.printable(String.valueOf(e.getCause())) + ")", ExitCodes.FINDINGS_OR_FAILURE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted", ExitCodes.FINDINGS_OR_FAILURE);
        }
    }

    VirtualMachine attach() throws Failure {
        try {
            return VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException | IOException e) {
            if (hasExited()) {
                throw new Failure("JVM " + pid + " exited", ExitCodes.FINDINGS_OR_FAILURE);
            }
            throw new Failure("cannot attach to JVM " + pid + " (" + e.getMessage() + ")", ExitCodes.FINDINGS_OR_FAILURE);
        }
    }

    static void detach(VirtualMachine vm) {
        try {
            vm.detach();
        } catch (IOException ignored) {
            // Detaching only closes our end.
        }
    }

    /** Sends {@code command} to the agent and returns its JSON answer as a tree (for small answers: info). */
    JsonNode request(String command) throws Failure {
        JsonNode answer = request(command, bytes -> {
            try (JsonParser parser = Json.mapper().createParser(bytes)) {
                JsonNode tree = parser.readValueAsTree();
                if (parser.nextToken() != null) {
                    throw new com.fasterxml.jackson.core.JsonParseException(parser, "content after the answer");
                }
                return tree;
            }
        });
        if (answer == null || !answer.isObject()) {
            throw new Failure("the agent in JVM " + pid + " answered nothing", ExitCodes.FINDINGS_OR_FAILURE);
        }
        if (answer.has("error")) {
            throw agentError(answer.path("error").asText());
        }
        return answer;
    }

    /**
     * Sends {@code command} to the agent and gives {@code reader} its answer as it arrives (JSON
     * text), to be read to its end. An answer cut short (the JVM died, the agent broke off) makes
     * the reader's parser fail; that and every other way the request can fail is a {@link Failure}.
     */
    <T> T request(String command, AnswerReader<T> reader) throws Failure {
        String socket = systemProperties().getProperty(CONTROL_PROPERTY);
        if (socket == null) {
            throw new Failure("JVM " + pid + " runs without the loopdiag agent: start it with -javaagent:"
                    + Paths.agentJar() + ", or load it now with 'loopdiag attach " + pid + "'", ExitCodes.FINDINGS_OR_FAILURE);
        }
        AnswerStream answer = null;
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(java.nio.ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.UTF_8)));
            answer = new AnswerStream(channel);
            return reader.read(answer);
        } catch (IOException e) {
            if (answer != null && answer.silent) {
                throw silent();
            }
            if (e instanceof com.fasterxml.jackson.core.JsonProcessingException broken && !hasExited()) {
                throw new Failure("the agent in JVM " + pid + " answered with broken JSON ("
                        + Views.printable(broken.getOriginalMessage()) + ")", ExitCodes.FINDINGS_OR_FAILURE);
            }
            throw lost(e);
        } finally {
            if (answer != null) {
                answer.done = true;
            }
        }
    }

    /** Reads an agent's answer, JSON in UTF-8, to its end. */
    @FunctionalInterface
    interface AnswerReader<T> {
        T read(InputStream answer) throws IOException, Failure;
    }

    /** The agent's answer {@code {"error": ...}} as a failure. */
    Failure agentError(String message) {
        return new Failure("the agent in JVM " + pid + " answered " + Views.printable(message), ExitCodes.FINDINGS_OR_FAILURE);
    }

    private Failure silent() {
        return new Failure("JVM " + pid + " did not answer for " + SILENCE_LIMIT.toSeconds()
                + " s (stopped, or starved of CPU); gave up on it", ExitCodes.FINDINGS_OR_FAILURE);
    }

    private Failure exitedDuringRequest() {
        return new Failure("JVM " + pid + " exited during the request", ExitCodes.FINDINGS_OR_FAILURE);
    }

    private Failure lost(IOException e) {
        if (hasExited()) {
            return exitedDuringRequest();
        }
        return new Failure("cannot talk to the agent in JVM " + pid + " (" + e.getMessage() + ")", ExitCodes.FINDINGS_OR_FAILURE);
    }

    /**
     * Whether the target has exited, or does within a second: a JVM killed with SIGKILL closes its
     * sockets a moment before it is gone, so a broken connection is checked against its end.
     */
    private boolean hasExited() {
        for (int check = 0; check < 100; check++) {
            if (!isAlive(pid)) {
                return true;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** Running: not gone, and not a zombie that its parent has yet to reap (which ProcessHandle counts as alive). */
    private static boolean isAlive(long pid) {
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException noProc) {
            return true; // no /proc to ask (not Linux): ProcessHandle's answer stands
        }
    }

    /**
     * The agent's answer as it arrives. Past {@link #MAX_ANSWER_BYTES} it fails, so a hostile or
     * broken peer cannot exhaust the CLI's memory; a read that waits {@link #SILENCE_LIMIT} for a
     * byte is ended by a watching daemon thread, which closes the connection (time the CLI spends
     * writing, to a paused pager say, is not the target's silence).
     */
    private static final class AnswerStream extends java.io.FilterInputStream {
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
            long limit = SILENCE_LIMIT.toNanos();
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
                java.util.concurrent.locks.LockSupport.parkNanos(Math.min(limit - waited, 100_000_000L));
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
