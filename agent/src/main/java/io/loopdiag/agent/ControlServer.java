package io.loopdiag.agent;

import com.fasterxml.jackson.core.JsonGenerator;
import io.loopdiag.protocol.Control;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How {@code loopdiag ps|pstree|dump|list} reach the agent: a Unix domain socket, not a TCP
 * port, in a directory only this OS user can enter ({@code TMPDIR/loopdiag-USER}, mode
 * {@code rwx------}, refused if another user owns it or it is open to others). Its path is the
 * system property {@value Control#PROPERTY}, which the CLI reads through the JDK's attach mechanism, itself
 * open only to the same user. Each connection sends one command line and gets one line, a JSON document:
 * {@value Control#DUMP} (every loop with its tasks' stacks) or {@value Control#INFO} (loops and task
 * counts only); anything else gets {@code {"error": ...}}. The CLI's {@code ControlClient} is the other end.
 *
 * <p>Served by a daemon platform thread of the agent's own, so a dump works while every loop is
 * stuck, and it never stops a loop. Why not JMX or a dynamically loaded agent: docs/decisions.md.
 */
final class ControlServer implements Runnable {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");
    private static final Pattern PID_SOCKET = Pattern.compile("[0-9]{1,18}\\.sock");
    /** A younger socket may be a starting JVM's, bound but not listening yet: it refuses too. */
    private static final long STALE_AFTER_MILLIS = 60_000;

    private final ServerSocketChannel server;
    private final Path socket;
    private final Findings findings;
    /** The agent's jar and what it was when the JVM had opened it (null where unknown): see {@link #jarChanged}. */
    private final Path jar;
    private final BasicFileAttributes jarAsOpened;

    private ControlServer(ServerSocketChannel server, Path socket, Findings findings) {
        this.server = server;
        this.socket = socket;
        this.findings = findings;
        this.jar = agentJar();
        this.jarAsOpened = jar == null ? null : attributes(jar);
        // Loaded now: saying why a request failed must not need a class from the jar.
        Text.printable("");
        new Answer(OutputStream.nullOutputStream());
    }

    /** Starts serving, or says why it cannot (dumps are then unavailable; detection goes on). */
    static void start(Findings findings) {
        try {
            Path directory = privateDirectory();
            Path socket = directory.resolve(ProcessHandle.current().pid() + ".sock");
            Files.deleteIfExists(socket); // left by a killed JVM that had this pid
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
            // bind creates the file with the process's umask (srwxrwxrwx under umask 000).
            Files.setPosixFilePermissions(socket, OWNER_READ_WRITE);
            ControlServer control = new ControlServer(server, socket, findings);
            Thread thread = new Thread(control, "loopdiag-control");
            thread.setDaemon(true);
            thread.start();
            System.setProperty(Control.PROPERTY, socket.toString());
        } catch (IOException | RuntimeException e) {
            System.err.println("loopdiag: dumps are not available (" + e.getMessage() + "); detection goes on");
        }
    }

    /** {@code TMPDIR/loopdiag-USER}, created {@code rwx------}; refused if anyone else could use it. */
    private static Path privateDirectory() throws IOException {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        Path directory = Path.of(System.getProperty("java.io.tmpdir"), Control.DIRECTORY_PREFIX + user);
        if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // Another JVM of this user made it meanwhile; checked below like any other.
            }
        }
        UserPrincipal me = directory.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(System.getProperty("user.name"));
        if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)
                || !Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS).equals(me)
                || !Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY)) {
            throw new IOException(directory + " is not a directory of this user's alone (rwx------)");
        }
        return directory;
    }

    @Override
    public void run() {
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "loopdiag-control-close"));
        removeStaleSockets();
        while (server.isOpen()) {
            try (SocketChannel client = server.accept()) {
                serve(client);
            } catch (IOException e) {
                // The client left, or sent nonsense: that is its trouble, not the server's.
            }
        }
    }

    /**
     * Removes the sockets that JVMs killed with SIGKILL left beside this one: a {@code PID.sock} (not a
     * link) older than a minute, whose process is gone, that refuses a connection. On the control
     * thread, before it serves; quiet, and never throws: a file it cannot remove harms no one.
     */
    private void removeStaleSockets() {
        long bornBefore = System.currentTimeMillis() - STALE_AFTER_MILLIS;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(socket.getParent())) {
            for (Path file : files) {
                try {
                    if (isStale(file, bornBefore)) {
                        Files.deleteIfExists(file);
                    }
                } catch (IOException e) {
                    // Removed by another JVM's sweep meanwhile, say: on to the next.
                }
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            // The sweep is a courtesy; serving is what matters.
        }
    }

    private static boolean isStale(Path file, long bornBefore) throws IOException {
        String name = file.getFileName().toString();
        if (!PID_SOCKET.matcher(name).matches()) {
            return false;
        }
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        long pid = Long.parseLong(name, 0, name.length() - ".sock".length(), 10);
        if (!attributes.isOther() || attributes.lastModifiedTime().toMillis() > bornBefore
                || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            return false;
        }
        // A pid seen from another pid namespace (a container sharing TMPDIR) looks gone: a live
        // server takes the connection. Not blocking, so that a full backlog cannot stall the sweep.
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.configureBlocking(false);
            probe.connect(UnixDomainSocketAddress.of(file));
            return false;
        } catch (ConnectException refused) {
            return true;
        }
    }

    private void serve(SocketChannel client) throws IOException {
        Answer answer = new Answer(Channels.newOutputStream(client));
        try {
            String command = readLine(Channels.newInputStream(client));
            // A document's generator closes its stream at its end; the answer's end, its newline
            // (Control), is the server's to write.
            OutputStream buffered = new java.io.BufferedOutputStream(answer, 1 << 16) {
                @Override
                public void close() throws IOException {
                    flush();
                }
            };
            switch (command) {
                case Control.DUMP -> Dump.write(buffered, findings, true);
                case Control.INFO -> Dump.write(buffered, findings, false);
                default -> {
                    try (JsonGenerator json = Json.FACTORY.createGenerator(buffered)) {
                        json.writeStartObject();
                        json.writeStringField(Fields.ERROR, "unknown command '" + Text.printable(command) + "' (" + Control.commands() + ")");
                        json.writeEndObject();
                    }
                }
            }
            buffered.write('\n');
            buffered.flush();
        } catch (RuntimeException | LinkageError e) {
            // Ours: a loop-core in the application older than the agent, say, or the agent's jar
            // rewritten under the JVM, so that a class not loaded yet cannot be read. Said, as the
            // answer too if none of it has gone yet, and served on: the next client gets an answer
            // too, not a wait. Nothing here may need a class not loaded yet.
            String changed = jarChanged();
            String failure = "a request to the agent failed (" + Text.printable(String.valueOf(e)) + ")";
            System.err.println("loopdiag: " + failure + (changed != null ? ": " + changed : "; dumps go on"));
            if (!answer.begun) {
                String why = changed != null ? changed : failure;
                answer.write(("{\"" + Fields.ERROR + "\": \"" + why.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * What to say when a request failed and the agent's jar changed on disk since the JVM opened
     * it (a build, or {@code cp} over it): the JVM reads a class the agent has not loaded yet from
     * the file it opened, and a write into that file leaves other bytes there. A build may also
     * write the file in place and then move another over it, so any change of the path's file,
     * size or time counts. Only asked once a request has failed; else null.
     */
    private String jarChanged() {
        BasicFileAttributes now = jar == null || jarAsOpened == null ? null : attributes(jar);
        if (jarAsOpened == null || (now != null && java.util.Objects.equals(now.fileKey(), jarAsOpened.fileKey())
                && now.size() == jarAsOpened.size() && now.lastModifiedTime().equals(jarAsOpened.lastModifiedTime()))) {
            return null;
        }
        return "the agent's jar " + Text.printable(jar.toString()) + " changed on disk after this JVM had opened it,"
                + " so the agent cannot load its classes: restart the JVM to use loopdiag on it";
    }

    /** The file this class was loaded from, or null (not a file: classes in a folder, say). */
    private static Path agentJar() {
        try {
            Path path = Path.of(ControlServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isRegularFile(path) ? path : null;
        } catch (Exception e) { // no code source, a URI that is no path, a security manager's refusal
            return null;
        }
    }

    private static BasicFileAttributes attributes(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The client's end of the connection, which knows whether any of the answer has gone to it. */
    private static final class Answer extends OutputStream {
        private final OutputStream out;
        boolean begun;

        Answer(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            begun = true;
            out.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            begun = true;
            out.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }

    /** The first line a client sends, bounded: a command is one short word. */
    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (line.length() >= Control.MAX_COMMAND_BYTES) {
                break;
            }
            line.append((char) c);
        }
        return line.toString().strip();
    }

    private void close() {
        try {
            server.close();
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // The JVM is exiting; a stale socket file is replaced by the next JVM with this pid.
        }
    }
}
