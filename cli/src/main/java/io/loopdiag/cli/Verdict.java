package io.loopdiag.cli;

import io.loopdiag.protocol.Kind;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The CI verdict on a set of reports, shared by {@code check} and {@code run}: a summary per kind,
 * the baseline, the JUnit XML and SARIF files, and the exit code (1 when a finding of a failing
 * kind is not in the baseline).
 */
final class Verdict {
    /** Findings shown per kind; the files hold them all. */
    static final int SHOWN_PER_KIND = 5;

    /** One finding and how the gate judges it. */
    record Judged(Reports.Finding finding, boolean failing, boolean inBaseline) {
        boolean fails() {
            return failing && !inBaseline;
        }
    }

    private Verdict() {
    }

    /** The report files named by {@code paths}: files as given, folders as the {@code *.json} files in them. */
    static List<Path> reportFiles(List<Path> paths) throws Reports.Unreadable {
        List<Path> files = new ArrayList<>();
        for (Path path : paths) {
            if (Files.isDirectory(path)) {
                try (Stream<Path> inside = Files.list(path)) {
                    inside.filter(p -> p.getFileName().toString().endsWith(".json") && Files.isRegularFile(p)).sorted().forEach(files::add);
                } catch (IOException e) {
                    throw new Reports.Unreadable(path + ": cannot be listed (" + e.getMessage() + ")");
                }
            } else {
                files.add(path);
            }
        }
        return files;
    }

    /** Reads {@code reports}, prints the summary, writes the files asked for; returns the exit code. */
    static int judge(List<Path> reports, CheckOptions options, PrintWriter out, PrintWriter err) {
        List<Judged> judged;
        try {
            List<Reports.Finding> findings = Reports.read(reports);
            Set<String> baseline = options.baseline != null ? Baseline.read(options.baseline) : Set.of();
            judged = new ArrayList<>();
            for (Reports.Finding finding : findings) {
                judged.add(new Judged(finding, options.failOn.contains(finding.kind()), baseline.contains(finding.fingerprint())));
            }
        } catch (Reports.Unreadable e) {
            err.println("loopdiag: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        judged.sort(Comparator.comparing((Judged j) -> Kind.ids().indexOf(j.finding().kind()))
                .thenComparing(j -> -j.finding().count()));
        summarize(reports.size(), judged, options, out);
        try {
            if (options.junitXml != null) {
                JunitXml.write(options.junitXml, judged);
            }
            if (options.sarif != null) {
                Sarif.write(options.sarif, judged, Sources.under(options.sourceRoot), options.baseline != null, options.docsUrl);
            }
            if (options.writeBaseline != null) {
                Baseline.write(options.writeBaseline, judged.stream().map(Judged::finding).toList());
                out.println("baseline: " + plural(judged.size(), "finding") + " written to " + options.writeBaseline + "; only new ones will fail");
                out.flush();
                return ExitCodes.OK;
            }
        } catch (IOException | javax.xml.stream.XMLStreamException e) {
            err.println("loopdiag: cannot write the output file (" + e.getMessage() + ")");
            return ExitCodes.FINDINGS_OR_FAILURE;
        }
        out.flush();
        return judged.stream().anyMatch(Judged::fails) ? ExitCodes.FINDINGS_OR_FAILURE : ExitCodes.OK;
    }

    private static void summarize(int reportCount, List<Judged> judged, CheckOptions options, PrintWriter out) {
        Map<String, List<Judged>> byKind = new LinkedHashMap<>();
        judged.forEach(j -> byKind.computeIfAbsent(j.finding().kind(), k -> new ArrayList<>()).add(j));
        StringBuilder counts = new StringBuilder();
        byKind.forEach((kind, list) -> counts.append(counts.isEmpty() ? ": " : ", ").append(list.size()).append(' ').append(kind));
        out.println("loopdiag check: " + plural(reportCount, "report") + ", "
                + (judged.isEmpty() ? "no findings" : plural(judged.size(), "finding") + counts));
        byKind.forEach((kind, list) -> {
            long occurrences = list.stream().mapToLong(j -> j.finding().count()).sum();
            out.println();
            out.println(kind + " (" + plural(list.size(), "finding") + ", " + plural(occurrences, "occurrence")
                    + (options.failOn.contains(kind) ? "" : "; does not fail the check") + "):");
            for (Judged j : list.subList(0, Math.min(SHOWN_PER_KIND, list.size()))) {
                Reports.Finding finding = j.finding();
                String tags = (finding.count() > 1 ? finding.count() + " times" : "")
                        + (j.inBaseline() ? (finding.count() > 1 ? ", " : "") + "in the baseline" : "");
                out.println("  " + Text.printable(finding.message()) + (tags.isEmpty() ? "" : " [" + tags + "]"));
                if (finding.frame() != null && !finding.message().contains(finding.frame().text())) {
                    out.println("    at " + Text.printable(finding.frame().text()));
                }
            }
            if (list.size() > SHOWN_PER_KIND) {
                out.println("  ... and " + (list.size() - SHOWN_PER_KIND) + " more in the reports");
            }
        });
        if (options.writeBaseline != null) {
            return; // the baseline line says what happens to them
        }
        out.println();
        long failing = judged.stream().filter(Judged::fails).count();
        long accepted = judged.stream().filter(j -> j.failing() && j.inBaseline()).count();
        String kinds = " of a failing kind (" + String.join(", ", options.failOn) + ")";
        if (failing > 0) {
            out.println(Terminal.colour("FAILED: " + plural(failing, "finding") + kinds + (options.baseline != null ? " not in the baseline" : ""),
                    Terminal.RED));
        } else {
            out.println(Terminal.colour("OK: no finding" + kinds + (accepted > 0 ? " beyond the " + accepted + " in the baseline" : ""),
                    Terminal.GREEN));
        }
    }

    private static String plural(long count, String noun) {
        return count + " " + noun + (count == 1 ? "" : "s");
    }
}
