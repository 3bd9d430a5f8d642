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
 */
record Hook(String className, String label, ElementMatcher<? super MethodDescription> methods, Advice advice, String loss,
            ClassLoader loader) {

    /** A hook for the class of that name in any class loader. */
    Hook(String className, String label, ElementMatcher<? super MethodDescription> methods, Advice advice, String loss) {
        this(className, label, methods, advice, loss, null);
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
