package io.loopdiag.agent;

import io.loopdiag.loop.Task;

/** How findings name what they are about: the same words in every kind. */
final class Names {
    private Names() {
    }

    /** A task as findings name it: {@code 'fetch' (#3)}; null for none. */
    static String task(Task<?> task) {
        return task == null ? null : task(task.name(), task.id());
    }

    /** A task as every finding names it, whatever found it: {@code 'fetch' (#3)}. */
    static String task(String name, long id) {
        return "'" + name + "' (#" + id + ")";
    }

    /** A lambda's class name without the address the JVM gives it ({@code Foo$$Lambda/0x...}): the same in every run. */
    static String withoutLambdaAddress(String name) {
        int lambda = name.indexOf("$$Lambda");
        return lambda > 0 ? name.substring(0, lambda) + " (lambda)" : name;
    }
}
