package io.loopdiag.agent;

import io.loopdiag.protocol.AgentOptionNames;
import io.loopdiag.protocol.Text;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The agent's options, parsed from the {@code -javaagent:loopdiag-agent.jar=OPTIONS} string:
 * {@code key=value} pairs separated by commas (docs/agent.md has the table). A malformed string is
 * refused with an {@link IllegalArgumentException} whose message is one line naming the option.
 *
 * @param slow     a callback or task step longer than this is a slow callback
 * @param blocking what to do on a blocking call on the loop
 * @param report   where to keep the JSON report, or null for none; {@code %p} in the option is this JVM's
 *                 process id, so that every JVM of a build keeps its own
 * @param logToStderr whether each new finding prints a block on stderr
 * @param allow    call sites allowed to block: {@code Class#method}, or {@code Class} for all its methods
 * @param threads  the names of more loop threads for the blocking check (a regular expression that
 *                 matches a whole thread name), or null
 * @param signal   the signal on which the agent writes the dump ({@code USR1}), or null for none
 * @param dump     where that dump goes, as JSON ({@code %p} as in report), or null for text on stderr
 * @param statistics whether the agent keeps every loop's health numbers (lag, utilization...)
 */
public record AgentOptions(Duration slow, Blocking blocking, Path report, boolean logToStderr, List<String> allow,
                           Pattern threads, String signal, Path dump, boolean statistics) {

    /** The reaction to a blocking call on a loop. */
    public enum Blocking {
        WARN, THROW, OFF;

        /** The option's word for it: {@code warn}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final Duration DEFAULT_SLOW = Duration.ofMillis(100);
    /** Longer than any callback anyone means to allow: a typo like {@code slow=100s0} is caught. */
    static final Duration MAX_SLOW = Duration.ofHours(1);
    private static final Pattern DURATION = Pattern.compile("(\\d{1,10})(ns|us|ms|s|m)");
    private static final Pattern ALLOW = Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*(#[\\p{L}_$<][\\p{L}\\p{N}_$>]*)?");

    public static AgentOptions defaults() {
        return new AgentOptions(DEFAULT_SLOW, Blocking.WARN, null, true, List.of(), null, null, null, true);
    }

    /** Parses {@code text} (null or empty: the defaults). */
    public static AgentOptions parse(String text) {
        if (text == null || text.isEmpty()) {
            return defaults();
        }
        Duration slow = DEFAULT_SLOW;
        Blocking blocking = Blocking.WARN;
        Path report = null;
        boolean log = true;
        List<String> allow = List.of();
        Pattern threads = null;
        String signal = null;
        Path dump = null;
        boolean statistics = true;
        Set<String> seen = new HashSet<>();
        for (String pair : text.split(String.valueOf(AgentOptionNames.SEPARATOR), -1)) {
            int equals = pair.indexOf('=');
            if (pair.isBlank()) {
                throw refused("an empty option (two commas in a row, or a comma at an end)", text);
            }
            if (equals < 0) {
                throw refused("option '" + Text.excerpt(pair) + "' has no value (expected key=value)", text);
            }
            String key = pair.substring(0, equals).trim();
            String value = pair.substring(equals + 1).trim();
            if (key.isEmpty()) {
                throw refused("an option without a name ('" + Text.excerpt(pair) + "', expected key=value)", text);
            }
            if (!seen.add(key)) {
                throw refused("option '" + Text.excerpt(key) + "' is given twice", text);
            }
            if (value.isEmpty()) {
                throw refused("option '" + Text.excerpt(key) + "' has an empty value", text);
            }
            switch (key) {
                case AgentOptionNames.SLOW -> slow = parseDuration(key, value, text);
                case AgentOptionNames.BLOCKING -> blocking = parseBlocking(value, text);
                case AgentOptionNames.REPORT -> report = parsePath(key, value, text);
                case AgentOptionNames.LOG -> log = parseLog(value, text);
                case AgentOptionNames.ALLOW -> allow = parseAllow(value, text);
                case AgentOptionNames.THREADS -> threads = parseThreads(value, text);
                case AgentOptionNames.SIGNAL -> signal = parseSignal(value, text);
                case AgentOptionNames.DUMP -> dump = parsePath(key, value, text);
                case AgentOptionNames.STATISTICS -> statistics = parseOnOff(key, value, text);
                default -> throw refused("unknown option '" + Text.excerpt(key)
                        + "' (known: " + AgentOptionNames.all() + ")", text);
            }
        }
        if (dump != null && signal == null) {
            throw refused("option 'dump' names where the dump a signal asks for goes: give 'signal' as well", text);
        }
        return new AgentOptions(slow, blocking, report, log, allow, threads, signal, dump, statistics);
    }

    private static Duration parseDuration(String key, String value, String text) {
        Matcher matcher = DURATION.matcher(value.toLowerCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw refused("option '" + key + "' needs a duration such as 250ms or 1s, not '" + Text.excerpt(value) + "'", text);
        }
        long amount = Long.parseLong(matcher.group(1));
        Duration duration = switch (matcher.group(2)) {
            case "ns" -> Duration.ofNanos(amount);
            case "us" -> Duration.ofNanos(amount * 1_000);
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            default -> Duration.ofMinutes(amount);
        };
        if (duration.isZero()) {
            throw refused("option '" + key + "' must be longer than zero", text);
        }
        if (duration.compareTo(MAX_SLOW) > 0) {
            throw refused("option '" + key + "' is longer than " + MAX_SLOW.toMinutes() + " minutes: '" + Text.excerpt(value) + "'", text);
        }
        return duration;
    }

    private static Blocking parseBlocking(String value, String text) {
        for (Blocking blocking : Blocking.values()) {
            if (blocking.id().equals(value)) {
                return blocking;
            }
        }
        throw refused("option 'blocking' is warn, throw or off, not '" + Text.excerpt(value) + "'", text);
    }

    private static Path parsePath(String key, String value, String text) {
        try {
            return pathWithPid(value);
        } catch (InvalidPathException e) {
            throw refused("option '" + key + "' is not a usable path: '" + Text.excerpt(value) + "'", text);
        }
    }

    /** A path option's {@code value} as a path, with this JVM's pid for the placeholder; throws InvalidPathException. */
    static Path pathWithPid(String value) {
        return Path.of(value.replace(AgentOptionNames.PID_PLACEHOLDER, Long.toString(ProcessHandle.current().pid())));
    }

    private static boolean parseLog(String value, String text) {
        return switch (value) {
            case "stderr" -> true;
            case "off" -> false;
            default -> throw refused("option 'log' is stderr or off, not '" + Text.excerpt(value) + "'", text);
        };
    }

    private static boolean parseOnOff(String key, String value, String text) {
        return switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw refused("option '" + key + "' is on or off, not '" + Text.excerpt(value) + "'", text);
        };
    }

    private static List<String> parseAllow(String value, String text) {
        List<String> patterns = new ArrayList<>();
        for (String pattern : value.split(";", -1)) {
            String trimmed = pattern.trim();
            if (!ALLOW.matcher(trimmed).matches()) {
                throw refused("option 'allow' takes Class#method patterns separated by ';', not '" + Text.excerpt(trimmed) + "'", text);
            }
            patterns.add(trimmed);
        }
        return List.copyOf(patterns);
    }

    private static Pattern parseThreads(String value, String text) {
        try {
            return Pattern.compile(value);
        } catch (PatternSyntaxException e) {
            throw refused("option 'threads' is not a regular expression: '" + Text.excerpt(value) + "' ("
                    + Text.excerpt(e.getDescription()) + ")", text);
        }
    }

    /**
     * USR1: the signal HotSpot on Linux leaves to the application (USR2 suspends threads, QUIT is
     * the thread dump, HUP, INT and TERM run the shutdown hooks).
     */
    private static String parseSignal(String value, String text) {
        String name = value.toUpperCase(Locale.ROOT);
        name = name.startsWith("SIG") ? name.substring(3) : name;
        if (!name.equals("USR1")) {
            throw refused("option 'signal' is USR1 (the signal the JVM leaves to the application), not '" + Text.excerpt(value) + "'", text);
        }
        return name;
    }

    private static IllegalArgumentException refused(String why, String text) {
        return new IllegalArgumentException("bad agent options '" + Text.excerpt(text) + "': " + why);
    }
}
