package io.loopdiag.bench.network;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One line of the benchmarks' shared JSON Lines format:
 * {@code {"workload", "subject", "variant", "metric", "median", "error", "samples", "params", "note"}}
 * in that order. A failed measurement has a null median, no samples and the reason in {@code error}.
 */
record Measurement(String workload, String subject, String variant, String metric, List<Double> samples,
                   String error, Map<String, Object> params, String note) {

    static Measurement of(String workload, String subject, String variant, String metric, double value,
                          Map<String, Object> params, String note) {
        return new Measurement(workload, subject, variant, metric, List.of(value), null, params, note);
    }

    static Measurement failed(String workload, String subject, String variant, String metric, String error,
                              Map<String, Object> params, String note) {
        return new Measurement(workload, subject, variant, metric, List.of(), error, params, note);
    }

    /** The params with one more entry, for the latency lines ({@code percentile}). */
    static Map<String, Object> with(Map<String, Object> params, String key, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>(params);
        copy.put(key, value);
        return copy;
    }

    /** The median of the samples (the mean of the middle two for an even count), or null for none. */
    Double median() {
        if (samples.isEmpty()) {
            return null;
        }
        double[] sorted = samples.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    String toJson() {
        StringBuilder json = new StringBuilder(256).append('{');
        field(json, "workload").append(string(workload)).append(", ");
        field(json, "subject").append(string(subject)).append(", ");
        field(json, "variant").append(string(variant)).append(", ");
        field(json, "metric").append(string(metric)).append(", ");
        field(json, "median").append(number(median())).append(", ");
        field(json, "error").append(string(error)).append(", ");
        field(json, "samples").append('[');
        for (int i = 0; i < samples.size(); i++) {
            json.append(i == 0 ? "" : ", ").append(number(samples.get(i)));
        }
        json.append("], ");
        field(json, "params").append('{');
        boolean first = true;
        for (Map.Entry<String, Object> entry : params.entrySet()) {
            json.append(first ? "" : ", ").append(string(entry.getKey())).append(": ").append(value(entry.getValue()));
            first = false;
        }
        json.append("}, ");
        field(json, "note").append(string(note));
        return json.append('}').toString();
    }

    private static StringBuilder field(StringBuilder json, String name) {
        return json.append('"').append(name).append("\": ");
    }

    private static String value(Object value) {
        if (value instanceof Number number) {
            return number(number.doubleValue());
        }
        if (value instanceof Boolean bool) {
            return bool.toString();
        }
        return string(value == null ? null : value.toString());
    }

    /** Whole numbers without a fraction; others to 0.1 (microseconds to a tenth, rates to a tenth of one per second). */
    static String number(Double value) {
        if (value == null || !Double.isFinite(value)) {
            return "null";
        }
        double rounded = Math.round(value * 10) / 10.0;
        if (rounded == Math.rint(rounded) && Math.abs(rounded) < 1e15) {
            return Long.toString((long) rounded);
        }
        return Double.toString(rounded);
    }

    static String string(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder json = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"').toString();
    }
}
