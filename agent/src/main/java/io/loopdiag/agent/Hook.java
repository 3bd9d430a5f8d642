package io.loopdiag.agent;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * One place the agent instruments: a class, matched by name in whatever loader defines it, the
 * methods of it that get the advice, and what the user loses when none of them is found (a
 * method renamed in a version the agent does not know). The {@link Weaver} weaves it and notes
 * whether it matched; the {@link SelfCheck} says which hooks matched nothing.
 *
 * @param className the class's binary name
 * @param label     how the self-check names the hook: {@code java.lang.Thread#sleep(long)}
 * @param methods   the methods that get the advice; at least one must exist
 * @param advice    the advice (an enter and an exit), applied to each of them
 * @param loss      what is not detected while this hook matches nothing, as the end of a sentence
 * @param loader    the only class loader whose class of that name gets the hook, or null for any: advice
 *                  that calls the agent with the class's own types works only in the loader the agent
 *                  was compiled against (loop-core's, the system class loader)
 * @param check     when the self-check names this hook
 */
record Hook(String className, String label, ElementMatcher<? super MethodDescription> methods, Advice advice, String loss,
            ClassLoader loader, Check check) {

    /** When the self-check names a hook that is not in place. */
    enum Check {
        /** When its class is not in the JVM, or matches nothing: the JDK's and loop-core's hooks. */
        ALWAYS,
        /** Only when its class is loaded and matches nothing: a library the application may not use. */
        IF_LOADED,
        /**
         * Never: one of several hooks for the versions of a library (Netty 4.1's loop against 4.2's
         * I/O handler), whose own check ({@link NettyLoops}) says what a loop it meets lacks.
         */
        NEVER
    }

    /** A hook for the class of that name in any class loader. */
    Hook(String className, String label, ElementMatcher<? super MethodDescription> methods, Advice advice, String loss) {
        this(className, label, methods, advice, loss, null, Check.ALWAYS);
    }

    Hook(String className, String label, ElementMatcher<? super MethodDescription> methods, Advice advice, String loss,
         ClassLoader loader) {
        this(className, label, methods, advice, loss, loader, Check.ALWAYS);
    }

    /** The same hook, named by the self-check as {@code when} says. */
    Hook checked(Check when) {
        return new Hook(className, label, methods, advice, loss, loader, when);
    }

    /** Whether the class of that name that {@code definer} defines gets this hook. */
    boolean isFor(ClassLoader definer) {
        return loader == null || loader == definer;
    }

    /** The advice as Byte Buddy weaves it into a class. */
    AsmVisitorWrapper wrapper() {
        return advice.on(methods);
    }
}
