package io.loopdiag.views;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.protocol.AwaitKinds;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.LoopKinds;
import java.util.ArrayList;
import java.util.List;

/** Small pieces of the human views of a dump, shared by the CLI's verbs and {@link DumpText}. */
public final class Views {
    private Views() {
    }

    /** 950 ms, 12.3 s, 4 min 05 s, 2 h 03 min: milliseconds, as precise as a reader needs. */
    public static String duration(long millis) {
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

    /** The innermost frame that is the application's ({@link Frame#application}), as written; empty for no frames. */
    public static String applicationFrame(JsonNode stack) {
        List<String> frames = new ArrayList<>(stack.size());
        stack.forEach(frame -> frames.add(frame.asText()));
        Frame frame = Frame.application(frames);
        return frame == null ? "" : frame.text();
    }

    /**
     * The innermost frame that is the application's and not of the framework running a loop of
     * {@code kind} ({@link Frame#application(List, String)}), as written; empty for no frames.
     */
    public static String applicationFrame(JsonNode stack, String kind) {
        List<String> frames = new ArrayList<>(stack.size());
        stack.forEach(frame -> frames.add(frame.asText()));
        Frame frame = Frame.application(frames, kind);
        return frame == null ? "" : frame.text();
    }

    /**
     * What a task awaits, in a few words: {@code task #3}, {@code lock held by #7}, {@code gather of
     * 2: #5, #6}, {@code timer sleep PT1S (due in 400 ms)}, {@code worker 'pool-1' (RUNNABLE)},
     * {@code queue get (size 0)}; {@code -} for nothing.
     */
    public static String awaiting(JsonNode task) {
        JsonNode awaiting = task.path(Fields.AWAITING);
        if (awaiting.isMissingNode() || awaiting.isNull()) {
            return "-";
        }
        String kind = awaiting.path(Fields.KIND).asText();
        // A dump of an agent that did not follow waits (no waitsOn) says only what the wait is.
        String followed = awaiting.has(Fields.WAITS_ON) || kind.equals(AwaitKinds.TASK) ? kind : "";
        String ids = waitsOn(task).stream().map(id -> "#" + id).collect(java.util.stream.Collectors.joining(", "));
        String text = switch (followed) {
            case AwaitKinds.TASK -> "task " + ids;
            case AwaitKinds.LOCK, AwaitKinds.SEMAPHORE -> kind + (ids.isEmpty() ? " (being handed over)" : " held by " + ids);
            case AwaitKinds.CONDITION -> kind + (ids.isEmpty() ? "" : " (lock held by " + ids + ")");
            case AwaitKinds.GATHER, AwaitKinds.GROUP, AwaitKinds.SHIELD, AwaitKinds.WAIT, AwaitKinds.AS_COMPLETED ->
                    kind + (ids.isEmpty() ? "" : " of " + ids);
            case AwaitKinds.WORKER -> awaiting.path(Fields.WORKER).isObject()
                    ? "worker '" + awaiting.path(Fields.WORKER).path(Fields.NAME).asText() + "' ("
                            + awaiting.path(Fields.WORKER).path(Fields.STATE).asText() + ")"
                    : "worker (queued)";
            default -> kind + " " + awaiting.path(Fields.DESCRIPTION).asText();
        };
        if (awaiting.has(Fields.DUE_IN_MILLIS)) {
            text += " (due in " + duration(awaiting.path(Fields.DUE_IN_MILLIS).asLong()) + ")";
        }
        if (awaiting.has(Fields.SIZE)) {
            text += " (size " + awaiting.path(Fields.SIZE).asLong() + ")";
        }
        return text;
    }

    /**
     * The ids of the tasks {@code task}'s wait is on, as the dump gives them ({@link Fields#WAITS_ON});
     * for a dump written before that field, the awaited task's id alone.
     */
    public static List<Long> waitsOn(JsonNode task) {
        JsonNode awaiting = task.path(Fields.AWAITING);
        List<Long> ids = new ArrayList<>();
        if (awaiting.has(Fields.WAITS_ON)) {
            awaiting.path(Fields.WAITS_ON).forEach(id -> ids.add(id.asLong()));
        } else if (awaiting.has(Fields.TASK_ID)) {
            ids.add(awaiting.path(Fields.TASK_ID).asLong());
        }
        return ids;
    }

    /** A loop's kind ({@link LoopKinds}), as written: loop-core for a loop without one (a dump of an agent that writes none). */
    public static String kind(JsonNode loop) {
        JsonNode kind = loop.path(Fields.KIND);
        return LoopKinds.of(kind.isTextual() ? kind.asText() : null);
    }

    /** True for a loop the agent watches without owning it: a Netty loop, the AWT event thread... */
    public static boolean isForeign(JsonNode loop) {
        return LoopKinds.isForeign(kind(loop));
    }

    /**
     * What a foreign loop runs now, in a few words: {@code running for 4.1 s: I/O of handler
     * 'orders' (...)}; {@code running: thread blocked} for a thread without units of work, whose
     * unit is not timed ({@link LoopKinds#hasUnits}); its state between units.
     */
    public static String runningUnit(JsonNode loop) {
        JsonNode running = loop.path(Fields.RUNNING);
        String state = loop.path(Fields.STATE).asText();
        if (!running.isObject()) {
            return state;
        }
        String description = running.path(Fields.DESCRIPTION).asText();
        return LoopKinds.hasUnits(kind(loop))
                ? "running for " + duration(running.path(Fields.RUNNING_MILLIS).asLong()) + ": " + description
                : state + ": " + description;
    }

    /** {@code 'name' #id} */
    public static String task(JsonNode task) {
        return "'" + task.path(Fields.NAME).asText() + "' #" + task.path(Fields.ID).asLong();
    }

    /** {@code text} cut to {@code width} characters, with an ellipsis when cut. */
    public static String fit(String text, int width) {
        return text.length() <= width ? text : text.substring(0, Math.max(0, width - 1)) + "…";
    }

    /**
     * {@code text} cut to {@code width} characters in its middle, with an ellipsis when cut: for a
     * thread's name, whose end tells it from its siblings ({@code nioEventLoopGroup-2-1}). A pair
     * of surrogates stays whole.
     */
    public static String fitMiddle(String text, int width) {
        if (text.length() <= width) {
            return text;
        }
        int tail = (width - 1) / 2;
        int headEnd = width - 1 - tail;
        int tailStart = text.length() - tail;
        if (headEnd > 0 && Character.isHighSurrogate(text.charAt(headEnd - 1))) {
            headEnd--;
        }
        if (tailStart < text.length() && Character.isLowSurrogate(text.charAt(tailStart))) {
            tailStart++;
        }
        return text.substring(0, headEnd) + "…" + text.substring(tailStart);
    }

    /** Every task of every loop, each with its loop's name under {@code loop}. */
    public static List<JsonNode> tasks(JsonNode dump) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode loop : dump.path(Fields.LOOPS)) {
            for (JsonNode task : loop.path(Fields.TASKS)) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) task).put(Fields.LOOP, loop.path(Fields.NAME).asText());
                all.add(task);
            }
        }
        return all;
    }
}
