package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.cli.support.Jvms;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who waits on whom, end to end: test-apps' wait-graph, whose tasks wait in every way loop-core
 * has (gather, task group, shield, waitFor, a diamond, a lock deadlock, a semaphore, a condition,
 * a worker thread, a socket, a queue), dumped and drawn by the packaged CLI by process id.
 */
@Timeout(120)
class WaitGraphIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Jvms jvms = new Jvms();
    private String pid;
    private final Map<String, JsonNode> tasks = new HashMap<>();

    @BeforeEach
    void startTheService() throws Exception {
        pid = jvms.start("log=off", "wait-graph").pidText();
        Jvms.Run dump = jvms.cli("dump", "--json", pid);
        assertEquals(0, dump.exitCode(), dump.err());
        for (JsonNode task : JSON.readTree(dump.out()).path("loops").get(0).path("tasks")) {
            tasks.put(task.path("name").asText(), task);
        }
    }

    @AfterEach
    void stopTargets() throws InterruptedException {
        jvms.close();
    }

    private long id(String name) {
        assertTrue(tasks.containsKey(name), "no task " + name + " in " + tasks.keySet());
        return tasks.get(name).path("id").asLong();
    }

    private JsonNode awaiting(String name) {
        id(name);
        return tasks.get(name).path("awaiting");
    }

    private List<Long> waitsOn(String name) {
        List<Long> ids = new ArrayList<>();
        awaiting(name).path("waitsOn").forEach(id -> ids.add(id.asLong()));
        return ids;
    }

    @Test
    void theDumpNamesWhatEveryWaitIsOnAndTheWorkersStack() {
        assertEquals("gather", awaiting("checkout").path("kind").asText());
        assertEquals(List.of(id("price-quote"), id("stock-check")), waitsOn("checkout"));
        assertEquals("group", awaiting("import-batch").path("kind").asText());
        assertEquals(List.of(id("import-file-1"), id("import-file-2")), waitsOn("import-batch"));
        assertEquals("shield", awaiting("audit-flush").path("kind").asText());
        assertEquals(List.of(id("audit-write")), waitsOn("audit-flush"));
        assertEquals(List.of(id("report-build")), waitsOn("report"), "waitFor awaits the task itself");
        assertEquals(List.of(id("metrics")), waitsOn("dashboard"));
        assertEquals("wait", awaiting("first-reply").path("kind").asText());
        assertEquals("wait for the first of 2", awaiting("first-reply").path("description").asText());
        assertEquals(List.of(id("replica-a"), id("replica-b")), waitsOn("first-reply"));
        long dueIn = awaiting("first-reply").path("dueInMillis").asLong(-1);
        assertTrue(dueIn > 50 * 60_000 && dueIn <= 60 * 60_000, "the wait's timeout: " + awaiting("first-reply"));
        assertEquals("as-completed", awaiting("replies-in-order").path("kind").asText());
        assertEquals(List.of(id("replica-a"), id("replica-b")), waitsOn("replies-in-order"));
        assertEquals(List.of(id("metrics")), waitsOn("alerts"));
        assertEquals("lock", awaiting("transfer-a-to-b").path("kind").asText());
        assertEquals(List.of(id("transfer-b-to-a")), waitsOn("transfer-a-to-b"));
        assertEquals(List.of(id("transfer-a-to-b")), waitsOn("transfer-b-to-a"));
        assertEquals("semaphore", awaiting("pool-waiter").path("kind").asText());
        assertEquals(List.of(id("pool-user-1"), id("pool-user-2")), waitsOn("pool-waiter"));
        assertEquals("condition", awaiting("consumer").path("kind").asText());
        assertEquals(List.of(id("producer")), waitsOn("consumer"));

        JsonNode worker = awaiting("legacy-call").path("worker");
        assertTrue(worker.path("name").asText().startsWith("loopdiag-worker-wait-graph-"), worker.toString());
        assertEquals("WAITING", worker.path("state").asText());
        assertTrue(worker.path("stack").toString().contains("io.loopdiag.apps.WaitGraph.queryLegacySystem(WaitGraph.java:"),
                "the worker's live stack: " + worker);
        assertEquals(List.of(), waitsOn("legacy-call"));

        assertEquals("read", awaiting("socket-reader").path("direction").asText());
        assertTrue(awaiting("socket-reader").path("channel").asText().startsWith("/127.0.0.1:"), awaiting("socket-reader").toString());
        assertEquals(0, awaiting("queue-getter").path("size").asInt(), awaiting("queue-getter").toString());
    }

    @Test
    void theDumpPrintsTheWorkersLiveStackUnderTheTaskThatAwaitsIt() throws Exception {
        Jvms.Run dump = jvms.cli("dump", pid);
        assertEquals(0, dump.exitCode(), dump.err());
        assertTrue(dump.out().matches("(?s).*\ntask 'legacy-call' #\\d+ \\[suspended [^,]+, awaits worker 'loopdiag-worker-wait-graph-\\d+'"
                + " \\(WAITING\\)]:\n.*  worker thread 'loopdiag-worker-wait-graph-\\d+' #\\d+ \\(WAITING\\):\n(    at .*\n)*"
                + "    at io\\.loopdiag\\.apps\\.WaitGraph\\.queryLegacySystem\\(WaitGraph\\.java:\\d+\\)\n.*"), dump.out());
    }

    @Test
    void pstreeDrawsEveryRelationTheDiamondOnceAndTheLockDeadlockAsItsOnlyCycle() throws Exception {
        Jvms.Run tree = jvms.cli("pstree", pid);
        String out = tree.out();
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, tree.exitCode(), "a cycle is a finding:\n" + out + tree.err());
        String a = "'transfer-a-to-b' #" + id("transfer-a-to-b");
        String b = "'transfer-b-to-a' #" + id("transfer-b-to-a");
        assertEquals(List.of("↺ wait cycle: " + a + " → lock held by " + b + " → lock held by " + a),
                out.lines().map(String::strip).filter(line -> line.contains("↺")).map(line -> line.substring(line.indexOf('↺'))).toList(),
                "one cycle, the deadlock; the diamond is none:\n" + out);
        assertTrue(out.contains("└── waits for lock held by " + b + "\n"), out);
        assertTrue(out.contains("└── awaits a gather of 2 tasks\n"), out);
        assertTrue(out.matches("(?s).*awaits a gather of 2 tasks\n[│ ]+├── \\(T\\) 'price-quote' #\\d+ .*\n[│ ]+└── \\(T\\) 'stock-check' #\\d+ .*"),
                "the gathered tasks under it:\n" + out);
        assertTrue(out.contains("└── waits for its task group's 2 tasks\n"), out);
        assertTrue(out.contains("└── waits for 2 tasks (wait for the first of 2)\n"), out);
        assertTrue(out.contains("└── waits for the next of 2 tasks to complete\n"), out);
        assertTrue(out.contains("└── awaits a shield of 'audit-write' #" + id("audit-write") + "\n"), out);
        assertTrue(out.contains("└── waits for a semaphore permit held by 'pool-user-1' #" + id("pool-user-1") + ", 'pool-user-2' #"
                + id("pool-user-2") + "\n"), out);
        assertTrue(out.contains("└── waits on a condition whose lock is held by 'producer' #" + id("producer") + "\n"), out);
        assertTrue(out.matches("(?s).*└── awaits worker 'loopdiag-worker-wait-graph-\\d+' \\(WAITING\\)\n"
                + "[│ ]+at io\\.loopdiag\\.apps\\.WaitGraph\\.queryLegacySystem\\(WaitGraph\\.java:\\d+\\)\n.*"), "the worker's frame:\n" + out);
        assertEquals(1, out.lines().filter(line -> line.contains("(T) 'metrics' #" + id("metrics") + " [")).count(), out);
        assertTrue(out.contains("(T) 'metrics' #" + id("metrics") + " (shown above)"), "the diamond's second edge:\n" + out);

        Jvms.Run json = jvms.cli("pstree", "--json", pid);
        assertEquals(ExitCodes.FINDINGS_OR_FAILURE, json.exitCode(), json.err());
        JsonNode loop = JSON.readTree(json.out()).path("loops").get(0);
        assertEquals("[[" + Math.min(id("transfer-a-to-b"), id("transfer-b-to-a")) + ","
                + Math.max(id("transfer-a-to-b"), id("transfer-b-to-a")) + "]]", loop.path("cycles").toString());
        List<String> edges = new ArrayList<>();
        loop.path("edges").forEach(edge -> edges.add(edge.path("from").asLong() + "->" + edge.path("to").asLong() + " "
                + edge.path("relation").asText()));
        for (String expected : List.of(id("dashboard") + "->" + id("metrics") + " task", id("alerts") + "->" + id("metrics") + " task",
                id("checkout") + "->" + id("price-quote") + " gather",
                id("first-reply") + "->" + id("replica-b") + " wait", id("replies-in-order") + "->" + id("replica-a") + " as-completed",
                id("import-batch") + "->" + id("import-file-2") + " group",
                id("consumer") + "->" + id("producer") + " condition", id("pool-waiter") + "->" + id("pool-user-2") + " semaphore")) {
            assertTrue(edges.contains(expected), expected + " in " + edges);
        }
    }
}
