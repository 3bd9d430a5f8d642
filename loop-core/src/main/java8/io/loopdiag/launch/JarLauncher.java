package io.loopdiag.launch;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.Manifest;

/**
 * The Main-Class of loopdiag's runnable jars, compiled for Java 8 so that any {@code java} can
 * load it. On Java 21+ it calls the jar's real main class (manifest attribute
 * {@code Loopdiag-Main}) in the same JVM. On an older Java it runs the jar again on a JDK 21 or
 * newer found the way the project's {@code scripts/find-jdk} finds one ({@code JAVA_HOME}, the
 * {@code java} on {@code PATH}, then the newest under the usual install places), passing signals
 * on and returning its exit code; if there is none, it says so in one line and exits 2. So
 * {@code java -jar loopdiag.jar} works wherever the jar is copied, on a machine whose default
 * java is 17.
 */
public final class JarLauncher {
    private static final int MIN_FEATURE = 21;
    private static final int USAGE = 2;
    /** Where JDKs are installed, as scripts/find-jdk looks; {@code ~} is the user's home. */
    private static final String[] INSTALL_PLACES = {"/usr/lib/jvm", "/usr/java", "/opt/java", "/opt", "~/.sdkman/candidates/java",
        "~/.jdks", "/Library/Java/JavaVirtualMachines"};

    private JarLauncher() {
    }

    public static void main(String[] args) throws Exception {
        String realMain = manifestValue("Loopdiag-Main");
        if (feature(System.getProperty("java.specification.version")) >= MIN_FEATURE) {
            Method main = Class.forName(realMain).getMethod("main", String[].class);
            main.invoke(null, (Object) args);
            return;
        }
        File jar = new File(JarLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        File home = findJdk();
        if (home == null) {
            System.err.println("loopdiag: " + jar.getName() + " needs Java " + MIN_FEATURE + " or newer; this is Java "
                    + System.getProperty("java.version") + " (" + System.getProperty("java.home")
                    + ") and no JDK " + MIN_FEATURE + "+ is in JAVA_HOME, on PATH or under /usr/lib/jvm. Install one or set JAVA_HOME.");
            System.exit(USAGE);
        }
        List<String> command = new ArrayList<String>();
        command.add(new File(new File(home, "bin"), "java").getPath());
        command.add("-jar");
        command.add(jar.getPath());
        for (String arg : args) {
            command.add(arg);
        }
        final Process child = new ProcessBuilder(command).inheritIO().start();
        Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
            @Override
            public void run() {
                child.destroy(); // a TERM to us reaches the child
            }
        }));
        System.exit(child.waitFor());
    }

    /** A JDK 21+: JAVA_HOME's, the one of the {@code java} on PATH, else the newest in the install places; null if none. */
    static File findJdk() {
        String javaHome = System.getenv("JAVA_HOME");
        if (javaHome != null && feature(new File(javaHome)) >= MIN_FEATURE) {
            return new File(javaHome);
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                File java = new File(dir, "java");
                if (java.canExecute()) {
                    File home = canonical(java).getParentFile().getParentFile();
                    if (home != null && feature(home) >= MIN_FEATURE) {
                        return home;
                    }
                    break; // the first java on PATH is the one a user meant
                }
            }
        }
        File best = null;
        int bestFeature = 0;
        for (String place : INSTALL_PLACES) {
            File[] homes = new File(place.replace("~", System.getProperty("user.home"))).listFiles();
            for (File candidate : homes != null ? homes : new File[0]) {
                File home = new File(candidate, "Contents/Home").isDirectory() ? new File(candidate, "Contents/Home") : candidate;
                int feature = feature(home);
                if (feature >= MIN_FEATURE && feature > bestFeature) {
                    best = canonical(home);
                    bestFeature = feature;
                }
            }
        }
        return best;
    }

    /** The feature version of the JDK at {@code home} (from its {@code release} file), or 0 if it is not a JDK. */
    static int feature(File home) {
        if (!new File(new File(home, "bin"), "java").canExecute()) {
            return 0;
        }
        try {
            InputStream in = new FileInputStream(new File(home, "release"));
            try {
                BufferedReader lines = new BufferedReader(new InputStreamReader(in, "UTF-8"));
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith("JAVA_VERSION=")) {
                        return feature(line.substring("JAVA_VERSION=".length()).replace("\"", ""));
                    }
                }
                return 0;
            } finally {
                in.close();
            }
        } catch (Exception notAJdk) {
            return 0;
        }
    }

    /** {@code 1.8.0_392} is 8, {@code 25.0.3} is 25, {@code 17} is 17; 0 for anything else. */
    static int feature(String version) {
        try {
            String[] parts = version.split("[._+-]");
            return parts[0].equals("1") && parts.length > 1 ? Integer.parseInt(parts[1]) : Integer.parseInt(parts[0]);
        } catch (RuntimeException notAVersion) {
            return 0;
        }
    }

    private static File canonical(File file) {
        try {
            return file.getCanonicalFile();
        } catch (Exception e) {
            return file.getAbsoluteFile();
        }
    }

    private static String manifestValue(String name) throws Exception {
        URL location = JarLauncher.class.getProtectionDomain().getCodeSource().getLocation();
        InputStream in = new URL("jar:" + location + "!/META-INF/MANIFEST.MF").openStream();
        try {
            String value = new Manifest(in).getMainAttributes().getValue(new Attributes.Name(name));
            if (value == null) {
                throw new IllegalStateException("the jar's manifest has no " + name);
            }
            return value;
        } finally {
            in.close();
        }
    }
}
