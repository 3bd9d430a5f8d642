package io.loopdiag.bench.network;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code soak}: test-apps' {@code soak-server} with the agent for N minutes, under a paced echo
 * load ({@link EchoLoad.Run}), while its injector blocks the loop once a second from fixed call
 * sites. Every {@code --sample-seconds} it forces a GC in the server and reads its heap
 * ({@code jcmd PID GC.run}, {@code GC.heap_info}) and the agent's report (distinct findings,
 * occurrences). At the end it checks that the heap after GC is flat (last minute against the
 * first), that the report holds exactly the findings injected, never more, each counted as often
 * as the injector says it did it, and that every echo came back right. Prints a summary and
 * writes it as Markdown. Exit codes: 0 every check held, 1 one failed or the run broke, 2 usage.
 */
final class Soak {
    static final String[] OPTIONS = {"minutes", "apps", "agent", "out", "rate", "connections", "sample-seconds", "slow-ms"};
    private static final Pattern LISTENING = Pattern.compile("soak-server listening on 127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern INJECTED = Pattern.compile("soak-server injected (\\S+) (\\S+) (\\d+)");
    private static final Pattern HEAP_USED = Pattern.compile("heap .*used (\\d+)K");
    private static final String SITE_CLASS = "io.loopdiag.apps.SoakServer.";
    /** The injector stops this long before the load, so that its last calls are in the report when it is read. */
    private static final int INJECTOR_MARGIN_SECONDS = 10;
    /** Heap after GC is flat if the last minute's median is at most this much above the first minute's. */
    private static final double FLAT_HEAP_FRACTION = 0.10;
    private static final long FLAT_HEAP_SLACK_KB = 1024;
    private static final String ALL_HELD = "All checks held.\n";

    /** One sample: seconds since the load started, heap used after a full GC, the report's findings then. */
    record Sample(long seconds, long heapKb, int distinct, long occurrences) {
    }

    private record Check(String name, boolean ok, String figures) {
    }

    private Soak() {
    }

    static int run(Options options, PrintStream out, PrintStream err) throws Exception {
        int minutes = options.integer("minutes", 10, 1, 600);
        Path apps = options.path("apps");
        Path agent = options.path("agent");
        if (apps == null || agent == null) {
            throw new IllegalArgumentException("--apps TEST_APPS_JAR and --agent AGENT_JAR are required");
        }
        Path outFile = options.path("out");
        int rate = options.integer("rate", 2000, 1, 1_000_000);
        int connections = options.integer("connections", 50, 1, 10_000);
        int sampleSeconds = options.integer("sample-seconds", 10, 1, 600);
        // The agent's slow limit; the injected slow callback lasts three times as long. 250 ms rather
        // than the default 100, so that the two cores shared with the load client (and whatever else
        // runs) rarely hold a healthy callback that long: such a finding is listed as not injected.
        int slowMillis = options.integer("slow-ms", 250, 1, 60_000);
        int seconds = minutes * 60;

        Path work = Files.createTempDirectory("loopdiag-soak");
        Path report = work.resolve("report.json");
        String java = ProcessHandle.current().info().command().orElseThrow();
        String jcmd = Path.of(java).resolveSibling("jcmd").toString();
        Path safepoints = work.resolve("safepoints.log");
        List<String> command = List.of(java, "-Xlog:safepoint:file=" + safepoints + ":uptime",
                "-javaagent:" + agent.toAbsolutePath() + "=slow=" + slowMillis + "ms,report=" + report,
                "-jar", apps.toAbsolutePath().toString(), "soak-server", "--port", "0", "--slow-ms", String.valueOf(3 * slowMillis),
                "--inject-seconds", String.valueOf(Math.max(1, seconds - INJECTOR_MARGIN_SECONDS)));
        Process server = new ProcessBuilder(command).redirectError(work.resolve("stderr.txt").toFile()).start();
        try {
            List<String> lines = new CopyOnWriteArrayList<>();
            CompletableFuture<Integer> port = new CompletableFuture<>();
            CompletableFuture<Void> injectorDone = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> readLines(server, lines, port, injectorDone));
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", port.get(60, TimeUnit.SECONDS));
            err.printf("soak: server pid %d on %s; %d min, echo at %d msg/s over %d connections, a sample every %d s%n",
                    server.pid(), address, minutes, rate, connections, sampleSeconds);

            EchoLoad.Run load = new EchoLoad.Run(address, connections, 64, server.pid(), rate);
            CompletableFuture<EchoLoad.Result> loadResult = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    loadResult.complete(load.measure(0, seconds, err));
                } catch (Throwable e) {
                    loadResult.completeExceptionally(e);
                }
            });

            String loadBefore = loadAverage();
            List<Sample> samples = new ArrayList<>();
            long start = System.nanoTime();
            long next = start;
            while (!loadResult.isDone()) {
                next += TimeUnit.SECONDS.toNanos(sampleSeconds);
                while (!loadResult.isDone() && System.nanoTime() < next) {
                    Thread.sleep(Math.max(1, Math.min(200, (next - System.nanoTime()) / 1_000_000)));
                }
                Sample sample = sample(jcmd, server.pid(), report, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
                samples.add(sample);
                err.printf("soak: %4d s  heap after GC %,d KB  findings %d  occurrences %d%n",
                        sample.seconds(), sample.heapKb(), sample.distinct(), sample.occurrences());
            }
            String loadFailure = null;
            EchoLoad.Result echoes = null;
            try {
                echoes = loadResult.join();
            } catch (Exception e) {
                loadFailure = String.valueOf(e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
            }
            injectorDone.get(60, TimeUnit.SECONDS);
            Thread.sleep(2_500); // the agent rewrites its report within a second of a detection
            Map<String, Long> injected = injected(lines);
            Map<String, Long> live = findings(report);

            server.destroy(); // SIGTERM: the agent writes the report once more at exit
            server.waitFor(30, TimeUnit.SECONDS);
            Map<String, Long> atExit = findings(report);

            String setting = String.format("`bench/soak/run --minutes %d`: echo paced at %d msg/s over %d connections (64 B);"
                    + " agent `slow=%dms`; the injector blocks the loop once a second from 5 call sites, every 10th time"
                    + " with a %d ms slow callback instead. Each sample forces a GC in the server (`jcmd PID GC.run`) and"
                    + " reads `GC.heap_info` and the agent's report. Load average (1 min) at the start %s, at the end %s."
                    + " The server's longest safepoint pause: %s.",
                    minutes, rate, connections, slowMillis, 3 * slowMillis, loadBefore, loadAverage(), longestSafepoint(safepoints));
            String summary = summary(minutes, setting, samples, injected, live, atExit, echoes, loadFailure);
            out.print(summary);
            out.flush();
            if (outFile != null) {
                Files.createDirectories(outFile.toAbsolutePath().getParent());
                Files.writeString(outFile, summary);
                err.println("soak: summary written to " + outFile);
            }
            return summary.endsWith(ALL_HELD) ? Main.EXIT_OK : Main.EXIT_FAILED;
        } finally {
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void readLines(Process server, List<String> lines, CompletableFuture<Integer> port,
                                  CompletableFuture<Void> injectorDone) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
                Matcher listening = LISTENING.matcher(line);
                if (listening.matches()) {
                    port.complete(Integer.parseInt(listening.group(1)));
                } else if (line.equals("soak-server injector done")) {
                    injectorDone.complete(null);
                }
            }
        } catch (IOException e) {
            // the server is gone: the futures below say so
        }
        port.completeExceptionally(new IOException("the soak server ended without printing its port"));
        injectorDone.completeExceptionally(new IOException("the soak server ended before its injector was done"));
    }

    private static Sample sample(String jcmd, long pid, Path report, long seconds) throws IOException, InterruptedException {
        jcmd(jcmd, pid, "GC.run");
        Matcher used = HEAP_USED.matcher(jcmd(jcmd, pid, "GC.heap_info"));
        long heapKb = used.find() ? Long.parseLong(used.group(1)) : -1;
        Map<String, Long> findings = findings(report);
        return new Sample(seconds, heapKb, findings.size(), findings.values().stream().mapToLong(Long::longValue).sum());
    }

    private static String jcmd(String jcmd, long pid, String command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(jcmd, String.valueOf(pid), command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor(30, TimeUnit.SECONDS);
        return output;
    }

    /** What the injector says it did: {@code KIND SITE} to its count. */
    static Map<String, Long> injected(List<String> lines) {
        Map<String, Long> injected = new TreeMap<>();
        for (String line : lines) {
            Matcher matcher = INJECTED.matcher(line);
            if (matcher.matches()) {
                injected.put(matcher.group(1) + " " + shortSite(matcher.group(2)), Long.parseLong(matcher.group(3)));
            }
        }
        return injected;
    }

    /**
     * The report's findings as {@code KIND SITE} to count, SITE the soak server's method on the
     * stack; a finding without one (not injected) is keyed by its message. An unreadable report
     * counts as empty here and fails the checks.
     */
    static Map<String, Long> findings(Path report) throws IOException {
        Map<String, Long> findings = new TreeMap<>();
        if (!Files.isRegularFile(report)) {
            return findings;
        }
        JsonNode root = new ObjectMapper().readTree(report.toFile());
        if (root.path("dropped").asLong() > 0) {
            findings.put("dropped (past the agent's bound)", root.path("dropped").asLong());
        }
        for (JsonNode detection : root.path("detections")) {
            String site = null;
            for (JsonNode frame : detection.path("stack")) {
                if (frame.asText().startsWith(SITE_CLASS)) {
                    site = shortSite(frame.asText().replaceAll("\\(.*", ""));
                    break;
                }
            }
            String key = detection.path("kind").asText() + " " + (site != null ? site : "(not injected) " + detection.path("message").asText());
            findings.merge(key, detection.path("count").asLong(), Long::sum);
        }
        return findings;
    }

    private static String shortSite(String site) {
        return site.startsWith(SITE_CLASS) ? "SoakServer." + site.substring(SITE_CLASS.length()) : site;
    }

    /** The Markdown summary; {@code setting} says how the run was made. Ends with {@link #ALL_HELD} if every check held. */
    static String summary(int minutes, String setting, List<Sample> samples, Map<String, Long> injected,
                          Map<String, Long> live, Map<String, Long> atExit, EchoLoad.Result echoes, String loadFailure) {
        StringBuilder md = new StringBuilder();
        md.append("# Soak: soak-server with the agent, ").append(minutes).append(" min (").append(LocalDate.now()).append(")\n\n");
        md.append(setting).append("\n\n");
        md.append("| minute | heap used after GC | distinct findings | occurrences |\n| ---: | ---: | ---: | ---: |\n");
        for (int minute = 1; minute <= minutes; minute++) {
            Sample last = null;
            for (Sample sample : samples) {
                if (sample.seconds() <= minute * 60L + 5) {
                    last = sample;
                }
            }
            if (last != null) {
                md.append(String.format("| %d | %.1f MB | %d | %d |%n", minute, last.heapKb() / 1024.0, last.distinct(), last.occurrences()));
            }
        }

        List<Check> checks = new ArrayList<>();
        long first = median(samples.stream().filter(s -> s.seconds() <= 60).map(Sample::heapKb).toList());
        long lastMinute = median(samples.stream().filter(s -> s.seconds() >= minutes * 60L - 60).map(Sample::heapKb).toList());
        boolean flat = first > 0 && lastMinute > 0 && lastMinute <= first * (1 + FLAT_HEAP_FRACTION) + FLAT_HEAP_SLACK_KB;
        checks.add(new Check("heap after GC is flat", flat, String.format(
                "median of the first minute %.1f MB, of the last minute %.1f MB (%+.1f%%; flat: at most +10%% or +1 MB)",
                first / 1024.0, lastMinute / 1024.0, first > 0 ? 100.0 * (lastMinute - first) / first : 0)));

        int maxDistinct = samples.stream().mapToInt(Sample::distinct).max().orElse(0);
        boolean storeFlat = !injected.isEmpty() && live.size() == injected.size() && maxDistinct <= injected.size();
        checks.add(new Check("detection store is flat", storeFlat, "injected " + injected.size()
                + " distinct findings; the report holds " + live.size() + ", at most " + maxDistinct + " in any sample"));

        checks.add(new Check("every finding counted as injected", injected.equals(live),
                mismatches(injected, live)));
        checks.add(new Check("report at exit the same", injected.equals(atExit), mismatches(injected, atExit)));
        boolean loadOk = loadFailure == null && echoes != null && echoes.messages() > 0;
        checks.add(new Check("every echo came back right", loadOk, loadFailure != null ? loadFailure
                : echoes == null ? "no result" : String.format("%,d echoes (%.0f/s), p99 %,d us", echoes.messages(),
                echoes.messagesPerSecond(), Math.round(echoes.latency().percentileNanos(99) / 1000))));

        md.append("\n| check | result | figures |\n| --- | --- | --- |\n");
        boolean all = true;
        for (Check check : checks) {
            md.append("| ").append(check.name()).append(" | ").append(check.ok() ? "ok" : "**FAIL**")
                    .append(" | ").append(check.figures()).append(" |\n");
            all &= check.ok();
        }
        md.append("\nInjected (kind, site: count): ");
        List<String> parts = new ArrayList<>();
        injected.forEach((key, count) -> parts.add(key + ": " + count));
        md.append(String.join("; ", parts)).append("\n\n").append(all ? ALL_HELD : "**FAILED**\n");
        return md.toString();
    }

    /**
     * The longest stop of all the server's threads ({@code -Xlog:safepoint}: a GC, a jcmd), with
     * its operation and time since the JVM started, to tell such a pause from the agent's findings.
     */
    static String longestSafepoint(Path log) {
        Pattern line = Pattern.compile("^\\[([0-9.]+)s\\].*Safepoint \"([^\"]+)\".*Total: (\\d+) ns");
        long longest = -1;
        String which = "none logged";
        try {
            for (String text : Files.readAllLines(log)) {
                Matcher matcher = line.matcher(text);
                if (matcher.find() && Long.parseLong(matcher.group(3)) > longest) {
                    longest = Long.parseLong(matcher.group(3));
                    which = String.format("%.1f ms (%s, at %s s)", longest / 1e6, matcher.group(2), matcher.group(1));
                }
            }
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
        return which;
    }

    /** The machine's 1-minute load average (other processes compete for the same cores), or "?" off Linux. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String mismatches(Map<String, Long> injected, Map<String, Long> found) {
        List<String> out = new ArrayList<>();
        injected.forEach((key, count) -> {
            Long got = found.get(key);
            if (!count.equals(got)) {
                out.add(key + ": injected " + count + ", report " + (got == null ? "none" : got));
            }
        });
        found.forEach((key, count) -> {
            if (!injected.containsKey(key)) {
                out.add("not injected: " + key + " x" + count);
            }
        });
        return out.isEmpty() ? "all " + injected.size() + " match" : String.join("; ", out);
    }

    private static long median(List<Long> values) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
