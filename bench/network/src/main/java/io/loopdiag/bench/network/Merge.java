package io.loopdiag.bench.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code merge}: reads the JSON lines of several rounds from stdin and prints one line per
 * measurement with every round's value in {@code samples} and their median in {@code median}.
 * Lines are the same measurement when workload, subject, variant, metric and params (but
 * {@code detections}, which is summed) agree; the order of first appearance is kept. A round that
 * failed adds its error to the note; only a measurement with no sample at all is an error.
 */
final class Merge {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DETECTIONS = "detections";

    private Merge() {
    }

    static int run(InputStream in, PrintStream out) throws IOException {
        List<Measurement> lines = new ArrayList<>();
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        String line;
        int number = 0;
        while ((line = reader.readLine()) != null) {
            number++;
            if (!line.isBlank()) {
                try {
                    lines.add(parse(JSON.readTree(line)));
                } catch (IOException | RuntimeException e) {
                    throw new IllegalArgumentException("line " + number + " is not a measurement: " + e.getMessage());
                }
            }
        }
        List<Measurement> merged = merge(lines);
        merged.forEach(measurement -> out.println(measurement.toJson()));
        out.flush();
        return merged.stream().allMatch(measurement -> measurement.error() == null) ? Main.EXIT_OK : Main.EXIT_FAILED;
    }

    static List<Measurement> merge(List<Measurement> lines) {
        Map<String, List<Measurement>> rounds = new LinkedHashMap<>();
        for (Measurement line : lines) {
            rounds.computeIfAbsent(key(line), k -> new ArrayList<>()).add(line);
        }
        List<Measurement> merged = new ArrayList<>();
        for (List<Measurement> same : rounds.values()) {
            merged.add(same.size() == 1 ? same.get(0) : combine(same));
        }
        return merged;
    }

    private static Measurement combine(List<Measurement> rounds) {
        Measurement first = rounds.get(0);
        List<Double> samples = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        long detections = 0;
        boolean anyDetections = false;
        for (int i = 0; i < rounds.size(); i++) {
            Measurement round = rounds.get(i);
            samples.addAll(round.samples());
            if (round.params().get(DETECTIONS) instanceof Number count) {
                detections += count.longValue();
                anyDetections = true;
            }
            String note = round.error() == null ? round.note() : "failed: " + round.error();
            if (note != null) {
                notes.add("round " + (i + 1) + ": " + note);
            }
            if (round.error() != null) {
                errors.add(round.error());
            }
        }
        Map<String, Object> params = new LinkedHashMap<>(first.params());
        if (anyDetections) {
            params.put(DETECTIONS, detections);
        }
        String error = samples.isEmpty() ? String.join("; ", errors.stream().distinct().toList()) : null;
        return new Measurement(first.workload(), first.subject(), first.variant(), first.metric(), samples, error,
                params, notes.isEmpty() ? null : String.join(" | ", notes));
    }

    private static String key(Measurement line) {
        Map<String, Object> params = new LinkedHashMap<>(line.params());
        params.remove(DETECTIONS);
        return String.join("\u0000", line.workload(), line.subject(), line.variant(), line.metric(), params.toString());
    }

    static Measurement parse(JsonNode json) {
        List<Double> samples = new ArrayList<>();
        json.required("samples").forEach(sample -> samples.add(sample.asDouble()));
        Map<String, Object> params = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : json.required("params").properties()) {
            JsonNode value = field.getValue();
            params.put(field.getKey(), value.isIntegralNumber() ? (Object) value.asLong()
                    : value.isNumber() ? (Object) value.asDouble() : value.asText());
        }
        return new Measurement(text(json, "workload"), text(json, "subject"), text(json, "variant"), text(json, "metric"),
                samples, text(json, "error"), params, text(json, "note"));
    }

    private static String text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }
}
