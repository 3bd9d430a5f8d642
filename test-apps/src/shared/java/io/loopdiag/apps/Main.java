package io.loopdiag.apps;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code java -jar test-apps.jar SCENARIO [args]} runs one scenario; with no argument it lists
 * them. Exit codes: 0 ok, 1 the scenario failed, 2 usage (unknown scenario or bad arguments).
 *
 * <p>Main uses the JDK only: it is compiled into test-apps-netty41.jar too (from
 * {@code src/shared/java}, with the Netty scenarios), where a {@link Catalog} of its own lists the
 * Netty scenarios alone.
 */
public final class Main {
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    /** One scenario: a program with its own arguments, returning its exit code. */
    @FunctionalInterface
    interface Scenario {
        int run(String[] args) throws Exception;
    }

    private record Entry(String description, Scenario scenario) {
    }

    /** The scenarios by name, in the order they are listed: those of this jar's {@link Catalog}. */
    private static final Map<String, Entry> SCENARIOS = new LinkedHashMap<>();

    static {
        Catalog.addAll();
    }

    private Main() {
    }

    /** Lists a scenario under {@code name}; for {@link Catalog}, while Main is initialised. */
    static void add(String name, String description, Scenario scenario) {
        SCENARIOS.put(name, new Entry(description, scenario));
    }

    /** For scenarios that take no arguments: throws IllegalArgumentException (exit 2) if there are some. */
    static void requireNoArguments(String[] args) {
        if (args.length > 0) {
            throw new IllegalArgumentException("takes no arguments");
        }
    }

    /**
     * The whole number given to the option {@code args[i]} in {@code args[i + 1]}, from {@code min}
     * to {@code max}; anything else throws IllegalArgumentException (exit 2), one message for all.
     */
    static long parseNumber(String[] args, int i, long min, long max) {
        String value = i + 1 < args.length ? args[i + 1] : null;
        if (value == null || !value.matches("\\d{1,18}") || Long.parseLong(value) < min || Long.parseLong(value) > max) {
            throw new IllegalArgumentException(args[i] + " needs a number from " + min + " to " + max + ", got "
                    + (value == null ? "nothing" : "'" + value + "'"));
        }
        return Long.parseLong(value);
    }

    /** The port given by {@code --port} at {@code args[i]}: 0..65535, 0 for any free one (see {@link #parseNumber}). */
    static int parsePort(String[] args, int i) {
        return (int) parseNumber(args, i, 0, 65_535);
    }

    /** For scenarios whose only argument is {@code [--port N]}: the port, 0 (any free one) without it. */
    static int requirePortOnly(String[] args, String name) {
        int port = 0;
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].equals("--port")) {
                throw new IllegalArgumentException("unknown argument '" + args[i] + "' (usage: " + name + " [--port N])");
            }
            port = parsePort(args, i);
        }
        return port;
    }

    /** A finite scenario's last words: prints {@code NAME done} on stdout and returns {@link #EXIT_OK}. */
    static int done(String name) {
        System.out.println(name + " done");
        System.out.flush();
        return EXIT_OK;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the scenario named by {@code args[0]} with the rest as its arguments; returns the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            out.println("usage: java -jar test-apps.jar SCENARIO [args]");
            out.println("scenarios:");
            SCENARIOS.forEach((name, entry) -> out.printf("  %-18s %s%n", name, entry.description()));
            out.flush();
            return EXIT_OK;
        }
        Entry entry = SCENARIOS.get(args[0]);
        if (entry == null) {
            err.println("test-apps: unknown scenario '" + args[0] + "' (run with no argument to list them)");
            return EXIT_USAGE;
        }
        String[] rest = new String[args.length - 1];
        System.arraycopy(args, 1, rest, 0, rest.length);
        try {
            return entry.scenario().run(rest);
        } catch (IllegalArgumentException e) {
            err.println("test-apps " + args[0] + ": " + e.getMessage());
            return EXIT_USAGE;
        } catch (Exception e) {
            err.println("test-apps " + args[0] + " failed: " + e);
            e.printStackTrace(err);
            return EXIT_FAILED;
        }
    }
}
