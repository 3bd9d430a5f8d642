package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.VirtualMachine;
import io.loopdiag.agent.support.LiveChild;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loops' health numbers, always on, read as their users read them: through the JDK's own JMX
 * client from another JVM, over the local connector the JDK starts for it, and from a JFR
 * recording. Of test-apps' half-busy, a loop that computes 200 ms and idles 200 ms over and over:
 * about 50% utilization, and units that start up to 200 ms late.
 */
@Timeout(120)
class HealthIT {
    private static final ObjectName LOOP = name("io.loopdiag:type=Loop,name=\"half-busy\"");
    private static final ObjectName AGENT = name("io.loopdiag:type=Agent");

    private static ObjectName name(String text) {
        try {
            return new ObjectName(text);
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A JMX connection to {@code pid} over the local connector the JDK starts on request (no port opened). */
    private static JMXConnector connect(long pid) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
        String address;
        try {
            address = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        return JMXConnectorFactory.connect(new JMXServiceURL(address));
    }

    /** Waits until the loop's bean shows {@code units} units run, about 2.5 a second: whole stretches, several intervals. */
    private static void awaitUnits(MBeanServerConnection jmx, long units) throws Exception {
        while (!jmx.isRegistered(LOOP) || (Long) jmx.getAttribute(LOOP, "Units") < units) {
            Thread.sleep(200);
        }
    }

    @Test
    void aLoopBusyHalfTheTimeShowsItThroughJmxFromAnotherJvm() throws Exception {
        try (LiveChild child = LiveChild.scenario("log=off,slow=1s", "half-busy")) {
            child.expectLine("half-busy ready");
            try (JMXConnector connector = connect(child.pid())) {
                MBeanServerConnection jmx = connector.getMBeanServerConnection();
                awaitUnits(jmx, 8);
                double utilization = (Double) jmx.getAttribute(LOOP, "Utilization");
                assertTrue(utilization > 0.35 && utilization < 0.65, "busy half the time: " + utilization);
                double lagMax = (Double) jmx.getAttribute(LOOP, "LagMaxMillis");
                assertTrue(lagMax >= 150 && lagMax < 400, "a probe posted as a 200 ms stretch begins waits for it: " + lagMax);
                long probes = (Long) jmx.getAttribute(LOOP, "LagSamples");
                assertTrue(probes >= 1 && probes < 20, "a probe as a stretch begins and one after it, about 5 a second,"
                        + " none while the loop idles (every 10 ms: about 50): " + probes);
                assertEquals("loop-core", jmx.getAttribute(LOOP, "Kind"));
                double perSecond = (Double) jmx.getAttribute(LOOP, "UnitsPerSecond");
                assertTrue(perSecond >= 1 && perSecond <= 5, "about 2.5 callbacks and timers a second, the probes left out: " + perSecond);
                assertEquals("slow=1000ms, blocking=warn", jmx.getAttribute(AGENT, "Options"));
                assertTrue(((String) jmx.getAttribute(AGENT, "Version")).startsWith("0."), "the agent's version");
                TabularData byKind = (TabularData) jmx.getAttribute(AGENT, "FindingsByKind");
                assertEquals(io.loopdiag.protocol.Kind.ids().size(), byKind.size(), "every kind: " + byKind);
                for (Object row : byKind.values()) {
                    assertEquals(0L, ((javax.management.openmbean.CompositeData) row).get("value"),
                            "a 200 ms callback under slow=1s is no finding: " + byKind);
                }
            }
        }
    }

    /** statistics=off: no probe, no bean (the agent's own included), no statistics in the dump. */
    @Test
    void withStatisticsOffThereAreNoBeans() throws Exception {
        try (LiveChild child = LiveChild.scenario("log=off,slow=1s,statistics=off", "half-busy")) {
            child.expectLine("half-busy ready");
            try (JMXConnector connector = connect(child.pid())) {
                MBeanServerConnection jmx = connector.getMBeanServerConnection();
                ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(jmx, ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
                List<String> names = new ArrayList<>();
                for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
                    if (info != null) {
                        names.add(info.getThreadName());
                    }
                }
                assertTrue(names.contains("loopdiag-watchdog"), "the agent runs: " + names);
                assertFalse(names.contains("loopdiag-jmx"), "the thread that keeps the beans never started: " + names);
                assertEquals(Set.of(), jmx.queryNames(new ObjectName("io.loopdiag:*"), null));
            }
        }
    }

    /**
     * test-apps' twin-loops: two open loops named "twin", the second with one blocking call. Each
     * has a bean, the second numbered, and the call counts on the second's alone.
     */
    @Test
    void twoLoopsOfOneNameHaveABeanEachThatCountsItsOwnFindings() throws Exception {
        try (LiveChild child = LiveChild.scenario("log=off", "twin-loops")) {
            child.expectLine("twin-loops ready");
            try (JMXConnector connector = connect(child.pid())) {
                MBeanServerConnection jmx = connector.getMBeanServerConnection();
                Map<String, Long> blockingCalls = Map.of();
                while (!blockingCalls.containsValue(1L)) { // until a bean counts the call
                    Thread.sleep(100);
                    blockingCalls = blockingCallsByLoop(jmx);
                }
                assertEquals(Map.of("twin", 0L, "twin (2)", 1L), blockingCalls);
            }
        }
    }

    /** Each loop bean's blocking calls, by the bean's Name. */
    private static Map<String, Long> blockingCallsByLoop(MBeanServerConnection jmx) throws Exception {
        Map<String, Long> byLoop = new TreeMap<>();
        for (ObjectName bean : jmx.queryNames(new ObjectName("io.loopdiag:type=Loop,*"), null)) {
            CompositeData row = ((TabularData) jmx.getAttribute(bean, "FindingsByKind")).get(new Object[] {"blocking-call"});
            byLoop.put((String) jmx.getAttribute(bean, "Name"), row == null ? 0L : (Long) row.get("value"));
        }
        return byLoop;
    }

    @Test
    void theSameNumbersAreAPeriodicJfrEvent(@TempDir Path dir) throws Exception {
        Path recording = dir.resolve("half-busy.jfr");
        try (LiveChild child = LiveChild.scenario("log=off,slow=1s", "half-busy",
                "-XX:StartFlightRecording=filename=" + recording, "-Xlog:jfr+startup=off")) {
            child.expectLine("half-busy ready");
            try (JMXConnector connector = connect(child.pid())) {
                awaitUnits(connector.getMBeanServerConnection(), 12);
            }
            ProcessHandle handle = ProcessHandle.of(child.pid()).orElseThrow();
            handle.destroy(); // SIGTERM: the JVM writes the recording as it exits
            handle.onExit().get(30, TimeUnit.SECONDS);
        }
        List<RecordedEvent> events = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
            if (event.getEventType().getName().equals("io.loopdiag.LoopStatistics") && event.getString("loop").equals("half-busy")) {
                events.add(event);
            }
        }
        assertTrue(events.size() >= 2, "one a second: " + events.size());
        events.sort(java.util.Comparator.comparingDouble(event -> event.getDouble("utilization")));
        RecordedEvent median = events.get(events.size() / 2);
        assertEquals("loop-core", median.getString("kind"));
        double utilization = median.getDouble("utilization");
        assertTrue(utilization > 0.35 && utilization < 0.65, "busy half the time: " + median);
        assertTrue(median.getDuration("lagMax").toMillis() >= 150, "up to 200 ms late: " + median);
    }
}
