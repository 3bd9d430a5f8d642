package io.loopdiag.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.ListenerNotFoundException;
import javax.management.MBeanServer;
import javax.management.MBeanServerDelegate;
import javax.management.MBeanServerNotification;
import javax.management.Notification;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * Publishes the loopdiag agent's numbers to a Micrometer registry, and so to Prometheus, OTLP,
 * Datadog and every other backend Micrometer has a registry for. It reads the platform MBeans the
 * agent registers ({@code io.loopdiag:type=Loop,name=...} per loop, {@code io.loopdiag:type=Agent})
 * and depends on nothing of the agent's: without the agent it publishes nothing.
 *
 * <p>Per loop, tagged {@code loop} (its bean's {@code Name}: {@code NAME (2)} for a second loop of
 * one name) and {@code kind} ({@code loop-core}, {@code netty}, {@code awt}, ...):
 * {@code loopdiag.loop.lag.p50}, {@code .p99} and {@code .max} (time gauges: how late units of
 * work start, over the last second), {@code loopdiag.loop.utilization} (0 to 1),
 * {@code loopdiag.loop.units} (a counter of units of work run: callbacks and task steps, Netty
 * tasks and I/O batches, AWT events), {@code loopdiag.loop.ready}, {@code loopdiag.loop.timers},
 * {@code loopdiag.loop.tasks} and {@code loopdiag.loop.tasks.suspended}. For the agent:
 * {@code loopdiag.findings} (a counter per {@code kind} of finding) and
 * {@code loopdiag.findings.dropped}. A loop's meters come as the agent sees the loop and go as it
 * closes, through the MBean server's notifications.
 *
 * <pre>{@code
 * new LoopdiagMetrics().bindTo(registry);
 * }</pre>
 */
public final class LoopdiagMetrics implements MeterBinder, AutoCloseable {
    private static final String DOMAIN = "io.loopdiag";

    private final MBeanServer server;
    private final Tags tags;
    private final List<Binding> bindings = new CopyOnWriteArrayList<>();

    /** A binder of the platform MBean server's loopdiag beans. */
    public LoopdiagMetrics() {
        this(List.of());
    }

    /** A binder that adds {@code tags} to every meter. */
    public LoopdiagMetrics(Iterable<Tag> tags) {
        this(ManagementFactory.getPlatformMBeanServer(), tags);
    }

    LoopdiagMetrics(MBeanServer server, Iterable<Tag> tags) {
        this.server = server;
        this.tags = Tags.of(tags);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Binding binding = new Binding(registry);
        bindings.add(binding);
        binding.start();
    }

    /** Stops following loops as they come and go, and removes the meters this binder registered. */
    @Override
    public void close() {
        for (Binding binding : bindings) {
            binding.close();
        }
        bindings.clear();
    }

    /**
     * One registry's meters, kept in step with the loopdiag beans as they are registered and
     * unregistered. The meters refer to it weakly, as Micrometer's do; the MBean server holds it as
     * a listener until {@link #close}.
     */
    private final class Binding implements NotificationListener {
        private final MeterRegistry registry;
        private final Map<ObjectName, List<Meter>> meters = new ConcurrentHashMap<>();

        Binding(MeterRegistry registry) {
            this.registry = registry;
        }

        /** Listens first and then looks, so that no bean is missed; one seen twice is bound once. */
        void start() {
            try {
                server.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, this, null, null);
                for (ObjectName name : server.queryNames(new ObjectName(DOMAIN + ":*"), null)) {
                    add(name);
                }
            } catch (JMException e) {
                throw new IllegalStateException("cannot read the MBean server's loopdiag beans: " + e.getMessage(), e);
            }
        }

        void close() {
            try {
                server.removeNotificationListener(MBeanServerDelegate.DELEGATE_NAME, this);
            } catch (InstanceNotFoundException | ListenerNotFoundException e) {
                // never added, or already removed
            }
            for (ObjectName name : List.copyOf(meters.keySet())) {
                remove(name);
            }
        }

        @Override
        public void handleNotification(Notification notification, Object handback) {
            if (!(notification instanceof MBeanServerNotification registration)
                    || !DOMAIN.equals(registration.getMBeanName().getDomain())) {
                return;
            }
            try {
                if (MBeanServerNotification.REGISTRATION_NOTIFICATION.equals(registration.getType())) {
                    add(registration.getMBeanName());
                } else if (MBeanServerNotification.UNREGISTRATION_NOTIFICATION.equals(registration.getType())) {
                    remove(registration.getMBeanName());
                }
            } catch (RuntimeException | JMException e) {
                // The notification comes on the registering thread, the agent's: never fail it. The bean
                // that could not be read has no meters.
            }
        }

