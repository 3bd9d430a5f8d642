package io.loopdiag.protocol;

/**
 * Text that comes from the application (loop, task and thread names, exception messages, file
 * names) made safe to print: every output of loopdiag, on a terminal, in a log or in XML, passes
 * it through {@link #printable}. JSON documents keep the text exactly; it is escaped when shown.
 */
public final class Text {
    /** Longest {@link #excerpt}, so that a message quoting text it was given stays one readable line. */
    public static final int MAX_EXCERPT = 80;

    private Text() {
    }

    /**
     * The text with every character that could rewrite a terminal, break a line, reorder what a
     * reader sees or not be held by XML 1.0 shown as a {@code \\uXXXX} escape: C0 and C1 controls
     * and DEL, the line and paragraph separators, the bidirectional controls (the "Trojan
     * Source" characters), lone surrogates, U+FFFE, U+FFFF and U+FFFD (what a broken encoding
     * leaves). Everything else, a character outside the BMP included, is kept. Returns
     * {@code text} itself when nothing needs escaping.
     */
    public static String printable(String text) {
        StringBuilder out = null;
        int length = text.length();
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
                if (out != null) {
                    out.append(c).append(text.charAt(i + 1));
                }
                i++; // a pair is one character outside the BMP: kept
                continue;
            }
            if (mustEscape(c)) {
                if (out == null) {
                    out = new StringBuilder(length + 8).append(text, 0, i);
                }
                out.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf]).append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static boolean mustEscape(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f)
                || Character.isSurrogate(c) // a lone one: a pair was taken above
                || c == 0xfffd || c == 0xfffe || c == 0xffff
                || c == 0x2028 || c == 0x2029
                || isBidiControl(c);
    }

    /** U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069: they reorder the text shown around them. */
    private static boolean isBidiControl(char c) {
        return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    }

    /** {@link #printable} text cut to {@link #MAX_EXCERPT} characters, saying how long it was if cut. */
    public static String excerpt(String text) {
        String printable = printable(text);
        if (printable.length() <= MAX_EXCERPT) {
            return printable;
        }
        return printable.substring(0, MAX_EXCERPT) + "... (" + text.length() + " characters)";
    }
}
