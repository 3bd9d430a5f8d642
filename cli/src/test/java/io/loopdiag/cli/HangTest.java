package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Hang}'s verdicts on dumps written here, each relation and each end of a chain: what is
 * stuck, what is idle, what moved, and the words {@code hang} prints for them.
 */
class HangTest {

    /** A loop of a dump under construction. */
    private static final class Loop {
        final ObjectNode node = Json.mapper().createObjectNode();
        final ArrayNode tasks;

        Loop(long dispatchCount) {
            node.put("id", 1).put("name", "shop").put("kind", "loop-core").put("state", "running").put("dispatchCount", dispatchCount);
            node.putNull("running");
            tasks = node.putArray("tasks");
        }

        Loop running(String description, long taskId, long millis) {
            node.putObject("running").put("description", description).put("runningMillis", millis).put("taskId", taskId)
                    .putArray("stack").add("app//com.shop.Cart.block(Cart.java:9)");
            return this;
        }

        ObjectNode task(long id, String name, String frame) {
            ObjectNode task = tasks.addObject().put("id", id).put("name", name).put("state", "suspended").put("suspendedMillis", 1000 + id);
            task.putArray("stack").add("app//com.shop." + frame);
            task.putNull("awaiting");
            return task;
        }

        ObjectNode running(long id, String name) {
            ObjectNode task = task(id, name, "Cart.block(Cart.java:9)");
            task.put("state", "running").put("suspendedMillis", 0);
            return task;
        }

        static ObjectNode waits(ObjectNode task, String kind, String description, long... on) {
            ObjectNode awaiting = task.putObject("awaiting").put("kind", kind).put("description", description);
            ArrayNode ids = awaiting.putArray("waitsOn");
            for (long id : on) {
                ids.add(id);
            }
            if (kind.equals("task")) {
                awaiting.put("taskId", on[0]);
            }
            return awaiting;
        }

        JsonNode dump() {
            ObjectNode dump = Json.mapper().createObjectNode().put("schema", "loopdiag-dump/1");
            dump.putArray("loops").add(node.deepCopy());
            return dump;
        }
    }

    private static Hang hang(JsonNode... dumps) {
        return Hang.of(List.of(dumps));
    }

    private static Hang.TaskVerdict task(Hang hang, String name) {
        return hang.tasks().stream().filter(t -> t.task().path("name").asText().equals(name)).findFirst().orElseThrow();
    }

    private static String text(Hang hang) {
        StringWriter out = new StringWriter();
        HangCommand.print(hang, 4242, Duration.ofSeconds(2), new PrintWriter(out, true));
        return out.toString();
    }

    @Test
    void aLoopHeldInOneCallbackIsStuckAndSoAreTheTasksBehindItsLock() {
        Loop loop = new Loop(105).running("step of Task[refresh #3, running]", 3, 4000);
        loop.running(3, "refresh");
        for (int i = 4; i <= 6; i++) {
            Loop.waits(loop.task(i, "request-" + (i - 4), "Shop.handle(Shop.java:39)"), "lock", "lock acquire", 3);
        }
        JsonNode dump = loop.dump();
        Hang hang = hang(dump, dump, dump);
        assertTrue(hang.isStuck());
        assertEquals(Hang.Verdict.STUCK, hang.loops().get(0).verdict());
        Hang.TaskVerdict request = task(hang, "request-0");
        assertEquals(Hang.Verdict.STUCK, request.verdict());
        assertEquals(List.of(4L, 3L), request.chain().stream().map(Hang.Step::id).toList());
        assertEquals("lock", request.chain().get(1).relation());
        assertTrue(request.end().startsWith("runs the callback its loop has been held in"), request.end());
        String text = text(hang);
        assertTrue(text.startsWith("loopdiag hang: STUCK in JVM 4242 (dumps 2.0 s apart): 1 loop and 4 tasks stuck, 0 idle, 0 moving\n"), text);
        assertTrue(text.contains("stuck: loop 'shop' #1 has been held in one unit of work for 4.0 s: step of Task[refresh #3, running]\n"
                + "    at app//com.shop.Cart.block(Cart.java:9)\n"), text);
        assertTrue(text.contains("stuck: 3 tasks 'request-0'..'request-2' [#4..#6, suspended, 1.0 s] on loop 'shop'\n"
                + "    at app//com.shop.Shop.handle(Shop.java:39)\n"
                + "    → lock held by 'refresh' #3: runs the callback its loop has been held in (at app//com.shop.Cart.block(Cart.java:9))\n"),
                text);
    }

    @Test
    void aServerWaitingForItsNextClientOnAFreeLoopIsIdleNotStuck() {
        Loop loop = new Loop(40);
        Loop.waits(loop.task(1, "accept", "Server.serve(Server.java:20)"), "io", "accept /127.0.0.1:8080").put("direction", "accept");
        Loop.waits(loop.task(2, "main", "Main.main(Main.java:5)"), "task", "Task[accept #1, suspended]", 1);
        JsonNode dump = loop.dump();
        Hang hang = hang(dump, dump);
        assertFalse(hang.isStuck());
        assertEquals(Hang.Verdict.IDLE, hang.loops().get(0).verdict());
        assertEquals(Hang.Verdict.IDLE, task(hang, "main").verdict());
        assertEquals("io accept /127.0.0.1:8080", task(hang, "main").end());
        assertTrue(text(hang).startsWith("loopdiag hang: nothing stuck in JVM 4242 (dumps 2.0 s apart): 0 loops and 0 tasks stuck, 2 idle, 0 moving\n"),
                text(hang));
    }

