package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.Fields;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The human views of list, ps, pstree and dump, of dumps written here by hand: what a user sees
 * of each. {@code dump-before-kinds.json} is a dump of an agent that does not write a loop's
 * kind, its views pinned line by line as they were before loops had kinds; {@code
 * dump-foreign-loops.json} has a loop of every kind.
 */
class ViewsTest {
    private static final String BEFORE_KINDS = "dump-before-kinds.json";
    /** A loop of every kind, as the agent writes them: SchemasIT validates it. */
    private static final String FOREIGN = "dump-foreign-loops.json";

    // ---- a dump without kinds: every view as it always was ----------------------------------------

    @Test
    void psOfADumpWithoutKindsListsTheTasksThenTheRunningCallback() {
        assertEquals("""
                LOOP             ID NAME         STATE      WAITED AWAITS           WHERE
                stuck-service     1 main         suspended  430 ms timer sleep PT2… StuckService.java:41 lambda$mai…
                stuck-service     3 refresh-cac… running         - -                StuckService.java:62 fetchConfi…
                stuck-service     4 request-0    suspended   1.6 s lock lock acqui… StuckService.java:39 lambda$mai…
                stuck-service     5 ledger       suspended  128 ms task #6          AwaitDeadlock.java:47 settleLed…
                stuck-service     6 audit        suspended  127 ms task #5          AwaitDeadlock.java:52 auditLedg…
                loop 'stuck-service' has been running for 223 ms: step of Task[refresh-cache #3, running]
                  at app//io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:62)
                """, ps(resource(BEFORE_KINDS), PsCommand.Order.id));
        assertEquals("""
                LOOP             ID NAME         STATE      WAITED AWAITS           WHERE
                stuck-service     4 request-0    suspended   1.6 s lock lock acqui… StuckService.java:39 lambda$mai…
                stuck-service     1 main         suspended  430 ms timer sleep PT2… StuckService.java:41 lambda$mai…
                stuck-service     5 ledger       suspended  128 ms task #6          AwaitDeadlock.java:47 settleLed…
                stuck-service     6 audit        suspended  127 ms task #5          AwaitDeadlock.java:52 auditLedg…
                stuck-service     3 refresh-cac… running         - -                StuckService.java:62 fetchConfi…
                loop 'stuck-service' has been running for 223 ms: step of Task[refresh-cache #3, running]
                  at app//io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:62)
                """, ps(resource(BEFORE_KINDS), PsCommand.Order.waited));
    }

    @Test
    void pstreeOfADumpWithoutKindsPrintsEachLoopsAwaitTreeAndItsCycle() {
        assertEquals("""
                loop 'stuck-service' #1 (running)
                ├── (T) 'main' #1 [suspended, 430 ms]
                │     at app//io.loopdiag.apps.StuckService.lambda$main$0(StuckService.java:41)
                │   └── awaits timer sleep PT24H (due in 23 h 59 min)
                ├── (T) 'refresh-cache' #3 [running]
                │     at app//io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:62)
                └── (T) 'request-0' #4 [suspended, 1.6 s]
                      at app//io.loopdiag.apps.StuckService.lambda$main$3(StuckService.java:39)
                    └── awaits lock lock acquire
                └── (T) 'ledger' #5 [suspended, 128 ms]
                      at app//io.loopdiag.apps.AwaitDeadlock.settleLedger(AwaitDeadlock.java:47)
                    └── (T) 'audit' #6 [suspended, 127 ms]
                          at app//io.loopdiag.apps.AwaitDeadlock.auditLedger(AwaitDeadlock.java:52)
                        └── ↺ await cycle: 'ledger' #5 → 'audit' #6 → 'ledger' #5
                              (these tasks wait for each other: none of them can ever finish)
                loop 'spare' #2 (idle)
                exit 1
                """, pstree(resource(BEFORE_KINDS)));
    }

    @Test
    void dumpOfADumpWithoutKindsPrintsEachLoopItsTasksAndTheFindings() {
        assertEquals("""
                loop 'stuck-service' #1, running on loopdiag-loop-stuck-service: 0 ready, 1 timers, 105 callbacks run, 5 tasks
                  running for 223 ms: step of Task[refresh-cache #3, running]
                    at java.base/java.lang.VirtualThread.park(VirtualThread.java:742)
                    at java.base/java.util.concurrent.CompletableFuture.get(CompletableFuture.java:2093)
                    at app//io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:62)
                    at app//io.loopdiag.apps.StuckService.refreshCache(StuckService.java:57)

                task 'main' #1 [suspended 430 ms, awaits timer sleep PT24H (due in 23 h 59 min)]:
                    at app//io.loopdiag.loop.Async.sleep(Async.java:58)
                    at app//io.loopdiag.apps.StuckService.lambda$main$0(StuckService.java:41)
                  created at:
                    at app//io.loopdiag.apps.StuckService.main(StuckService.java:33)
                    at app//io.loopdiag.apps.Main.main(Main.java:106)

                task 'refresh-cache' #3 [running, awaits -]:
                    at java.base/java.util.concurrent.CompletableFuture.get(CompletableFuture.java:2093)
                    at app//io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:62)

                task 'request-0' #4 [suspended 1.6 s, awaits lock lock acquire]:
                    at app//io.loopdiag.loop.sync.Lock.withLock(Lock.java:55)
                    at app//io.loopdiag.apps.StuckService.lambda$main$3(StuckService.java:39)
                  created at:
                    at app//io.loopdiag.apps.StuckService.lambda$main$0(StuckService.java:39)

                task 'ledger' #5 [suspended 128 ms, awaits task #6]:
                    at app//io.loopdiag.loop.Async.await(Async.java:40)
                    at app//io.loopdiag.apps.AwaitDeadlock.settleLedger(AwaitDeadlock.java:47)

                task 'audit' #6 [suspended 127 ms, awaits task #5]:
                    at app//io.loopdiag.loop.Async.await(Async.java:40)
                    at app//io.loopdiag.apps.AwaitDeadlock.auditLedger(AwaitDeadlock.java:52)

                loop 'spare' #2, idle on no thread: 2 ready, 0 timers, 0 callbacks run, 0 tasks
                  idle between callbacks

                findings: 1 blocking-call
                  blocking-call on loop 'stuck-service': java.util.concurrent.CompletableFuture.get in task 'refresh-cache' (#3), called at io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:62)
                    at app//io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:62)
                """, dump(resource(BEFORE_KINDS)));
    }

