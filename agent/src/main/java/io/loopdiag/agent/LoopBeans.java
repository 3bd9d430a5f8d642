package io.loopdiag.agent;

import io.loopdiag.protocol.Kind;
import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * The agent's numbers where the JVM's own tools look: as platform MXBeans, for JConsole, VisualVM,
 * JMX exporters and the {@code loopdiag-micrometer} binder ({@code io.loopdiag:type=Agent}, and
 * one {@code io.loopdiag:type=Loop,name="..."} per loop the agent watches, registered as loops
 * appear and unregistered as they close; a loop whose name an open loop's bean has already gets
 * {@code NAME (2)}, {@code NAME (3)}..., the first free), and as JFR's periodic
 * {@code io.loopdiag.LoopStatistics} event. Set up and kept by a daemon thread of its own once a
 * second, so that the platform MBean server's start and JFR's (a hundred milliseconds of class
 * loading) neither delay the agent's start nor the watchdog's samples. If either cannot be had, it
 * says so once and the agent goes on without it.
 */
final class LoopBeans implements Runnable {
    static final String DOMAIN = "io.loopdiag";
    private static final long EVERY_NANOS = 1_000_000_000L;

    private final LoopHealth health;
    private final Findings findings;
    private final String version;
    private final String options;
    private final Map<Object, ObjectName> registered = new IdentityHashMap<>(); // by LoopStatistics.key(); this thread only

    LoopBeans(LoopHealth health, Findings findings, String version, String options) {
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

    /**
     * Unregisters the beans of loops gone, then registers one for each loop that has none yet, in
     * the watchdog's order (loop-core's oldest first): of two loops of one name, the older has the
     * name. On this class's thread, or a test's.
     */
    void sync(MBeanServer server) throws Exception {
        List<LoopStatistics> latest = health.latest();
        Set<Object> open = Collections.newSetFromMap(new IdentityHashMap<>());
        latest.forEach(loop -> open.add(loop.key()));
        for (Object key : List.copyOf(registered.keySet())) {
            if (!open.contains(key)) {
                server.unregisterMBean(registered.remove(key));
            }
        }
        for (LoopStatistics loop : latest) {
            if (!registered.containsKey(loop.key())) {
                String shown = loop.name();
                for (int n = 2; server.isRegistered(beanName(shown)); n++) {
                    shown = loop.name() + " (" + n + ")";
                }
                server.registerMBean(new Loop(loop.key(), shown), beanName(shown));
                registered.put(loop.key(), beanName(shown));
            }
        }
    }

    private static ObjectName beanName(String shown) throws MalformedObjectNameException {
        return new ObjectName(DOMAIN + ":type=Loop,name=" + ObjectName.quote(shown));
    }

    /** A loop's bean, shown as {@code name}: each getter reads the latest numbers of the loop known by {@code key}. */
    private final class Loop implements LoopMXBean {
        private final Object key;
        private final String name;

        Loop(Object key, String name) {
            this.key = key;
            this.name = name;
        }

        private LoopStatistics now() {
            LoopStatistics loop = health.of(key);
            return loop != null ? loop : new LoopStatistics(key, name, "", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Map.of());
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
