package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
        if (process.isEmpty() || !process.get().isAlive()) {
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

    /** The target's system properties, through the attach mechanism. */
    Properties systemProperties() throws Failure {
        VirtualMachine vm = attach();
        try {
            return vm.getSystemProperties();
        } catch (IOException e) {
            throw lost(e);
        } finally {
            detach(vm);
        }
    }

    VirtualMachine attach() throws Failure {
        try {
            return VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException | IOException e) {
            if (!isAlive()) {
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

    /** Sends {@code command} to the agent and returns its JSON answer. */
    JsonNode request(String command) throws Failure {
        try {
            return new ObjectMapper().readTree(requestBytes(command));
        } catch (IOException e) {
            throw new Failure("the agent in JVM " + pid + " answered with broken JSON (" + e.getMessage() + ")", ExitCodes.FINDINGS_OR_FAILURE);
        }
    }

    /**
     * Sends {@code command} to the agent and returns its answer as it came (JSON), for a caller
     * that passes it on without building a tree; an answer that is an error is a {@link Failure}.
     */
    byte[] requestBytes(String command) throws Failure {
        String socket = systemProperties().getProperty(CONTROL_PROPERTY);
        if (socket == null) {
            throw new Failure("JVM " + pid + " runs without the loopdiag agent: start it with -javaagent:"
                    + Paths.agentJar() + ", or load it now with 'loopdiag attach " + pid + "'", ExitCodes.FINDINGS_OR_FAILURE);
        }
        byte[] answer;
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(java.nio.ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.UTF_8)));
            answer = new BoundedInputStream(Channels.newInputStream(channel), MAX_ANSWER_BYTES).readAllBytes();
        } catch (IOException e) {
            throw lost(e);
        }
        String error = errorIn(answer);
        if (error != null) {
            throw new Failure("the agent in JVM " + pid + " answered " + error, ExitCodes.FINDINGS_OR_FAILURE);
        }
        return answer;
    }

    /** The agent's error message if {@code answer} is one (its first field is {@code error}), "nothing" if empty, else null. */
    private static String errorIn(byte[] answer) {
        try (com.fasterxml.jackson.core.JsonParser parser = new ObjectMapper().getFactory().createParser(answer)) {
            if (parser.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                return "nothing";
            }
            if (parser.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME && parser.currentName().equals("error")) {
                parser.nextToken();
                return parser.getValueAsString();
            }
            return null;
        } catch (IOException e) {
            return "nothing readable";
        }
    }

    private Failure lost(IOException e) {
        if (!isAlive()) {
            return new Failure("JVM " + pid + " exited during the request", ExitCodes.FINDINGS_OR_FAILURE);
        }
        return new Failure("cannot talk to the agent in JVM " + pid + " (" + e.getMessage() + ")", ExitCodes.FINDINGS_OR_FAILURE);
    }

    private boolean isAlive() {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Stops reading past a limit, so a hostile or broken peer cannot exhaust the CLI's memory. */
    private static final class BoundedInputStream extends java.io.FilterInputStream {
        private long left;

        BoundedInputStream(InputStream in, long limit) {
            super(in);
            this.left = limit;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                throw new IOException("the answer is larger than " + MAX_ANSWER_BYTES + " bytes");
            }
            int c = super.read();
            if (c >= 0) {
                left--;
            }
            return c;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (left <= 0) {
                throw new IOException("the answer is larger than " + MAX_ANSWER_BYTES + " bytes");
            }
            int n = super.read(buffer, offset, (int) Math.min(length, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }
    }
}
