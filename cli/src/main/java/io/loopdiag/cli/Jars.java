package io.loopdiag.cli;

import io.loopdiag.protocol.Control;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;

/**
 * The jars the CLI hands to other JVMs. The agent jar travels inside the CLI's own jar, so that
 * {@code loopdiag.jar} copied anywhere is the whole tool: on first use it is written to
 * {@code TMPDIR/loopdiag-USER-jars/loopdiag-agent-HASH.jar} (a folder of this user's that no one
 * else can write, readable by all so that a JVM of another user that root attaches to can load
 * it), and checked against its SHA-256 every time it is used. {@code test-apps.jar}, for the
 * demo, is found beside the CLI's jar in a checkout of the project.
 */
final class Jars {
    /** Where the build puts the agent jar inside the CLI's jar. */
    static final String AGENT_RESOURCE = "/io/loopdiag/cli/loopdiag-agent.jar";
    private static final Set<PosixFilePermission> FOLDER = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> READ_ONLY = PosixFilePermissions.fromString("r--r--r--");

    private Jars() {
    }

    /** The agent jar carried inside this one, extracted (or found extracted and intact). */
    static Path agent() throws IOException {
        byte[] jar;
        try (InputStream in = Jars.class.getResourceAsStream(AGENT_RESOURCE)) {
            if (in == null) {
                throw new IOException("this loopdiag.jar carries no agent jar (" + AGENT_RESOURCE + "); rebuild it, or give --agent JAR");
            }
            jar = in.readAllBytes();
        }
        String hash = sha256(jar);
        Path folder = folder();
        Path extracted = folder.resolve("loopdiag-agent-" + hash.substring(0, 16) + ".jar");
        if (Files.isRegularFile(extracted, LinkOption.NOFOLLOW_LINKS) && sha256(Files.readAllBytes(extracted)).equals(hash)) {
            return extracted;
        }
        Path temporary = Files.createTempFile(folder, ".loopdiag-agent-", ".tmp");
        try {
            Files.write(temporary, jar);
            Files.setPosixFilePermissions(temporary, READ_ONLY);
            try {
                Files.move(temporary, extracted, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, extracted, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        return extracted;
    }

    /** The agent jar's path for a message: where it is extracted, or its name if it cannot be. */
    static String agentHint() {
        try {
            return agent().toString();
        } catch (IOException e) {
            return "loopdiag-agent.jar";
        }
    }

    /** {@code TMPDIR/loopdiag-USER-jars}, created if needed; refused unless this user owns it and no one else may write in it. */
    private static Path folder() throws IOException {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        Path folder = Path.of(System.getProperty("java.io.tmpdir"), Control.DIRECTORY_PREFIX + user + "-jars");
        if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(FOLDER));
                Files.setPosixFilePermissions(folder, FOLDER); // whatever the umask
            } catch (FileAlreadyExistsException raced) {
                // Another CLI of this user made it meanwhile; checked below like any other.
            }
        }
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS);
        boolean othersWrite = permissions.contains(PosixFilePermission.GROUP_WRITE) || permissions.contains(PosixFilePermission.OTHERS_WRITE);
        String me = System.getProperty("user.name");
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS) || othersWrite
                || !Files.getOwner(folder, LinkOption.NOFOLLOW_LINKS).getName().equals(me)) {
            throw new IOException(folder + " is not a folder of " + me + "'s that no one else can write in; remove it");
        }
        return folder;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is in every JDK", e);
        }
    }

    /** {@code test-apps.jar} beside this jar in a checkout ({@code cli/target/loopdiag.jar}), or null outside one. */
    static Path apps() {
        try {
            Path self = Path.of(Jars.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path top = self.getParent() != null && self.getParent().getParent() != null ? self.getParent().getParent().getParent() : null;
            Path apps = top != null ? top.resolve("test-apps/target/test-apps.jar") : null;
            return apps != null && Files.isRegularFile(apps) ? apps : null;
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
