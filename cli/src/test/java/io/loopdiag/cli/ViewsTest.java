package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loopdiag.protocol.Fields;
import io.loopdiag.protocol.LoopKinds;
import io.loopdiag.views.Views;
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
    void psToAPipeOrAFileSizesItsColumnsToWhatTheyHoldAndCutsNothing() {
        StringWriter out = new StringWriter();
        PsCommand.print(tree(resource(BEFORE_KINDS)), PsCommand.Order.id, new PrintWriter(out, true), Terminal.UNBOUNDED);
        assertEquals("""
                LOOP          ID NAME          STATE     WAITED AWAITS                                 WHERE
                stuck-service  1 main          suspended 430 ms timer sleep PT24H (due in 23 h 59 min) StuckService.java:41 lambda$main$0
                stuck-service  3 refresh-cache running        - -                                      StuckService.java:62 fetchConfigBlocking
                stuck-service  4 request-0     suspended  1.6 s lock lock acquire                      StuckService.java:39 lambda$main$3
                stuck-service  5 ledger        suspended 128 ms task #6                                AwaitDeadlock.java:47 settleLedger
                stuck-service  6 audit         suspended 127 ms task #5                                AwaitDeadlock.java:52 auditLedger
                loop 'stuck-service' has been running for 223 ms: step of Task[refresh-cache #3, running]
                  at app//io.loopdiag.apps.StuckService.fetchConfigBlocking(StuckService.java:62)
                """, out.toString());
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
                ├── (T) 'request-0' #4 [suspended, 1.6 s]
                │     at app//io.loopdiag.apps.StuckService.lambda$main$3(StuckService.java:39)
                │   └── awaits lock lock acquire
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
    void psListsTheTasksThenOneRowPerForeignLoopWithWhatItRunsForHowLongAndWhere() {
        assertEquals("""
                LOOP             ID NAME         STATE      WAITED AWAITS           WHERE
                ledger            1 main         suspended  19.0 s timer sleep PT1… Ledger.java:21 lambda$main$0

                LOOP                      KIND    STATE       FOR RUNS                     WHERE
                AWT-EventQueue-0          awt     running   1.2 s MouseEvent MOUSE_RELEAS… SaveAction.java:30 actio…
                nioEventLoopGroup-2-1     netty   running   4.1 s I/O of handler 'orders'… OrderHandler.java:57 res…
                nioEventLoopGroup-2-2     netty   idle          - -
                vert.x-eventloop-thread-0 vertx   running   35 ms task com.example.PriceV… PriceVerticle.java:18 la…
                parallel-1                reactor running       - thread blocked           PriceCache.java:31 get
                ingest-loop               named   idle          - -
                """, ps(resource(FOREIGN), PsCommand.Order.id));
        assertEquals("""
                LOOP             ID NAME         STATE      WAITED AWAITS           WHERE
                ledger            1 main         suspended  19.0 s timer sleep PT1… Ledger.java:21 lambda$main$0

                LOOP                      KIND    STATE       FOR RUNS                     WHERE
                nioEventLoopGroup-2-1     netty   running   4.1 s I/O of handler 'orders'… OrderHandler.java:57 res…
                AWT-EventQueue-0          awt     running   1.2 s MouseEvent MOUSE_RELEAS… SaveAction.java:30 actio…
                vert.x-eventloop-thread-0 vertx   running   35 ms task com.example.PriceV… PriceVerticle.java:18 la…
                nioEventLoopGroup-2-2     netty   idle          - -
                parallel-1                reactor running       - thread blocked           PriceCache.java:31 get
                ingest-loop               named   idle          - -
                """, ps(resource(FOREIGN), PsCommand.Order.waited), "the longest running first");
    }

    @Test
    void psOfAJvmWithOnlyForeignLoopsShowsNoTaskTable() {
        ObjectNode dump = (ObjectNode) tree(resource(FOREIGN));
        dump.withArray(Fields.LOOPS).remove(0);
        String shown = ps(dump.toString(), PsCommand.Order.id);
        assertTrue(shown.startsWith("LOOP                      KIND    STATE       FOR RUNS"), shown);
        assertEquals(7, shown.lines().count(), shown);
    }

    @Test
    void pstreeShowsEachForeignLoopWithItsKindAndTheUnitOfWorkItRunsOrItsThreadsState() {
        assertEquals("""
                loop 'ledger' #1 (idle)
                └── (T) 'main' #1 [suspended, 19.0 s]
                      at app//com.example.Ledger.lambda$main$0(Ledger.java:21)
                    └── awaits timer sleep PT1M (due in 41.0 s)
                loop 'AWT-EventQueue-0' #22 [awt] (running)
                └── running for 1.2 s: MouseEvent MOUSE_RELEASED on javax.swing.JButton 'save'
                      at app//com.example.SaveAction.actionPerformed(SaveAction.java:30)
                loop 'nioEventLoopGroup-2-1' #27 [netty] (running)
                └── running for 4.1 s: I/O of handler 'orders' (com.example.OrderHandler)
                      at app//com.example.OrderHandler.reserveStock(OrderHandler.java:57)
                loop 'nioEventLoopGroup-2-2' #28 [netty] (idle)
                loop 'vert.x-eventloop-thread-0' #31 [vertx] (running)
                └── running for 35 ms: task com.example.PriceVerticle$$Lambda/0x00007f3c0c123456
                      at app//com.example.PriceVerticle.lambda$start$0(PriceVerticle.java:18)
                loop 'parallel-1' #40 [reactor] (running)
                └── running: thread blocked
                      at app//com.example.PriceCache.get(PriceCache.java:31)
                loop 'ingest-loop' #45 [named] (idle)
                exit 0
                """, pstree(resource(FOREIGN)));
    }

    @Test
    void dumpHeadsEachForeignLoopWithItsKindWhatItRunsItsCountsAndThenTheRunningUnitsStack() {
        assertEquals("""
                loop 'ledger' #1, idle on no thread: 0 ready, 1 timers, 42 callbacks run, 1 tasks
                  idle between callbacks

                task 'main' #1 [suspended 19.0 s, awaits timer sleep PT1M (due in 41.0 s)]:
                    at app//io.loopdiag.loop.Async.sleep(Async.java:58)
                    at app//com.example.Ledger.lambda$main$0(Ledger.java:21)

                loop 'AWT-EventQueue-0' #22 [awt] running for 1.2 s: MouseEvent MOUSE_RELEASED on javax.swing.JButton 'save'
                  events queued 3, events dispatched 4411
                    at java.base/java.lang.Thread.sleep(Thread.java:509)
                    at app//com.example.SaveAction.actionPerformed(SaveAction.java:30)
                    at java.desktop/javax.swing.AbstractButton.fireActionPerformed(AbstractButton.java:1972)
                    at java.desktop/java.awt.EventQueue.dispatchEvent(EventQueue.java:723)

                loop 'nioEventLoopGroup-2-1' #27 [netty] running for 4.1 s: I/O of handler 'orders' (com.example.OrderHandler)
                  pending tasks 12, scheduled 1, channels 8, units started 1520
                    at java.base/java.lang.Object.wait0(Native Method)
                    at java.base/java.lang.Object.wait(Object.java:375)
                    at app//io.netty.util.concurrent.DefaultPromise.await(DefaultPromise.java:254)
                    at app//io.netty.util.concurrent.DefaultPromise.sync(DefaultPromise.java:405)
                    at app//com.example.OrderHandler.reserveStock(OrderHandler.java:57)
                    at app//com.example.OrderHandler.channelRead(OrderHandler.java:42)
                    at app//io.netty.channel.AbstractChannelHandlerContext.invokeChannelRead(AbstractChannelHandlerContext.java:444)

                loop 'nioEventLoopGroup-2-2' #28 [netty] idle
                  pending tasks 0, scheduled 0, channels 7, units started 883

                loop 'vert.x-eventloop-thread-0' #31 [vertx] running for 35 ms: task com.example.PriceVerticle$$Lambda/0x00007f3c0c123456
                  pending tasks 4, scheduled 2, channels 2, units started 120
                    at app//com.example.PriceVerticle.lambda$start$0(PriceVerticle.java:18)
                    at app//io.vertx.core.impl.ContextImpl.emit(ContextImpl.java:328)
                    at app//io.netty.util.concurrent.AbstractEventExecutor.runTask(AbstractEventExecutor.java:173)

                loop 'parallel-1' #40 [reactor] running: thread blocked
                    at app//com.example.PriceCache.get(PriceCache.java:31)
                    at app//reactor.core.publisher.FluxMap$MapSubscriber.onNext(FluxMap.java:106)
                    at app//com.example.Quotes.lambda$stream$2(Quotes.java:64)
                    at app//reactor.core.scheduler.SchedulerTask.call(SchedulerTask.java:68)
                    at java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1144)
                    at java.base/java.lang.Thread.run(Thread.java:1583)

                loop 'ingest-loop' #45 [named] idle

                findings: none
                """, dump(resource(FOREIGN)));
    }

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

    @Test
    void aLoopOfKindLoopCoreShowsAsALoopWithoutAKind() {
        ObjectNode tagged = (ObjectNode) tree(resource(BEFORE_KINDS));
        tagged.withArray(Fields.LOOPS).forEach(loop -> ((ObjectNode) loop).put(Fields.KIND, LoopKinds.LOOP_CORE));
        String before = resource(BEFORE_KINDS);
        assertEquals(ps(before, PsCommand.Order.id), ps(tagged.toString(), PsCommand.Order.id));
        assertEquals(pstree(before), pstree(tagged.toString()));
        assertEquals(dump(before), dump(tagged.toString()));
        assertEquals(list(rows(before)), list(rows(tagged.toString())));
    }

    @Test
    void aForeignLoopWhoseKindComesAfterItsEmptyTasksIsStillShownAsForeign() {
        ObjectNode dump = (ObjectNode) tree(resource(FOREIGN));
        for (JsonNode loop : dump.withArray(Fields.LOOPS)) {
            JsonNode kind = ((ObjectNode) loop).remove(Fields.KIND);
            ((ObjectNode) loop).set(Fields.KIND, kind); // now after tasks
        }
        assertEquals(dump(resource(FOREIGN)), dump(dump.toString()));
    }

    @Test
    void aLoopOfAKindNotKnownHereIsShownAsForeignWithItsCountsThatAreNotZero() {
        String unknown = """
                {"loops": [{"kind": "kotlin", "id": 9, "name": "coroutine-loop", "state": "running", "thread": "coroutine-loop",
                  "readyCount": 2, "timerCount": 0, "dispatchCount": 31, "taskCount": 0,
                  "running": {"description": "resume of Job#4", "runningMillis": 3, "taskId": -1,
                              "stack": ["app//com.example.Sync.step(Sync.java:9)"]}, "tasks": []}],
                 "findings": {"summary": {}, "dropped": 0, "detections": []}}""";
        assertEquals("""
                loop 'coroutine-loop' #9 [kotlin] running for 3 ms: resume of Job#4
                  ready 2, units started 31
                    at app//com.example.Sync.step(Sync.java:9)

                findings: none
                """, dump(unknown));
        assertTrue(ps(unknown, PsCommand.Order.id).contains("\ncoroutine-loop            kotlin  running    3 ms resume of Job#4"),
                ps(unknown, PsCommand.Order.id));
        assertTrue(pstree(unknown).startsWith("loop 'coroutine-loop' #9 [kotlin] (running)\n└── running for 3 ms: resume of Job#4\n"),
                pstree(unknown));
    }

    /** Names, kinds and descriptions come from the application (or a newer agent): never raw on a terminal, never past the width. */
    @Test
    void hostileTextOfForeignLoopsIsEscapedAndPsPstreeAndListStayInsideTheWidth() {
        String hostile = "evil\u001b[2J\r\u0007\u202e\nloop" + "-long".repeat(30) + "-2-1 \uD83D\uDE00";
        ObjectNode dump = (ObjectNode) tree(resource(FOREIGN));
        ObjectNode netty = (ObjectNode) dump.withArray(Fields.LOOPS).get(2);
        netty.put(Fields.NAME, hostile).put(Fields.THREAD, hostile + "-thread");
        ((ObjectNode) dump.withArray(Fields.LOOPS).get(6)).put(Fields.KIND, "kot\u001b[31mlin" + "x".repeat(200));
        ObjectNode running = (ObjectNode) netty.path(Fields.RUNNING);
        running.put(Fields.DESCRIPTION, "I/O of handler '" + hostile + "' (" + "com.example.".repeat(20) + "Handler)");
        ((ArrayNode) running.path(Fields.STACK)).insert(4, "app//com.example.Evil\u001b[2J.run(Evil.java:1)");
        String json = dump.toString();
        String escaped = "evil\\u001b[2J\\u000d\\u0007\\u202e\\u000aloop";
        for (String view : java.util.List.of(ps(json, PsCommand.Order.id), pstree(json), dump(json), list(rows(json)))) {
            assertTrue(view.replace("\n", "").codePoints().noneMatch(c -> Character.isISOControl(c) || c == 0x202e), view);
        }
        for (String view : java.util.List.of(ps(json, PsCommand.Order.id), pstree(json), list(rows(json)))) {
            assertTrue(view.lines().allMatch(line -> line.length() <= Terminal.WIDTH), "fits " + Terminal.WIDTH + " columns:\n" + view);
        }
        assertTrue(ps(json, PsCommand.Order.id).contains("\nevil\\u001b[2…-long-2-1 \uD83D\uDE00 netty   running   4.1 s I/O of handler 'evil\\u0… Evil.java:1 run\n"),
                "the start and the end of the name, the frame past Netty's: " + ps(json, PsCommand.Order.id));
        assertTrue(ps(json, PsCommand.Order.id).contains("\ningest-loop               kot\\u0… idle"), ps(json, PsCommand.Order.id));
        assertTrue(pstree(json).contains("\nloop 'evil\\u001b[2J\\u000d\\u0007\\u202…ng-long-long-long-long-2-1 \uD83D\uDE00' #27 [netty] (running)\n"),
                pstree(json));
        assertTrue(dump(json).contains("loop '" + escaped), dump(json));
        assertTrue(dump(json).contains(" on " + escaped), "the thread, when it is not the name: " + dump(json));
        assertTrue(dump(json).contains("\n    at app//com.example.Evil\\u001b[2J.run(Evil.java:1)\n"), dump(json));
        assertTrue(pstree(json).contains("\n      at app//com.example.Evil\\u001b[2J.run(Evil.java:1)\n"),
                "past the framework's frames on a Netty loop: " + pstree(json));
        assertTrue(list(rows(json)).contains("loops: 1 loop-core, 2 netty, 1 vertx, 1 reactor, 1 awt, 1 kot\\u001b[31mlinxxx"),
                list(rows(json)));
    }

    @Test
    void aNameIsCutInItsMiddleKeepingItsEndAndItsSurrogatePairsWhole() {
        assertEquals("nioEventLoopGroup-2-1", Views.fitMiddle("nioEventLoopGroup-2-1", 21));
        assertEquals("multiThre…Group-2-1", Views.fitMiddle("multiThreadIoEventLoopGroup-2-1", 19));
        assertEquals("ab…yz", Views.fitMiddle("abcdefghijklmnopqrstuvwxyz", 5));
        assertEquals("a…\uD83D\uDE00", Views.fitMiddle("a\uD83D\uDE00bcdefgh\uD83D\uDE00", 5), "no lone surrogate at either cut");
        assertEquals("ab…z", Views.fitMiddle("ab\uD83D\uDE00cdefg\uD83D\uDE00z", 5));
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
        PsCommand.print(tree(json), order, new PrintWriter(out, true), Terminal.WIDTH);
        return out.toString();
    }

    /** The tree, then {@code exit N}. */
    private static String pstree(String json) {
        StringWriter out = new StringWriter();
        int code = PsTreeCommand.print(tree(json), new PrintWriter(out, true), Terminal.WIDTH);
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
            DumpCommand.print(parser, new PrintWriter(out, true), false);
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
