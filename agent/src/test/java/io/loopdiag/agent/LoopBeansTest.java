package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LoopBeans} on an MBean server of its own and loops written here: a bean per open loop,
 * loops of one name told apart by a number, each bean reading its own loop's numbers.
 */
@Timeout(10)
class LoopBeansTest {
    /** A loop of {@code name} with {@code ready} units waiting: its Ready tells its bean's loop. */
    private static final class Loop implements WatchedLoop {
        private final String name;
        private final long ready;

        Loop(String name, long ready) {
            this.name = name;
            this.ready = ready;
        }

        @Override
        public Object key() {
            return this;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Counts counts() {
            return new Counts(ready, 0, 0, 0);
        }

        @Override
        public Object currentWork() {
            return null;
        }

        @Override
        public long workCount() {
            return 0;
        }

        @Override
        public Running running() {
            return null;
        }
    }

    private final MBeanServer server = MBeanServerFactory.newMBeanServer();
    private final Findings findings = new Findings(null, () -> { });
    private final LoopHealth health = new LoopHealth();
    private final LoopBeans beans = new LoopBeans(health, findings, "test", "");
    private long rolls;

    /** The loops open now, oldest first: rolled, then synced as the beans' thread does. */
    private void open(Loop... loops) throws Exception {
        health.roll(List.of(loops), findings, ++rolls * 1_000_000_000L);
        beans.sync(server);
    }

    /** Each loop bean's Name, which its object name carries too, with its Ready. */
    private Map<String, Long> shown() throws Exception {
        Map<String, Long> shown = new TreeMap<>();
        for (ObjectName bean : server.queryNames(new ObjectName("io.loopdiag:type=Loop,*"), null)) {
            String name = (String) server.getAttribute(bean, "Name");
            assertEquals(ObjectName.quote(name), bean.getKeyProperty("name"));
            shown.put(name, (Long) server.getAttribute(bean, "Ready"));
        }
        return shown;
    }

    @Test
    void loopsOfOneNameGetABeanEachNumberedByAgeAndAFreedNameGoesToTheNextLoop() throws Exception {
        Loop first = new Loop("worker", 1);
        Loop second = new Loop("worker", 2);
        Loop third = new Loop("worker", 3);
        Loop other = new Loop("other", 4);
        open(first, second, third, other);
        assertEquals(Map.of("worker", 1L, "worker (2)", 2L, "worker (3)", 3L, "other", 4L), shown());
        open(second, third, other);
        assertEquals(Map.of("worker (2)", 2L, "worker (3)", 3L, "other", 4L), shown(), "a loop keeps its bean while it is open");
        open(second, third, other, new Loop("worker", 5));
        assertEquals(Map.of("worker", 5L, "worker (2)", 2L, "worker (3)", 3L, "other", 4L), shown());
        open();
        assertEquals(Map.of(), shown());
    }
}
