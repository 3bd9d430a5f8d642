package io.loopdiag.launch;

import java.io.File;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.Manifest;

/**
 * The Main-Class of loopdiag's runnable jars, compiled for Java 8 so that any {@code java} can
 * load it. On Java 21+ it calls the jar's real main class (manifest attribute
 * {@code Loopdiag-Main}) in the same JVM. On an older Java it runs the jar again on the JDK that
 * the project's {@code scripts/find-jdk} picks (the jars live in the project's target folders),
 * passing signals on and returning its exit code; if there is none, it says so in one line and
 * exits 2. So {@code java -jar test-apps.jar} works on a machine whose default java is 17.
 */
public final class JdkGate {
    private static final int MIN_FEATURE = 21;
    private static final int USAGE = 2;

    private JdkGate() {
    }

    public static void main(String[] args) throws Exception {
        String realMain = manifestValue("Loopdiag-Main");
        if (feature() >= MIN_FEATURE) {
            Method main = Class.forName(realMain).getMethod("main", String[].class);
            main.invoke(null, (Object) args);
            return;
        }
        File jar = new File(JdkGate.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        File findJdk = new File(jar.getAbsoluteFile().getParentFile().getParentFile().getParentFile(), "scripts/find-jdk");
        String home = findJdk.canExecute() ? run(findJdk.getPath()) : null;
        if (home == null) {
            System.err.println("loopdiag: " + jar.getName() + " needs Java " + MIN_FEATURE + " or newer; this is Java "
                    + System.getProperty("java.version") + " (" + System.getProperty("java.home")
                    + "). Run it with a JDK " + MIN_FEATURE + "+ or set JAVA_HOME.");
            System.exit(USAGE);
        }
        List<String> command = new ArrayList<>();
        command.add(home + File.separator + "bin" + File.separator + "java");
        command.add("-jar");
        command.add(jar.getPath());
        for (String arg : args) {
            command.add(arg);
        }
        final Process child = new ProcessBuilder(command).inheritIO().start();
        Runtime.getRuntime().addShutdownHook(new Thread(child::destroy)); // a TERM to us reaches the child
        System.exit(child.waitFor());
    }

    private static int feature() {
        String version = System.getProperty("java.specification.version");
        return version.startsWith("1.") ? Integer.parseInt(version.substring(2)) : Integer.parseInt(version);
    }

    private static String manifestValue(String name) throws Exception {
        URL location = JdkGate.class.getProtectionDomain().getCodeSource().getLocation();
        try (InputStream in = new URL("jar:" + location + "!/META-INF/MANIFEST.MF").openStream()) {
            String value = new Manifest(in).getMainAttributes().getValue(new Attributes.Name(name));
            if (value == null) {
                throw new IllegalStateException("the jar's manifest has no " + name);
            }
            return value;
        }
    }

    /** The first line a command prints, or null if it fails. */
    private static String run(String command) throws Exception {
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] out = readAll(process.getInputStream());
        if (process.waitFor() != 0) {
            return null;
        }
        String text = new String(out, "UTF-8").trim();
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    private static byte[] readAll(InputStream in) throws Exception {
        java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        byte[] chunk = new byte[4096];
        int n;
        while ((n = in.read(chunk)) > 0) {
            buffer.write(chunk, 0, n);
        }
        return buffer.toByteArray();
    }
}