    @Test
    void anAwaitCycleIsStuckATimerIsIdleAndATaskThatMovedIsMoving() {
        Loop before = new Loop(10);
        Loop after = new Loop(12);
        for (Loop loop : List.of(before, after)) {
            Loop.waits(loop.task(2, "ledger", "Ledger.settle(Ledger.java:47)"), "task", "Task[audit #3]", 3);
            Loop.waits(loop.task(3, "audit", "Ledger.audit(Ledger.java:52)"), "task", "Task[ledger #2]", 2);
            Loop.waits(loop.task(1, "main", "Main.run(Main.java:37)"), "task", "Task[ledger #2]", 2);
            Loop.waits(loop.task(4, "heartbeat", "Beat.run(Beat.java:57)"), "timer", "sleep PT0.1S");
        }
        Loop.waits(before.task(5, "worker-loop", "Work.step(Work.java:10)"), "timer", "sleep PT0.01S");
        Loop.waits(after.task(5, "worker-loop", "Work.step(Work.java:12)"), "timer", "sleep PT0.01S");
        Hang hang = hang(before.dump(), after.dump());
        assertTrue(hang.isStuck());
        assertEquals(Hang.Verdict.MOVING, hang.loops().get(0).verdict(), "it dispatched callbacks");
        assertEquals(Hang.Verdict.STUCK, task(hang, "main").verdict());
        assertEquals("a cycle", task(hang, "main").end());
        assertEquals(List.of(1L, 2L, 3L, 2L), task(hang, "main").chain().stream().map(Hang.Step::id).toList());
        assertEquals(Hang.Verdict.STUCK, task(hang, "audit").verdict());
        assertEquals(Hang.Verdict.IDLE, task(hang, "heartbeat").verdict());
        assertEquals(Hang.Verdict.MOVING, task(hang, "worker-loop").verdict());
        assertEquals(List.of("audit", "ledger", "main", "heartbeat", "worker-loop"),
                hang.tasks().stream().map(t -> t.task().path("name").asText()).toList(), "the stuck first, the longest waiting first");
    }

    @Test
    void aWorkerThatDidNotMoveIsStuckAndOneThatMovedIsNot() {
        List<JsonNode> dumps = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Loop loop = new Loop(7);
            ObjectNode legacy = Loop.waits(loop.task(1, "legacy-call", "Legacy.call(Legacy.java:3)"), "worker", "worker thread");
            legacy.putObject("worker").put("name", "loopdiag-worker-shop-1").put("id", 40).put("state", "WAITING")
                    .putArray("stack").add("app//com.shop.Legacy.query(Legacy.java:90)");
            ObjectNode report = Loop.waits(loop.task(2, "report", "Report.build(Report.java:8)"), "worker", "worker thread");
            report.putObject("worker").put("name", "loopdiag-worker-shop-2").put("id", 41).put("state", "RUNNABLE")
                    .putArray("stack").add("app//com.shop.Report.row(Report.java:" + (100 + i) + ")");
            dumps.add(loop.dump());
        }
        Hang hang = Hang.of(dumps);
        assertEquals(Hang.Verdict.STUCK, task(hang, "legacy-call").verdict());
        assertEquals("a worker thread that did not move: 'loopdiag-worker-shop-1' (WAITING) at app//com.shop.Legacy.query(Legacy.java:90)",
                task(hang, "legacy-call").end());
        assertEquals(Hang.Verdict.MOVING, task(hang, "report").verdict());
    }

    @Test
    void aLockWhoseHolderEndedIsStuckAndASemaphoreWaitsOnlyIfEveryHolderIs() {
        Loop loop = new Loop(9);
        Loop.waits(loop.task(1, "orphaned", "Cache.get(Cache.java:4)"), "lock", "lock acquire", 99);
        Loop.waits(loop.task(2, "pool-user-1", "Pool.use(Pool.java:5)"), "lock", "lock acquire", 99);
        Loop.waits(loop.task(3, "pool-user-2", "Pool.use(Pool.java:6)"), "timer", "sleep PT1S");
        Loop.waits(loop.task(4, "pool-waiter", "Pool.take(Pool.java:7)"), "semaphore", "semaphore acquire", 2, 3);
        JsonNode dump = loop.dump();
        Hang hang = hang(dump, dump);
        assertEquals(Hang.Verdict.STUCK, task(hang, "orphaned").verdict());
        assertEquals("a holder that ended without releasing it", task(hang, "orphaned").end());
        assertEquals(Hang.Verdict.IDLE, task(hang, "pool-waiter").verdict(), "one of its holders can still give a permit back");
        assertEquals(List.of(4L, 3L), task(hang, "pool-waiter").chain().stream().map(Hang.Step::id).toList());
    }

    @Test
    void theJsonHasEveryLoopAndTaskWithItsVerdictAndChain() {
        Loop loop = new Loop(105).running("step of Task[refresh #3, running]", 3, 4000);
        loop.running(3, "refresh");
        Loop.waits(loop.task(4, "request-0", "Shop.handle(Shop.java:39)"), "lock", "lock acquire", 3);
        JsonNode dump = loop.dump();
        ObjectNode json = HangCommand.document(hang(dump, dump), 4242, Duration.ofMillis(500));
        assertEquals("loopdiag-hang/1", json.path("schema").asText());
        assertEquals(500, json.path("intervalMillis").asLong());
        assertTrue(json.path("stuck").asBoolean());
        assertEquals("stuck", json.path("loops").get(0).path("verdict").asText());
        JsonNode request = json.path("tasks").get(0);
        assertEquals("request-0", request.path("name").asText(), "the longest waiting first: " + json);
        assertEquals("[{\"id\":3,\"relation\":\"lock\",\"name\":\"refresh\"}]", request.path("chain").toString());
    }
}