    @Test
    void listOfAJvmWhoseAgentWritesNoKindsCountsItsLoopsAndTasks() {
        ArrayNode rows = rows(resource(BEFORE_KINDS));
        assertEquals("""
                [{"pid":17,"main":"org.codehaus.plexus.classworlds.launcher.Launcher -B"},\
                {"pid":4242,"main":"/srv/app.jar serve","agent":"0.1.0","loops":2,"tasks":5,"loopsByKind":{"loop-core":2}}]""", rows.toString());
        assertEquals("""
                     PID  AGENT           LOOPS  TASKS  MAIN
                      17  -                   -      -  org.codehaus.plexus.classworlds.launcher.Launcher -B
                    4242  0.1.0               2      5  /srv/app.jar serve
                """, list(rows));
    }

    // ---- foreign loops: Netty, Vert.x, Reactor, AWT, named threads ---------------------------------

    @Test
    void listCountsTheLoopsOfEachKindOnASecondLine() {
        ArrayNode rows = rows(resource(FOREIGN));
        assertEquals("""
                {"pid":4242,"main":"/srv/app.jar serve","agent":"0.2.0","loops":7,"tasks":1,\
                "loopsByKind":{"loop-core":1,"netty":2,"vertx":1,"reactor":1,"awt":1,"named":1}}""", rows.get(1).toString());
        assertEquals("""
                     PID  AGENT           LOOPS  TASKS  MAIN
                      17  -                   -      -  org.codehaus.plexus.classworlds.launcher.Launcher -B
                    4242  0.2.0               7      1  /srv/app.jar serve
                          loops: 1 loop-core, 2 netty, 1 vertx, 1 reactor, 1 awt, 1 named
                """, list(rows));
    }

    // ---- the views, run as the verbs run them ------------------------------------------------------

    static String resource(String name) {
        try (InputStream in = ViewsTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode tree(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String ps(String json, PsCommand.Order order) {
        StringWriter out = new StringWriter();
        PsCommand.print(tree(json), order, new PrintWriter(out, true));
        return out.toString();
    }

    /** The tree, then {@code exit N}. */
    private static String pstree(String json) {
        StringWriter out = new StringWriter();
        int code = PsTreeCommand.print(tree(json), new PrintWriter(out, true));
        return out + "exit " + code + "\n";
    }

    /** As the dump arrives: the parser on its first loop, as {@link Verbs#stream} hands it over. */
    private static String dump(String json) {
        StringWriter out = new StringWriter();
        try (JsonParser parser = Json.mapper().createParser(json)) {
            parser.nextToken();
            while (parser.nextToken() == JsonToken.FIELD_NAME && !parser.currentName().equals(Fields.LOOPS)) {
                parser.nextToken();
                parser.skipChildren();
            }
            assertEquals(JsonToken.START_ARRAY, parser.nextToken());
            assertEquals(JsonToken.START_OBJECT, parser.nextToken());
            DumpCommand.print(parser, new PrintWriter(out, true));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** list's rows: a JVM without the agent, and one whose agent answers {@code info} with the loops of {@code json}. */
    private static ArrayNode rows(String json) {
        ObjectNode info = (ObjectNode) tree(json);
        info.withArray(Fields.LOOPS).forEach(loop -> ((ObjectNode) loop).remove(Fields.TASKS)); // info has no tasks
        ArrayNode rows = Json.mapper().createArrayNode();
        rows.addObject().put(Fields.PID, 17).put(Fields.MAIN, "org.codehaus.plexus.classworlds.launcher.Launcher -B");
        ListCommand.count(rows.addObject().put(Fields.PID, 4242).put(Fields.MAIN, "/srv/app.jar serve"), info);
        return rows;
    }

    private static String list(ArrayNode rows) {
        StringWriter out = new StringWriter();
        ListCommand.print(rows, new PrintWriter(out, true));
        return out.toString();
    }
}
