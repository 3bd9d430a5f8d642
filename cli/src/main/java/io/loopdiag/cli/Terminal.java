package io.loopdiag.cli;

import java.io.Console;

/**
 * Where the command's output goes: a terminal gets views cut to its width, and colour unless
 * {@code NO_COLOR} is set (no-color.org); a pipe or a file gets whole lines and no escape
 * sequence, since a script or a later reader needs every name whole and plain.
 */
final class Terminal {
    /** The width views are cut to on a terminal. */
    static final int WIDTH = 100;
    /** No cut: the width of a view written to a pipe or a file, or with {@code --wide}. */
    static final int UNBOUNDED = Integer.MAX_VALUE;

    private Terminal() {
    }

    /** {@link #WIDTH} when standard output is a terminal and not {@code wide}, else {@link #UNBOUNDED}. */
    static int width(boolean wide) {
        return !wide && isTerminal() ? WIDTH : UNBOUNDED;
    }

    /** Red: what is stuck or failed. */
    static final String RED = "31";
    /** Yellow: what deserves a look. */
    static final String YELLOW = "33";
    /** Green: what passed. */
    static final String GREEN = "32";
    /** Bold: headings. */
    static final String BOLD = "1";

    private static final boolean COLOUR = isTerminal() && (System.getenv("NO_COLOR") == null || System.getenv("NO_COLOR").isEmpty());

    /** {@code text} in colour {@code sgr} (an SGR code: {@link #RED}...) on a terminal without NO_COLOR; as it is elsewhere. */
    static String colour(String text, String sgr) {
        return COLOUR ? "\u001b[" + sgr + "m" + text + "\u001b[0m" : text;
    }

    /** True if standard input and output are a terminal. */
    static boolean isTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            // JDK 22+ gives a console on a pipe too, and says whether it is a terminal.
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (NoSuchMethodException jdk21) {
            return true; // JDK 21 gives a console only on a terminal
        } catch (ReflectiveOperationException | RuntimeException unknown) {
            return false;
        }
    }
}
