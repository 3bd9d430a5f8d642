package io.loopdiag.bench.network;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code wrk-report}: turns the output of {@code wrk --latency} into the shared JSON lines:
 * throughput ({@code req/s}) and the 50th and 99th percentile latency ({@code us}). Socket
 * errors and non-2xx answers go into the note; a run with no request, or output that is not
 * wrk's, is an error line.
 */
final class WrkReport {
    static final String[] OPTIONS = {"input", "connections", "threads", "seconds", "subject", "variant",
        "server-cpu-seconds", "client-cpu-seconds", "machine-cpu-seconds", "server-stderr", "detector", "context"};
    private static final String WORKLOAD = "http";

    private static final Pattern REQUESTS_PER_SECOND = Pattern.compile("^Requests/sec:\\s+([0-9.]+)\\s*$", Pattern.MULTILINE);
    private static final Pattern PERCENTILE = Pattern.compile("^\\s+(50|75|90|99)(?:\\.0+)?%\\s+([0-9.]+)(us|ms|s|m)\\s*$", Pattern.MULTILINE);
    private static final Pattern TOTAL = Pattern.compile("^\\s+(\\d+) requests in ([0-9.]+)(us|ms|s|m),", Pattern.MULTILINE);
    private static final Pattern SOCKET_ERRORS = Pattern.compile(
            "^\\s+Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)", Pattern.MULTILINE);
    private static final Pattern NON_2XX = Pattern.compile("^\\s+Non-2xx or 3xx responses: (\\d+)", Pattern.MULTILINE);

    private WrkReport() {
    }

    static int run(Options options, PrintStream out) throws IOException {
        Path input = options.path("input");
        if (input == null) {
            throw new IllegalArgumentException("--input is required (the saved output of wrk --latency)");
        }
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("connections", options.integer("connections", 100, 1, 1_000_000));
        params.put("threads", options.integer("threads", 2, 1, 1024));
        params.put("seconds", options.integer("seconds", 10, 1, 3600));
        Path serverStderr = options.path("server-stderr");
        Detections detections = serverStderr == null ? null
                : Detections.read(serverStderr, Detections.Tool.named(options.string("detector", "loopdiag")));
        if (detections != null) {
            params.put("detections", detections.count());
        }
        Cpu cpu = new Cpu(options.decimal("server-cpu-seconds"), options.decimal("client-cpu-seconds"),
                options.decimal("machine-cpu-seconds"));
        List<Measurement> lines = parse(Files.readString(input), options.string("subject", "unknown"),
                options.string("variant", "default"), params, cpu, detections, options.string("context", null));
        lines.forEach(line -> out.println(line.toJson()));
        out.flush();
        return lines.get(0).error() == null ? Main.EXIT_OK : Main.EXIT_FAILED;
    }

    /** CPU seconds over the wrk run, each null when unknown: the server's, wrk's, and the whole machine's busy time. */
    record Cpu(Double serverSeconds, Double clientSeconds, Double machineSeconds) {
        static final Cpu UNKNOWN = new Cpu(null, null, null);

        /** The note's CPU sentence for a run of {@code elapsedSeconds}, or null if nothing is known. */
        String describe(double elapsedSeconds) {
            if (serverSeconds == null && clientSeconds == null) {
                return null;
            }
            StringBuilder cpu = new StringBuilder("CPU over the run (2 cores shared by server and client):");
            if (serverSeconds != null) {
                cpu.append(String.format(" server %.2f cores,", serverSeconds / elapsedSeconds));
            }
            if (clientSeconds != null) {
                cpu.append(String.format(" wrk %.2f cores,", clientSeconds / elapsedSeconds));
            }
            if (machineSeconds != null && serverSeconds != null && clientSeconds != null) {
                double rest = Math.max(0, machineSeconds - serverSeconds - clientSeconds);
                cpu.append(String.format(" rest of the machine %.2f cores,", rest / elapsedSeconds));
            }
            cpu.setLength(cpu.length() - 1);
            return cpu.toString();
        }
    }

    static List<Measurement> parse(String wrk, String subject, String variant, Map<String, Object> params,
                                   Cpu cpu, Detections detections, String context) {
        Map<String, Object> p50 = Measurement.with(params, "percentile", 50);
        Map<String, Object> p99 = Measurement.with(params, "percentile", 99);
        Matcher rate = REQUESTS_PER_SECOND.matcher(wrk);
        Matcher total = TOTAL.matcher(wrk);
        Map<String, Double> percentileMicros = new LinkedHashMap<>();
        Matcher percentile = PERCENTILE.matcher(wrk);
        while (percentile.find()) {
            percentileMicros.put(percentile.group(1), micros(percentile.group(2), percentile.group(3)));
        }

        List<String> notes = new ArrayList<>();
        notes.add("wrk closed loop, latency as wrk measures it");
        String error = null;
        if (!rate.find() || !total.find() || !percentileMicros.containsKey("50") || !percentileMicros.containsKey("99")) {
            error = "not the output of wrk --latency: " + firstLines(wrk);
        } else {
            long requests = Long.parseLong(total.group(1));
            double elapsedSeconds = micros(total.group(2), total.group(3)) / 1e6;
            if (requests == 0) {
                error = "wrk completed no request";
            }
            String cpuNote = cpu.describe(elapsedSeconds);
            if (cpuNote != null) {
                notes.add(cpuNote);
            }
        }
        Matcher socketErrors = SOCKET_ERRORS.matcher(wrk);
        if (socketErrors.find()) {
            notes.add("wrk socket errors: connect " + socketErrors.group(1) + ", read " + socketErrors.group(2)
                    + ", write " + socketErrors.group(3) + ", timeout " + socketErrors.group(4));
        }
        Matcher non2xx = NON_2XX.matcher(wrk);
        if (non2xx.find()) {
            notes.add(non2xx.group(1) + " answers were not 2xx/3xx");
        }
        if (detections != null && detections.problem() != null) {
            notes.add(detections.problem());
            if (!detections.loaded() && error == null) {
                error = detections.problem();
            }
        }
        if (context != null) {
            notes.add(context);
        }
        String note = String.join("; ", notes);
        if (error != null) {
            return List.of(
                    Measurement.failed(WORKLOAD, subject, variant, "req/s", error, params, note),
                    Measurement.failed(WORKLOAD, subject, variant, "us", error, p50, note),
                    Measurement.failed(WORKLOAD, subject, variant, "us", error, p99, note));
        }
        return List.of(
                Measurement.of(WORKLOAD, subject, variant, "req/s", Math.round(Double.parseDouble(rate.group(1))), params, note),
                Measurement.of(WORKLOAD, subject, variant, "us", percentileMicros.get("50"), p50, note),
                Measurement.of(WORKLOAD, subject, variant, "us", percentileMicros.get("99"), p99, note));
    }

    /** wrk's durations ({@code 812.00us}, {@code 1.23ms}, {@code 10.01s}, {@code 1.50m}) in microseconds. */
    static double micros(String value, String unit) {
        double number = Double.parseDouble(value);
        return switch (unit) {
            case "us" -> number;
            case "ms" -> number * 1e3;
            case "s" -> number * 1e6;
            case "m" -> number * 60e6;
            default -> throw new IllegalArgumentException("unknown wrk unit " + unit);
        };
    }

    private static String firstLines(String text) {
        String trimmed = text.strip();
        if (trimmed.isEmpty()) {
            return "(empty)";
        }
        List<String> lines = trimmed.lines().limit(2).toList();
        return String.join(" | ", lines);
    }
}
