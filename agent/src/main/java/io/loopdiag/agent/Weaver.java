package io.loopdiag.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

/**
 * Weaves the agent's {@link Hook}s into their classes, by name: classes loaded later as they
 * load, classes already loaded by retransforming them. Advice only decorates existing methods (no
 * member is added), as retransformation requires. For every class it weaves (in the class loader
 * each hook is for) it checks each hook against the class's methods and tells {@code onUnmatched}
 * of a hook that matches none, so that a renamed method is said, not silently missed. A plain {@link ClassFileTransformer} around Byte
 * Buddy's {@code decorate} rather than its {@code AgentBuilder}, whose default set-up reaches for
 * {@code sun.misc.Unsafe} and prints deprecation warnings on JDK 24+.
 */
final class Weaver implements ClassFileTransformer {
    /** What is known of one hook. */
    enum Status {
        /** Its class has not been loaded (yet). */
        NOT_LOADED,
        /** Woven into at least one method. */
        MATCHED,
        /** Its class was woven, but no method of it matched. */
        UNMATCHED,
        /** Its class could not be woven. */
        FAILED
    }

    /** Receives a hook that matched no method of its class, once per hook, on the thread loading the class. */
    interface Unmatched {
        void hook(Hook hook);
    }

    private final Map<String, List<Hook>> hooksByInternalName = new LinkedHashMap<>();
    private final Map<Hook, Status> status = Collections.synchronizedMap(new IdentityHashMap<>());
    private final Unmatched onUnmatched;
    private final ByteBuddy byteBuddy = new ByteBuddy();
    /** Classes that could not be woven, with why. */
    final Map<String, Throwable> failed = new ConcurrentHashMap<>();

    Weaver(List<Hook> hooks, Unmatched onUnmatched) {
        for (Hook hook : hooks) {
            hooksByInternalName.computeIfAbsent(hook.className().replace('.', '/'), k -> new ArrayList<>()).add(hook);
            status.put(hook, Status.NOT_LOADED);
        }
        this.onUnmatched = onUnmatched;
    }

    /** The names of the classes this weaver has hooks for that the self-check names as {@code check} says. */
    Set<String> classNames(Hook.Check check) {
        Set<String> names = new LinkedHashSet<>();
        hooksByInternalName.forEach((name, hooks) -> {
            if (hooks.stream().anyMatch(hook -> hook.check() == check)) {
                names.add(name.replace('/', '.'));
            }
        });
        return names;
    }

    /** What is known of {@code hook} now. */
    Status status(Hook hook) {
        return status.getOrDefault(hook, Status.NOT_LOADED);
    }

    /** True if a hook of class {@code className} is woven into at least one method. */
    boolean matched(String className) {
        for (Hook hook : hooksByInternalName.getOrDefault(className.replace('.', '/'), List.of())) {
            if (status(hook) == Status.MATCHED) {
                return true;
            }
        }
        return false;
    }

    /**
     * Registers the weaver and retransforms the classes of its set that are already loaded: all in
     * one call (one pause of the JVM), or one by one if that call fails, to tell which class failed.
     */
    void install(Instrumentation instrumentation) {
        instrumentation.addTransformer(this, true);
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            if (hooksByInternalName.containsKey(type.getName().replace('.', '/')) && instrumentation.isModifiableClass(type)) {
                loaded.add(type);
            }
        }
        try {
            instrumentation.retransformClasses(loaded.toArray(Class<?>[]::new));
            return;
        } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
            // One of them could not be retransformed, and so none was: again one by one.
        }
        for (Class<?> type : loaded) {
            try {
                instrumentation.retransformClasses(type);
            } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
                fail(type.getName(), e);
            }
        }
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String internalName, Class<?> redefined,
                            ProtectionDomain domain, byte[] bytes) {
        List<Hook> named = internalName != null ? hooksByInternalName.get(internalName) : null;
        List<Hook> hooks = named == null ? List.of() : named.stream().filter(hook -> hook.isFor(loader)).toList();
        if (hooks.isEmpty()) {
            return null;
        }
        String name = internalName.replace('/', '.');
        try {
            // The class's own bytes first; its supertypes from its loader (the bootstrap loader's when null).
            ClassFileLocator locator = new ClassFileLocator.Compound(ClassFileLocator.Simple.of(name, bytes),
                    loader == null ? ClassFileLocator.ForClassLoader.ofBootLoader() : ClassFileLocator.ForClassLoader.of(loader));
            TypeDescription type = TypePool.Default.of(locator).describe(name).resolve();
            List<AsmVisitorWrapper> wrappers = new ArrayList<>();
            List<Hook> unmatched = new ArrayList<>();
            for (Hook hook : hooks) {
                if (type.getDeclaredMethods().filter(hook.methods()).isEmpty()) {
                    unmatched.add(hook);
                } else {
                    wrappers.add(hook.wrapper());
                }
            }
            byte[] woven = wrappers.isEmpty() ? null
                    : byteBuddy.decorate(type, locator).visit(new AsmVisitorWrapper.Compound(wrappers)).make().getBytes();
            for (Hook hook : hooks) {
                Status now = unmatched.contains(hook) ? Status.UNMATCHED : Status.MATCHED;
                if (status.put(hook, now) != now && now == Status.UNMATCHED) {
                    onUnmatched.hook(hook);
                }
            }
            return woven;
        } catch (Throwable e) {
            // A class the agent cannot weave stays as it was; the self-check says so.
            fail(name, e);
            return null;
        }
    }

    private void fail(String className, Throwable e) {
        failed.put(className, e);
        hooksByInternalName.getOrDefault(className.replace('.', '/'), List.of()).forEach(hook -> status.put(hook, Status.FAILED));
    }
}
