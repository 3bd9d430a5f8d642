package io.loopdiag.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

/**
 * Weaves the agent's advice into a fixed set of classes, by name: those loaded later as they load,
 * those already loaded by retransforming them. Advice only decorates existing methods (no member
 * is added), as retransformation requires. A plain {@link ClassFileTransformer} around Byte
 * Buddy's {@code decorate} rather than its {@code AgentBuilder}, whose default set-up reaches for
 * {@code sun.misc.Unsafe} and prints deprecation warnings on JDK 24+.
 */
final class Weaver implements ClassFileTransformer {
    private final Map<String, AsmVisitorWrapper> adviceByInternalName = new ConcurrentHashMap<>();
    private final ByteBuddy byteBuddy = new ByteBuddy();
    /** Classes woven so far, by name. */
    final Set<String> woven = ConcurrentHashMap.newKeySet();
    /** Classes that could not be woven, with why. */
    final Map<String, Throwable> failed = new ConcurrentHashMap<>();

    Weaver(Map<String, AsmVisitorWrapper> adviceByClassName) {
        adviceByClassName.forEach((name, advice) -> adviceByInternalName.put(name.replace('.', '/'), advice));
    }

    /** Registers the weaver and retransforms the classes of its set that are already loaded. */
    void install(Instrumentation instrumentation) {
        instrumentation.addTransformer(this, true);
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            if (adviceByInternalName.containsKey(type.getName().replace('.', '/')) && instrumentation.isModifiableClass(type)) {
                loaded.add(type);
            }
        }
        for (Class<?> type : loaded) {
            try {
                instrumentation.retransformClasses(type);
            } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
                failed.put(type.getName(), e);
            }
        }
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String internalName, Class<?> redefined,
                            ProtectionDomain domain, byte[] bytes) {
        AsmVisitorWrapper advice = internalName != null ? adviceByInternalName.get(internalName) : null;
        if (advice == null) {
            return null;
        }
        String name = internalName.replace('/', '.');
        try {
            // The class's own bytes first; its supertypes from its loader (the bootstrap loader's when null).
            ClassFileLocator locator = new ClassFileLocator.Compound(ClassFileLocator.Simple.of(name, bytes),
                    loader == null ? ClassFileLocator.ForClassLoader.ofBootLoader() : ClassFileLocator.ForClassLoader.of(loader));
            byte[] woven = byteBuddy.decorate(TypePool.Default.of(locator).describe(name).resolve(), locator)
                    .visit(advice).make().getBytes();
            this.woven.add(name);
            return woven;
        } catch (Throwable e) {
            // A class the agent cannot weave stays as it was; the self-check says so.
            failed.put(name, e);
            return null;
        }
    }
}
