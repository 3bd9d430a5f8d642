package io.loopdiag.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An application with the agent (Failsafe's JVM, started with {@code -javaagent:} the packaged
 * agent, {@code log=off,slow=1s}) binds {@link LoopdiagMetrics} to Micrometer's Prometheus
 * registry; the scraped text must carry the loop's series with the values the agent has, come
 * with the loop and go with it.
 */
@Timeout(120)
class LoopdiagMetricsIT {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    @Test
    void aLoopsNumbersAreScrapedAsTheAgentHasThemAndGoWithTheLoop() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LoopdiagMetrics metrics = new LoopdiagMetrics()) {
            metrics.bindTo(registry); // before the loop exists: its meters come with its bean
            EventLoop loop = new EventLoop("metrics-it", LoopClock.SYSTEM);
            Thread runner = new Thread(loop::runForever, "metrics-it-runner");
            runner.start();
            for (int i = 0; i < 3; i++) {
                loop.callSoonThreadsafe(() -> loop.callLater(Duration.ofHours(1), () -> { }));
            }
            for (int i = 0; i < 96; i++) {
                loop.callSoonThreadsafe(() -> { });
            }
            loop.callSoonThreadsafe(LoopdiagMetricsIT::sleepOnTheLoop); // one blocking call: a finding
            ObjectName bean = new ObjectName("io.loopdiag:type=Loop,name=\"metrics-it\"");
            awaitUnits(bean, 100);
            Map<String, Double> loopSeries = Map.of();
            Map<String, Double> agentSaw = Map.of("", 0.0);
            for (int attempt = 0; attempt < 50 && !same(loopSeries, agentSaw); attempt++) {
                // The numbers roll once a second: a scrape between two equal reads of the bean must show them.
                Map<String, Double> before = read(bean);
                String scrape = registry.scrape();
                agentSaw = read(bean);
                loopSeries = before.equals(agentSaw) ? loopSeries(scrape) : Map.of();
            }
            assertTrue(same(loopSeries, agentSaw), "the scraped series hold the agent's numbers: " + loopSeries + " against " + agentSaw);
            assertEquals(100.0, loopSeries.get("loopdiag_loop_units_total"), "100 callbacks, the agent's probes left out");
            assertEquals(3.0, loopSeries.get("loopdiag_loop_timers"), "three timers an hour away");

            String scrape = registry.scrape();
            assertEquals(1.0, value(scrape, "loopdiag_findings_total", Map.of("kind", "blocking-call")), scrape);
            assertEquals(0.0, value(scrape, "loopdiag_findings_total", Map.of("kind", "slow-callback")),
                    "every kind is a series, none yet included: " + scrape);
            assertTrue(scrape.contains("# HELP loopdiag_loop_lag_p99_seconds "), "described: " + scrape);

            loop.callSoonThreadsafe(loop::stop);
            runner.join();
            loop.close();
            // The MBean server tells its listeners after the bean is gone, on the unregistering
            // thread: the binder may still be removing the meters when the bean is no longer there.
            String afterClose = registry.scrape();
            for (int attempt = 0; attempt < 100 && afterClose.contains("loop=\"metrics-it\""); attempt++) {
                Thread.sleep(100);
                afterClose = registry.scrape();
            }
            assertFalse(SERVER.isRegistered(bean), "the closed loop's bean is gone");
            assertFalse(afterClose.contains("loop=\"metrics-it\""), "a closed loop's series are gone: " + afterClose);
            assertTrue(afterClose.contains("loopdiag_findings_total"), "the agent's stay: " + afterClose);
        }
        assertFalse(registry.scrape().contains("loopdiag_"), "closing the binder removes its meters");
    }

    private static void sleepOnTheLoop() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitUnits(ObjectName bean, long units) throws Exception {
        while (!SERVER.isRegistered(bean) || (Long) SERVER.getAttribute(bean, "Units") < units) {
            Thread.sleep(100);
        }
    }

    /** Whether both have the same series, of the same values but for the rounding of a conversion to seconds. */
    private static boolean same(Map<String, Double> scraped, Map<String, Double> agent) {
        if (!scraped.keySet().equals(agent.keySet())) {
            return false;
        }
        for (Map.Entry<String, Double> series : agent.entrySet()) {
            double expected = series.getValue();
            if (Math.abs(scraped.get(series.getKey()) - expected) > 1e-9 * Math.max(1, Math.abs(expected))) {
                return false;
            }
        }
        return true;
    }

    /** The bean's numbers under the Prometheus names the binder's meters get. */
    private static Map<String, Double> read(ObjectName bean) throws Exception {
        Map<String, Double> numbers = new HashMap<>();
        numbers.put("loopdiag_loop_lag_p50_seconds", (Double) SERVER.getAttribute(bean, "LagP50Millis") / 1000);
        numbers.put("loopdiag_loop_lag_p99_seconds", (Double) SERVER.getAttribute(bean, "LagP99Millis") / 1000);
        numbers.put("loopdiag_loop_lag_max_seconds", (Double) SERVER.getAttribute(bean, "LagMaxMillis") / 1000);
        numbers.put("loopdiag_loop_utilization", (Double) SERVER.getAttribute(bean, "Utilization"));
        numbers.put("loopdiag_loop_units_total", ((Long) SERVER.getAttribute(bean, "Units")).doubleValue());
        numbers.put("loopdiag_loop_ready", ((Long) SERVER.getAttribute(bean, "Ready")).doubleValue());
        numbers.put("loopdiag_loop_timers", ((Long) SERVER.getAttribute(bean, "Timers")).doubleValue());
        numbers.put("loopdiag_loop_tasks", ((Long) SERVER.getAttribute(bean, "Tasks")).doubleValue());
        numbers.put("loopdiag_loop_tasks_suspended", ((Long) SERVER.getAttribute(bean, "SuspendedTasks")).doubleValue());
        return numbers;
    }

    /** The scraped series of the loop {@code metrics-it}, by name: each must carry its kind. */
    private static Map<String, Double> loopSeries(String scrape) {
        Map<String, Double> series = new HashMap<>();
        for (String line : scrape.split("\n")) {
            Matcher matcher = SERIES.matcher(line);
            if (matcher.matches() && "metrics-it".equals(labels(matcher.group(2)).get("loop"))) {
                assertEquals("loop-core", labels(matcher.group(2)).get("kind"), line);
                series.put(matcher.group(1), Double.parseDouble(matcher.group(3)));
            }
        }
        return series;
    }

    /** The value of the series {@code metric} whose labels include {@code labels}. */
    private static double value(String scrape, String metric, Map<String, String> labels) {
        for (String line : scrape.split("\n")) {
            Matcher matcher = SERIES.matcher(line);
            if (matcher.matches() && matcher.group(1).equals(metric)
                    && labels(matcher.group(2)).entrySet().containsAll(labels.entrySet())) {
                return Double.parseDouble(matcher.group(3));
            }
        }
        throw new AssertionError("no series " + metric + labels + " in:\n" + scrape);
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> labels = new HashMap<>();
        if (text != null) {
            Matcher matcher = LABEL.matcher(text);
            while (matcher.find()) {
                labels.put(matcher.group(1), matcher.group(2));
            }
        }
        return labels;
    }
}
