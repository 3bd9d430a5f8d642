package io.loopdiag.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Puts the classes of {@code io.loopdiag.agent.boot} into the bootstrap class loader, where the
 * advice woven into {@code java.base} can see them. It must run before any class that names them
 * is loaded or verified, so that the system class loader finds these very classes (it asks the
 * bootstrap loader first) instead of defining its own copies.
 *
 * <p>The classes are defined with {@code jdk.internal.misc.Unsafe}, opened to the agent through
 * {@link Instrumentation#redefineModule}: appending a jar to the boot class path would print a CDS
 * warning on every start, and {@code sun.misc.Unsafe}'s memory methods print deprecation warnings
 * on JDK 24+.
 */
final class BootClasses {
    static final List<String> NAMES = List.of(
            "io.loopdiag.agent.boot.BlockingCheck",
            "io.loopdiag.agent.boot.BlockingCheck$Listener",
            "io.loopdiag.agent.boot.LoopThread",
            "io.loopdiag.agent.boot.BlockingCallError");
    private static final String UNSAFE_PACKAGE = "jdk.internal.misc";

    private BootClasses() {
    }

    static void inject(Instrumentation instrumentation) throws IOException, ReflectiveOperationException {
        Module javaBase = Object.class.getModule();
        Module agent = BootClasses.class.getModule();
        instrumentation.redefineModule(javaBase, Set.of(), Map.of(UNSAFE_PACKAGE, Set.of(agent)),
                Map.of(UNSAFE_PACKAGE, Set.of(agent)), Set.of(), Map.of());
        Class<?> unsafeClass = Class.forName(UNSAFE_PACKAGE + ".Unsafe");
        Object unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
        Method define = unsafeClass.getMethod("defineClass", String.class, byte[].class, int.class, int.class,
                ClassLoader.class, java.security.ProtectionDomain.class);
        ClassLoader agentLoader = BootClasses.class.getClassLoader();
        Class<?> check = null;
        for (String name : NAMES) {
            byte[] bytes;
            try (InputStream in = agentLoader.getResourceAsStream(name.replace('.', '/') + ".class")) {
                if (in == null) {
                    throw new IOException(name + " is missing from the agent jar");
                }
                bytes = in.readAllBytes();
            }
            Class<?> defined = (Class<?>) define.invoke(unsafe, name, bytes, 0, bytes.length, null, null);
            check = check == null ? defined : check;
        }
        // The advice inlined into java.base (and java.desktop's event queue) calls these classes,
        // which live in the bootstrap loader's unnamed module: those modules must read it.
        for (String woven : List.of("java.base", "java.desktop")) {
            Module module = ModuleLayer.boot().findModule(woven).orElse(null);
            if (module != null) {
                instrumentation.redefineModule(module, Set.of(check.getModule()), Map.of(), Map.of(), Set.of(), Map.of());
            }
        }
    }
}
