package io.loopdiag.cli;

import java.util.List;

/**
 * One stack frame as the agent writes it ({@link StackTraceElement#toString()}, such as
 * {@code app//com.acme.Cart.total(Cart.java:42)} or {@code java.base/java.lang.Thread.sleep(Thread.java:536)}),
 * taken apart. Unknown parts are null (file) or -1 (line).
 *
 * @param text      the frame as written
 * @param className the class, without the class loader or module before it
 * @param method    the method name
 * @param file      the source file's name, or null
 * @param line      the line, or -1
 */
record Frame(String text, String className, String method, String file, int line) {

    /** Parses {@code text}; a string that is not a frame becomes a frame with only its text as class. */
    static Frame parse(String text) {
        int open = text.indexOf('(');
        int close = text.lastIndexOf(')');
        if (open < 0 || close < open) {
            return new Frame(text, text, "", null, -1);
        }
        String qualified = text.substring(text.lastIndexOf('/', open) + 1, open); // drops loader//module/
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
        return new Frame(text, dot > 0 ? qualified.substring(0, dot) : qualified, dot > 0 ? qualified.substring(dot + 1) : "",
                hasFile ? file : null, line);
    }

    /** The frame without its line or class loader: what stays the same when code above it moves. */
    String withoutLine() {
        return className + "." + method + (file != null ? "(" + file + ")" : "");
    }

    /** The package path of the source file, {@code com/acme/Cart.java}, or null without a file name. */
    String sourcePath() {
        if (file == null) {
            return null;
        }
        int dot = className.lastIndexOf('.');
        return dot > 0 ? className.substring(0, dot).replace('.', '/') + "/" + file : file;
    }

    /** True for the JDK's frames and loop-core's: not where the application is. */
    static boolean isLibrary(String frame) {
        return frame.startsWith("java.base/") || frame.startsWith("jdk.") || frame.startsWith("java.")
                || frame.startsWith("io.loopdiag.loop.");
    }

    /** The innermost frame that is neither the JDK's nor loop-core's, else the innermost, else null. */
    static Frame application(List<String> stack) {
        for (String frame : stack) {
            if (!isLibrary(frame)) {
                return parse(frame);
            }
        }
        return stack.isEmpty() ? null : parse(stack.get(0));
    }
}
