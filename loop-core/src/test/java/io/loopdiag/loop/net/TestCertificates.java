package io.loopdiag.loop.net;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Self-signed certificates for the TLS tests, made once per JVM by the running JDK's keytool in a
 * temporary directory: the JDK has no public API that builds a certificate, and nothing is checked
 * in. EC keys, so that making them and handshaking with them is quick.
 */
final class TestCertificates {
    private static final char[] PASSWORD = "test-only".toCharArray();
    private static final String ALIAS = "server";

    private static Identity localhost;
    private static Identity elsewhere;

    private TestCertificates() {
    }

    /**
     * A certificate and the two sides of TLS with it.
     *
     * @param server a context presenting the certificate
     * @param client a context trusting that certificate and nothing else
     */
    record Identity(SSLContext server, SSLContext client) {
    }

    /** A certificate for {@code localhost} and {@code 127.0.0.1}. */
    static synchronized Identity localhost() throws Exception {
        if (localhost == null) {
            localhost = make("CN=localhost", "SAN=dns:localhost,ip:127.0.0.1");
        }
        return localhost;
    }

    /** A certificate for {@code elsewhere.invalid} only, a name no test connects to. */
    static synchronized Identity elsewhere() throws Exception {
        if (elsewhere == null) {
            elsewhere = make("CN=elsewhere.invalid", "SAN=dns:elsewhere.invalid");
        }
        return elsewhere;
    }

    private static Identity make(String subject, String subjectAlternativeNames) throws Exception {
        Path directory = Files.createTempDirectory("loopdiag-tls");
        try {
            Path keyStoreFile = directory.resolve("server.p12");
            keytool("-genkeypair", "-alias", ALIAS, "-keyalg", "EC", "-groupname", "secp256r1",
                    "-dname", subject, "-ext", subjectAlternativeNames, "-validity", "2",
                    "-storetype", "PKCS12", "-keystore", keyStoreFile.toString(),
                    "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD));
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(keyStoreFile)) {
                keys.load(in, PASSWORD);
            }
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, PASSWORD);
            SSLContext server = SSLContext.getInstance("TLS");
            server.init(keyManagers.getKeyManagers(), null, null);

            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry(ALIAS, keys.getCertificate(ALIAS));
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trusted);
            SSLContext client = SSLContext.getInstance("TLS");
            client.init(null, trustManagers.getTrustManagers(), null);
            return new Identity(server, client);
        } finally {
            try (Stream<Path> files = Files.walk(directory)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    private static void keytool(String... arguments) throws IOException, InterruptedException {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> command = Stream.concat(Stream.of(keytool.toString()), Stream.of(arguments)).toList();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        if (exit != 0) {
            throw new IOException("keytool exited with " + exit + ": " + output);
        }
    }
}
