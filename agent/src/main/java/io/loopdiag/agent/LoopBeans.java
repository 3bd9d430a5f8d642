package io.loopdiag.agent;

import io.loopdiag.protocol.Kind;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The agent's numbers where the JVM's own tools look: as platform MXBeans, for JConsole, VisualVM,
 * JMX exporters and the {@code loopdiag-micrometer} binder ({@code io.loopdiag:type=Agent}, and
 * one {@code io.loopdiag:type=Loop,name="..."} per loop the agent watches, registered as loops
 * appear and unregistered as they close), and as JFR's periodic {@code io.loopdiag.LoopStatistics}
 * event. Set up and kept by a daemon thread of its own once a second, so that the platform MBean
 * server's start and JFR's (a hundred milliseconds of class loading) neither delay the agent's
 * start nor the watchdog's samples. If either cannot be had, it says so once and the agent goes
 * on without it.
 */
final class LoopBeans implements Runnable {
    static final String DOMAIN = "io.loopdiag";
    private static final long EVERY_NANOS = 1_000_000_000L;

    private final LoopHealth health;
    private final Findings findings;
    private final String version;
    private final String options;
    private final Map<String, ObjectName> registered = new HashMap<>(); // by loop name; this thread only

    private LoopBeans(LoopHealth health, Findings findings, String version, String options) {
        this.health = health;
        this.findings = findings;
        this.version = version;
        this.options = options;
    }

    /** Starts keeping the beans on a daemon thread, {@code loopdiag-jmx}. */
    static void start(LoopHealth health, Findings findings, String version, String options) {
        Thread thread = new Thread(new LoopBeans(health, findings, version, options), "loopdiag-jmx");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void run() {
        try {
            JfrEvents.statistics(health);
        } catch (RuntimeException | LinkageError failure) {
            System.err.println("loopdiag: the JFR event io.loopdiag.LoopStatistics is not available (" + failure + ")");
        }
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            server.registerMBean(new Agent(), new ObjectName(DOMAIN + ":type=Agent"));
            while (true) {
                LockSupport.parkNanos(EVERY_NANOS);
                sync(server);
            }
        } catch (Exception | LinkageError failure) {
            System.err.println("loopdiag: the JMX beans are not available (" + failure + "); the agent goes on without them");
        }
    }

    /** Registers a bean for each loop that has none yet, and unregisters those of loops gone. */
    private void sync(MBeanServer server) throws Exception {
        Map<String, LoopStatistics> now = new HashMap<>();
        for (LoopStatistics loop : health.latest()) {
            now.putIfAbsent(loop.name(), loop); // two loops of one name: the first is shown
        }
        for (String name : List.copyOf(registered.keySet())) {
            if (!now.containsKey(name)) {
                server.unregisterMBean(registered.remove(name));
            }
        }
        for (String name : now.keySet()) {
            if (!registered.containsKey(name)) {
                ObjectName objectName = new ObjectName(DOMAIN + ":type=Loop,name=" + ObjectName.quote(name));
                if (!server.isRegistered(objectName)) {
                    server.registerMBean(new Loop(name), objectName);
                }
                registered.put(name, objectName);
            }
        }
    }

    /** A loop's bean: each getter reads the loop's latest numbers. */
    private final class Loop implements LoopMXBean {
        private final String name;

        Loop(String name) {
            this.name = name;
        }

        private LoopStatistics now() {
            for (LoopStatistics loop : health.latest()) {
                if (loop.name().equals(name)) {
                    return loop;
                }
            }
            return new LoopStatistics(null, name, "", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Map.of());
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public String getKind() {
            return now().kind();
        }

        @Override
        public long getLagSamples() {
            return now().lagCount();
        }

        @Override
        public double getLagP50Millis() {
            return now().lagP50Millis();
        }

        @Override
        public double getLagP99Millis() {
            return now().lagP99Millis();
        }

        @Override
        public double getLagMaxMillis() {
            return now().lagMaxMillis();
        }

        @Override
        public double getUtilization() {
            return now().utilization();
        }

        @Override
        public double getUnitsPerSecond() {
            return now().unitsPerSecond();
        }

        @Override
        public long getUnits() {
            return now().units();
        }

        @Override
        public long getReady() {
            return now().ready();
        }

        @Override
        public long getTimers() {
            return now().timers();
        }

        @Override
        public long getTasks() {
            return now().tasks();
        }

        @Override
        public long getSuspendedTasks() {
            return now().suspendedTasks();
        }

        @Override
        public Map<String, Long> getFindingsByKind() {
            return now().findingsByKind();
        }
    }

    /** The agent's bean. */
    private final class Agent implements AgentMXBean {
        @Override
        public String getVersion() {
            return version;
        }

        @Override
        public String getOptions() {
            return options;
        }

        @Override
        public int getLoops() {
            return health.latest().size();
        }

        @Override
        public Map<String, Long> getFindingsByKind() {
            Map<String, Long> byKind = new TreeMap<>();
            for (String kind : Kind.ids()) {
                byKind.put(kind, 0L); // every kind, none yet included: a dashboard's series exist from the start
            }
            for (Findings.Finding finding : findings.all()) {
                synchronized (finding) {
                    byKind.merge(finding.kind.id(), finding.count, Long::sum);
                }
            }
            return byKind;
        }

        @Override
        public long getDistinctFindings() {
            return findings.all().size();
        }

        @Override
        public long getDropped() {
            return findings.dropped();
        }
    }
}
