package io.loopdiag.agent;

/** Text from the application made safe for a one-line message on a terminal. */
final class Text {
    private Text() {
    }

    /** The text with control characters shown as escapes, so a message stays one readable line. */
    static String printable(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) || c == 0xFFFD) {
                if (out == null) {
                    out = new StringBuilder(text.length() + 8).append(text, 0, i);
                }
                out.append(String.format("\\u%04x", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    /** Longest {@link #excerpt}, so that a message quoting text it was given stays one readable line. */
    static final int MAX_EXCERPT = 80;

    /** {@link #printable} text cut to {@link #MAX_EXCERPT} characters, saying how long it was if cut. */
    static String excerpt(String text) {
        String printable = printable(text);
        if (printable.length() <= MAX_EXCERPT) {
            return printable;
        }
        return printable.substring(0, MAX_EXCERPT) + "... (" + text.length() + " characters)";
    }

    /** A lambda's class name without the address the JVM gives it ({@code Foo$$Lambda/0x...}): the same in every run. */
    static String withoutLambdaAddress(String name) {
        int lambda = name.indexOf("$$Lambda");
        return lambda > 0 ? name.substring(0, lambda) + " (lambda)" : name;
    }

    /** A task as findings name it: {@code 'fetch' (#3)}; null for none. */
    static String task(io.loopdiag.loop.Task<?> task) {
        return task == null ? null : "'" + task.name() + "' (#" + task.id() + ")";
    }
}
