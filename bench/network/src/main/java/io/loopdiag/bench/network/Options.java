package io.loopdiag.bench.network;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** A subcommand's {@code --name value} options; every malformed input is an IllegalArgumentException (exit 2). */
final class Options {
    private final Map<String, String> values;

    private Options(Map<String, String> values) {
        this.values = values;
    }

    /** Parses {@code args} as {@code --name value} pairs, allowing only the {@code known} names. */
    static Options parse(String command, String[] args, String... known) {
        Set<String> allowed = Set.of(known);
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg.startsWith("--") ? arg.substring(2) : null;
            if (name == null || !allowed.contains(name)) {
                throw new IllegalArgumentException("unknown argument '" + arg + "' (run with no command for usage)");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(arg + " needs a value");
            }
            values.put(name, args[++i]);
        }
        return new Options(values);
    }

    String string(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    /** The option as an int in {@code [min, max]}; {@code fallback} when absent, or fails if the fallback is null. */
    int integer(String name, Integer fallback, int min, int max) {
        String text = values.get(name);
        if (text == null) {
            if (fallback == null) {
                throw new IllegalArgumentException("--" + name + " is required");
            }
            return fallback;
        }
        int value;
        try {
            value = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " needs a whole number, got '" + text + "'");
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException("--" + name + " must be " + min + ".." + max + ", got " + value);
        }
        return value;
    }

    /** The option as a non-negative decimal, or null when absent. */
    Double decimal(String name) {
        String text = values.get(name);
        if (text == null) {
            return null;
        }
        try {
            double value = Double.parseDouble(text);
            if (value < 0 || !Double.isFinite(value)) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " needs a non-negative number, got '" + text + "'");
        }
    }

    Path path(String name) {
        String text = values.get(name);
        return text == null ? null : Path.of(text);
    }
}
