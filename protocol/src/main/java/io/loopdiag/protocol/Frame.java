package io.loopdiag.protocol;

import java.util.List;

/**
 * One stack frame, as the agent writes it ({@link StackTraceElement#toString()}:
 * {@code app//com.acme.Cart.total(Cart.java:42)}, {@code java.base/java.lang.Thread.sleep(Thread.java:536)}),
 * taken apart; and the one rule that tells where a frame belongs: to the JDK, to loop-core, to
 * the agent, or to the application (everything else). Unknown parts are null (module, file) or
 * -1 (line).
 *
 * @param text      the frame as written
 * @param module    the module's name without its version, or null for a class outside named modules
 * @param className the class, without the class loader or module before it
 * @param method    the method name
 * @param file      the source file's name, or null
 * @param line      the line, or -1
 */
public record Frame(String text, String module, String className, String method, String file, int line) {
    private static final String LOOP_CORE_PACKAGE = "io.loopdiag.loop.";
    private static final String AGENT_PACKAGE = "io.loopdiag.agent.";
    /** What the agent's jar relocates its libraries to. */
    private static final String SHADED_PACKAGE = "io.loopdiag.shaded.";

    /** Parses {@code text}; a string that is not a frame becomes a frame with only its text as class. */
    public static Frame parse(String text) {
        int open = text.indexOf('(');
        int close = text.lastIndexOf(')');
        if (open < 0 || close < open) {
            return new Frame(text, null, text, "", null, -1);
        }
        int slash = text.lastIndexOf('/', open);
        String module = null;
        if (slash > 0) {
            // [loader/][module[@version]]/class: with a loader, the module is between the two slashes.
            String prefix = text.substring(0, slash);
            int loaderEnd = prefix.indexOf('/');
            String named = loaderEnd >= 0 ? prefix.substring(loaderEnd + 1) : prefix;
            int at = named.indexOf('@');
            named = at >= 0 ? named.substring(0, at) : named;
            module = named.isEmpty() ? null : named;
        }
        String qualified = text.substring(slash + 1, open);
        int dot = qualified.lastIndexOf('.');
        String location = text.substring(open + 1, close);
        int colon = location.lastIndexOf(':');
        String file = colon >= 0 ? location.substring(0, colon) : location;
        int line = -1;
        if (colon >= 0) {
            try {
                line = Integer.parseInt(location.substring(colon + 1));
            } catch (NumberFormatException notALine) {
                line = -1;
            }
        }
        boolean hasFile = !file.isEmpty() && !file.equals("Unknown Source") && !file.equals("Native Method");
        return new Frame(text, module, dot > 0 ? qualified.substring(0, dot) : qualified,
                dot > 0 ? qualified.substring(dot + 1) : "", hasFile ? file : null, line);
    }

    // ---- where a frame belongs --------------------------------------------------------------------

    /**
     * A frame of the JDK: its class is in a {@code java.*} or {@code jdk.*} module (the JDK's
     * internal {@code sun.*} and {@code jdk.internal.*} packages included). Without a module name
     * (text written by hand), by the class's package.
     */
    public static boolean isJdk(String module, String className) {
        if (module != null) {
            return module.startsWith("java.") || module.startsWith("jdk.");
        }
        return className.startsWith("java.") || className.startsWith("jdk.") || className.startsWith("sun.");
    }

    public static boolean isJdk(StackTraceElement frame) {
        return isJdk(frame.getModuleName(), frame.getClassName());
    }

    /** A frame of loop-core, the reference loop: its API and its internals. */
    public static boolean isLoopCore(String className) {
        return className.startsWith(LOOP_CORE_PACKAGE);
    }

    /** A frame of the agent itself, or of a library it carries. */
    public static boolean isAgent(String className) {
        return className.startsWith(AGENT_PACKAGE) || className.startsWith(SHADED_PACKAGE);
    }

    public boolean isJdk() {
        return isJdk(module, className);
    }

    /** True for the JDK's frames and loopdiag's: not where the application is. */
    public boolean isLibrary() {
        return isJdk() || isLoopCore(className) || isAgent(className);
    }

    /** The innermost frame of {@code stack} that is the application's, else the innermost, else null. */
    public static Frame application(List<String> stack) {
        for (String text : stack) {
            Frame frame = parse(text);
            if (!frame.isLibrary()) {
                return frame;
            }
        }
        return stack.isEmpty() ? null : parse(stack.get(0));
    }

    /**
     * The innermost frame of {@code stack}, run on a loop of {@code loopKind} ({@link LoopKinds}),
     * that is the application's and not of the framework running that loop (on a Netty loop, the
     * handler that called {@code sync()}, not Netty's {@code DefaultPromise.await}); else {@link
     * #application(List)}'s answer. For loop-core's loops and named threads the two agree.
     */
    public static Frame application(List<String> stack, String loopKind) {
        List<String> framework = LoopKinds.frameworkPackages(loopKind);
        if (!framework.isEmpty()) {
            for (String text : stack) {
                Frame frame = parse(text);
                if (!frame.isLibrary() && framework.stream().noneMatch(frame.className::startsWith)) {
                    return frame;
                }
            }
        }
        return application(stack);
    }

    // ---- views ------------------------------------------------------------------------------------

    /** The frame without its line or class loader: what stays the same when code above it moves. */
    public String withoutLine() {
        return className + "." + method + (file != null ? "(" + file + ")" : "");
    }

    /** The package path of the source file, {@code com/acme/Cart.java}, or null without a file name. */
    public String sourcePath() {
        if (file == null) {
            return null;
        }
        int dot = className.lastIndexOf('.');
        return dot > 0 ? className.substring(0, dot).replace('.', '/') + "/" + file : file;
    }

    /** {@code Cart.java:42 total}: the line first, for a narrow column. */
    public String shortForm() {
        int open = text.indexOf('(');
        int close = text.lastIndexOf(')');
        if (open < 0 || close < open) {
            return text;
        }
        return text.substring(open + 1, close) + " " + method;
    }
}