        private void add(ObjectName name) throws JMException {
            if (meters.containsKey(name)) {
                return; // seen by both the look and a notification: the registry gave the same meters again
            }
            meters.put(name, switch (String.valueOf(name.getKeyProperty("type"))) {
                case "Loop" -> loop(name);
                case "Agent" -> agent(name);
                default -> List.of();
            });
        }

        private void remove(ObjectName name) {
            List<Meter> gone = meters.remove(name);
            if (gone != null) {
                gone.forEach(registry::remove);
            }
        }

        private List<Meter> loop(ObjectName name) throws JMException {
            Tags loopTags = tags.and("loop", (String) server.getAttribute(name, "Name"), "kind", (String) server.getAttribute(name, "Kind"));
            List<Meter> added = new ArrayList<>();
            added.add(lag(name, loopTags, "p50", "LagP50Millis", "The median of how late units of work started after they became ready, over the last second"));
            added.add(lag(name, loopTags, "p99", "LagP99Millis", "The 99th percentile of how late units of work started after they became ready, over the last second"));
            added.add(lag(name, loopTags, "max", "LagMaxMillis", "The most a unit of work started late after it became ready, over the last second"));
            added.add(gauge(name, loopTags, "loopdiag.loop.utilization", "Utilization", "The share of the last second the loop ran work, 0 to 1"));
            added.add(FunctionCounter.builder("loopdiag.loop.units", this, binding -> binding.attribute(name, "Units"))
                    .tags(loopTags)
                    .description("Units of work the loop started: callbacks and task steps, Netty tasks and I/O batches, AWT events")
                    .register(registry));
            added.add(gauge(name, loopTags, "loopdiag.loop.ready", "Ready", "Units of work ready to run"));
            added.add(gauge(name, loopTags, "loopdiag.loop.timers", "Timers", "Timers and scheduled tasks not yet due"));
            added.add(gauge(name, loopTags, "loopdiag.loop.tasks", "Tasks", "loop-core tasks not done"));
            added.add(gauge(name, loopTags, "loopdiag.loop.tasks.suspended", "SuspendedTasks", "loop-core tasks suspended on an await"));
            return added;
        }

        private List<Meter> agent(ObjectName name) throws JMException {
            List<Meter> added = new ArrayList<>();
            TabularData byKind = (TabularData) server.getAttribute(name, "FindingsByKind");
            for (Object row : byKind.values()) {
                String kind = (String) ((CompositeData) row).get("key");
                added.add(FunctionCounter.builder("loopdiag.findings", this, binding -> binding.findings(name, kind))
                        .tags(tags.and("kind", kind))
                        .description("Findings of this kind the loopdiag agent made")
                        .register(registry));
            }
            added.add(FunctionCounter.builder("loopdiag.findings.dropped", this, binding -> binding.attribute(name, "Dropped"))
                    .tags(tags)
                    .description("Findings only counted, past the distinct ones the agent keeps")
                    .register(registry));
            return added;
        }

        private Meter lag(ObjectName name, Tags loopTags, String statistic, String attribute, String description) {
            return TimeGauge.builder("loopdiag.loop.lag." + statistic, this, TimeUnit.MILLISECONDS, binding -> binding.attribute(name, attribute))
                    .tags(loopTags)
                    .description(description)
                    .register(registry);
        }

        private Meter gauge(ObjectName name, Tags loopTags, String meter, String attribute, String description) {
            return Gauge.builder(meter, this, binding -> binding.attribute(name, attribute))
                    .tags(loopTags)
                    .description(description)
                    .register(registry);
        }

        /** A numeric attribute of the bean, or NaN if it is gone. */
        private double attribute(ObjectName name, String attribute) {
            try {
                return ((Number) server.getAttribute(name, attribute)).doubleValue();
            } catch (JMException | RuntimeException e) {
                return Double.NaN;
            }
        }

        private double findings(ObjectName name, String kind) {
            try {
                CompositeData row = ((TabularData) server.getAttribute(name, "FindingsByKind")).get(new Object[] {kind});
                return row == null ? 0 : ((Number) row.get("value")).doubleValue();
            } catch (JMException | RuntimeException e) {
                return Double.NaN;
            }
        }
    }
}
