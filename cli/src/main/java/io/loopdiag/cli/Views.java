package io.loopdiag.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Small pieces of the human views of a dump, shared by ps, pstree and dump. */
final class Views {
    /** The width the views fit: an 100-column terminal. */
    static final int WIDTH = 100;

    private Views() {
    }

    /** 950 ms, 12.3 s, 4 min 05 s, 2 h 03 min: milliseconds, as precise as a reader needs. */
    static String duration(long millis) {
        if (millis < 1_000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format("%.1f s", millis / 1000.0);
        }
        long seconds = millis / 1000;
        if (seconds < 3600) {
            return String.format("%d min %02d s", seconds / 60, seconds % 60);
        }
        return String.format("%d h %02d min", seconds / 3600, (seconds / 60) % 60);
    }

    /** The innermost frame that is neither the JDK's nor loop-core's: where the application is. */
    static String applicationFrame(JsonNode stack) {
        for (JsonNode frame : stack) {
            String text = frame.asText();
            if (!Frame.isLibrary(text)) {
                return text;
            }
        }
        return stack.isEmpty() ? "" : stack.get(0).asText();
    }

    /** {@code io.x.Foo.bar(Foo.java:3)} as {@code Foo.java:3 bar}: the line first, for a narrow column. */
    static String shortFrame(String frame) {
        int open = frame.indexOf('(');
        int close = frame.lastIndexOf(')');
        if (open < 0 || close < open) {
            return frame;
        }
        String method = frame.substring(frame.lastIndexOf('.', open) + 1, open);
        return frame.substring(open + 1, close) + " " + method;
    }

    /** What a task awaits, in a few words: {@code task #3 'fetch'}, {@code lock Lock[...]}, {@code timer (due in 4.0 s)}. */
    static String awaiting(JsonNode task) {
        JsonNode awaiting = task.path("awaiting");
        if (awaiting.isMissingNode() || awaiting.isNull()) {
            return "-";
        }
        String kind = awaiting.path("kind").asText();
        String text = awaiting.has("taskId") ? "task #" + awaiting.path("taskId").asLong()
                : kind + " " + awaiting.path("description").asText();
        if (awaiting.has("dueInMillis")) {
            text += " (due in " + duration(awaiting.path("dueInMillis").asLong()) + ")";
        }
        return text;
    }

    /** {@code 'name' #id} */
    static String task(JsonNode task) {
        return "'" + task.path("name").asText() + "' #" + task.path("id").asLong();
    }

    /** {@code text} cut to {@code width} characters, with an ellipsis when cut. */
    static String fit(String text, int width) {
        return text.length() <= width ? text : text.substring(0, Math.max(0, width - 1)) + "…";
    }

    /** Every task of every loop, each with its loop's name under {@code loop}. */
    static List<JsonNode> tasks(JsonNode dump) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode loop : dump.path("loops")) {
            for (JsonNode task : loop.path("tasks")) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) task).put("loop", loop.path("name").asText());
                all.add(task);
            }
        }
        return all;
    }

    /**
     * Terminal control characters from the application shown as escapes, so a name cannot rewrite
     * the screen or break a line; so are lone surrogates and U+FFFE/U+FFFF, which XML 1.0 cannot hold.
     */
    static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            boolean loneSurrogate = c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE; // a pair is one code point
            if (Character.isISOControl(c) || loneSurrogate || c == 0xFFFE || c == 0xFFFF) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }
}
