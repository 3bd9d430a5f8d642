package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.loopdiag.programs.CustomTransport;
import io.loopdiag.programs.NettyModes;
import io.loopdiag.programs.NettyMonitor;
import io.loopdiag.programs.NettyWakeUps;
import io.loopdiag.agent.support.AgentRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The loops loopdiag does not own, each a test-apps scenario in a child JVM with the packaged
 * agent: Netty 4.2 and 4.1 (one jar each, the same sources), Vert.x 5, Reactor, Swing, and a thread
 * named by the {@code threads} option. What a user sees on stderr and in the report.
 */
@Timeout(120)
class ForeignLoopsIT {

    /** The two Netty lines: the 4.2 jar (test-apps) and the 4.1 one. */
    static Stream<Path> nettyLines() {
        return Stream.of(AgentRun.APPS, AgentRun.APPS_NETTY41);
    }

    /** Each Netty line on each transport: the JDK's selector (NIO) and Netty's native epoll, whose I/O is hooked apart. */
    static Stream<Arguments> nettyTransports() {
        return nettyLines().flatMap(apps -> Stream.of(Arguments.of(apps, "nio"), Arguments.of(apps, "epoll")));
    }

    @ParameterizedTest
    @MethodSource("nettyTransports")
    void aBlockingCallInAHandlerIsReportedWithTheHandlerAndTheLine(Path apps, String transport, @TempDir Path dir) throws Exception {
        AgentRun run = AgentRun.runWithReport(apps, dir, "", "netty-stuck", "--transport", transport);
        String announced = run.stderr().lines().filter(line -> line.startsWith("netty-stuck: Netty ")).findFirst().orElseThrow();
        assertEquals(transport.equals("epoll"), announced.endsWith(" on epoll"), "the transport it ran on: " + announced);
        assertFalse(run.stderr().contains("self-check"), run.stderr());

        List<String> blocking = run.blocks("blocking-call");
        assertFalse(blocking.isEmpty(), run.stderr());
        for (String block : blocking) {
            String header = block.lines().findFirst().orElseThrow();
            assertTrue(header.startsWith("loopdiag: blocking-call on loop 'netty-stuck-loop-1': "), header);
            assertTrue(header.contains(" in I/O of handler 'orders' (io.loopdiag.apps.NettyStuck$OrderHandler)"), header);
            assertTrue(block.contains("at io.loopdiag.apps.NettyStuck$OrderHandler.fetchPrice(NettyStuck.java:"), block);
            assertTrue(block.lines().skip(1).findFirst().orElseThrow().startsWith("    at java.base/"),
                    "the JDK method called comes first:\n" + block);
        }
        String stall = stalled(run, "loop-stall", "'orders'");
        assertTrue(stall.contains("I/O of handler 'orders' (io.loopdiag.apps.NettyStuck$OrderHandler) has been running for "), stall);
        String slow = stalled(run, "slow-callback", "'orders'");
        assertTrue(slow.contains("NettyStuck$OrderHandler.fetchPrice(NettyStuck.java:"), slow);

        JsonNode report = run.report();
        List<String> loops = new ArrayList<>();
        report.path("detections").forEach(detection -> loops.add(detection.path("loop").asText()));
        assertTrue(loops.stream().allMatch(loop -> loop.equals("netty-stuck-loop-1")), loops.toString());
        assertTrue(report.path("summary").path("blocking-call").asInt() >= 1, report.toString());
    }

    @ParameterizedTest
    @MethodSource("nettyLines")
    void aHandlerBurningTheCpuIsASlowCallbackNamedByItsPipelineName(Path apps, @TempDir Path dir) throws Exception {
        AgentRun run = AgentRun.runWithReport(apps, dir, "", "netty-slow-handler");
        String slow = stalled(run, "slow-callback", "'risk'");
        assertTrue(slow.startsWith("loopdiag: slow-callback on loop 'netty-slow-handler-loop-1': I/O of handler 'risk'"
                + " (io.loopdiag.apps.NettySlowHandler$RiskHandler) took about "), slow);
        assertTrue(slow.contains("NettySlowHandler$RiskHandler.scoreRisk(NettySlowHandler.java:"), slow);
        assertEquals(List.of(), run.blocks("blocking-call"), "CPU is not a blocking call");
    }

    @Test
    void aNettyFindingIsAJfrEventNamedByItsLoopThread(@TempDir Path dir) throws Exception {
        Path recording = dir.resolve("run.jfr");
        AgentRun run = AgentRun.run("log=off", "netty-slow-handler", "-XX:StartFlightRecording=filename=" + recording);
        assertEquals(0, run.exitCode(), run.stderr());
        List<RecordedEvent> events = AgentRun.detectionEvents(recording);
        assertFalse(events.isEmpty(), "no io.loopdiag.Detection in the recording");
        for (RecordedEvent event : events) {
            assertEquals("netty-slow-handler-loop-1", event.getString("loop"), event.toString());
        }
        RecordedEvent slow = events.stream().filter(event -> event.getString("kind").equals("slow-callback")).findFirst()
                .orElseThrow(() -> new AssertionError("no slow-callback event: " + events));
        assertTrue(slow.getString("stack").contains("NettySlowHandler$RiskHandler.scoreRisk(NettySlowHandler.java:"), slow.toString());
        // It spans the callback as the watchdog saw it, from its first sight (at most a 5 ms sampling period
        // after it began) to its end: a callback over the 100 ms limit, less that period.
        assertTrue(slow.getDuration().toMillis() >= 90, slow.toString());
    }

    @ParameterizedTest
    @MethodSource("nettyLines")
    void aWriteToAClosedChannelThatNobodyObservesIsALostException(Path apps, @TempDir Path dir) throws Exception {
        AgentRun run = AgentRun.runWithReport(apps, dir, "", "netty-lost-write");
        List<String> lost = run.blocks("lost-exception");
        assertFalse(lost.isEmpty(), run.stderr());
        for (String block : lost) {
            assertTrue(block.startsWith("loopdiag: lost-exception on loop 'netty-lost-write-loop-1': a Netty DefaultChannelPromise"
                    + " of channel [id: 0x"), block);
            assertTrue(block.contains(" failed with io.netty.channel.StacklessClosedChannelException, and nobody listened to it"), block);
            List<String> frames = block.lines().skip(1).toList();
            assertTrue(frames.get(0).contains("writeAndFlush("), "the Netty call the application made:\n" + block);
            assertTrue(frames.get(1).contains("NettyLostWrite$FeedHandler.publish(NettyLostWrite.java:153)"),
                    "then the application's line:\n" + block);
        }
        assertTrue(lost.stream().anyMatch(block -> block.contains("before it was garbage-collected")), run.stderr());
        assertEquals(2, occurrences(run.report(), "lost-exception"), "both writes:\n" + run.report());
    }

    @ParameterizedTest
    @MethodSource("nettyTransports")
    void aHealthyServerUnderLoadHasNoFinding(Path apps, String transport, @TempDir Path dir) throws Exception {
        // slow=1s, as LoadIT: blocking calls and lost writes are found whatever the machine does, but a cold
        // JVM's first connection on a CI machine busy with other JVMs can really hold the loop 100 ms.
        AgentRun run = AgentRun.runWithReport(apps, dir, "slow=1s,", "netty-healthy", "--transport", transport);
        assertEquals(0, run.report().path("detections").size(), run.stderr());
        assertFalse(run.stderr().contains("self-check"), run.stderr());
    }

    @Test
    void aVertxRouteAndAnEventBusConsumerThatSleepAreReportedAtTheLimitByPathAndAddress(@TempDir Path dir) throws Exception {
        AgentRun run = AgentRun.runWithReport(dir, "vertx-blocking");
        assertFalse(run.stderr().contains("self-check"), "the route's and the event bus' hooks are in place:\n" + run.stderr());
        String loop = "loopdiag: blocking-call on loop 'vert.x-eventloop-thread-0': java.lang.Thread.sleep in ";
        // The first request passes Vert.x' HTTP/2 upgrade handlers, the others not: two stacks, two findings.
        List<String> route = run.blocks("blocking-call").stream().filter(block -> block.contains(" route ")).toList();
        assertFalse(route.isEmpty(), run.stderr());
        for (String block : route) {
            assertTrue(block.startsWith(loop + "I/O of Vert.x route GET /report, handler io.loopdiag.apps.VertxBlocking$ReportVerticle.report,"
                    + " called at io.loopdiag.apps.VertxBlocking$ReportVerticle.queryReportRows(VertxBlocking.java:94)"), block);
        }
        List<String> consumer = run.blocks("blocking-call").stream().filter(block -> block.contains(" event-bus ")).toList();
        assertEquals(1, consumer.size(), run.stderr());
        assertTrue(consumer.get(0).startsWith(loop + "task of Vert.x event-bus consumer of 'report.audit', handler"
                + " io.loopdiag.apps.VertxBlocking$ReportVerticle.audit, called at"
                + " io.loopdiag.apps.VertxBlocking$ReportVerticle.insertAuditRow(VertxBlocking.java:84)"), consumer.get(0));
        assertEquals(route.size() + consumer.size(), run.blocks("blocking-call").size(), run.stderr());
        assertEquals(8, occurrences(run.report(), "blocking-call"), "each of the four requests, in the route and the consumer:\n" + run.report());
        String slow = stalled(run, "slow-callback", "route GET /report");
        assertTrue(slow.contains("limit 100 ms"), slow);
        assertFalse(run.stderr().contains("has been blocked for"), "reported before Vert.x' own checker (2 s) would:\n" + run.stderr());
    }

    @Test
    void aBlockingCallableOnTheParallelSchedulerIsReportedAndTheBoundedElasticOneIsNot(@TempDir Path dir) throws Exception {
        AgentRun run = AgentRun.runWithReport(dir, "reactor-blocking");
        List<String> blocking = run.blocks("blocking-call");
        assertEquals(1, blocking.size(), run.stderr());
        assertTrue(blocking.get(0).startsWith("loopdiag: blocking-call on loop 'parallel-1': java.lang.Thread.sleep on a Reactor"
                + " non-blocking thread, called at io.loopdiag.apps.ReactorBlocking.lookUpRate(ReactorBlocking.java:46)"), blocking.get(0));
    }

    @Test
    void theThreadsOptionMakesMatchingThreadsLoopThreads(@TempDir Path dir) throws Exception {
        AgentRun run = AgentRun.runWithReport(dir, "threads=boundedElastic-\\d+,", "reactor-blocking");
        List<String> named = run.blocks("blocking-call on loop 'boundedElastic-");
        assertEquals(1, named.size(), run.stderr());
        assertTrue(named.get(0).contains(": java.lang.Thread.sleep on a thread named by the threads option, called at"
                + " io.loopdiag.apps.ReactorBlocking.lookUpRateOnBoundedElastic(ReactorBlocking.java:"), named.get(0));
        assertEquals(1, run.blocks("blocking-call on loop 'parallel-1'").size(), run.stderr());
    }

    @Test
    void fileIoAndASleepInASwingActionAreReportedOnTheEventDispatchThread(@TempDir Path dir) throws Exception {
        AgentRun run = AgentRun.runWithReport(dir, "swing-edt-freeze");
        List<String> blocking = run.blocks("blocking-call");
        for (String call : List.of("java.nio.file.Files.writeString", "java.nio.file.Files.readString", "java.lang.Thread.sleep")) {
            List<String> matching = blocking.stream().filter(block -> block.startsWith("loopdiag: blocking-call on loop"
                    + " 'AWT-EventQueue-0': " + call)).toList();
            assertEquals(1, matching.size(), call + ":\n" + run.stderr());
            assertTrue(matching.get(0).contains(" in MouseEvent MOUSE_RELEASED on javax.swing.JButton 'Export', called at"
                    + " io.loopdiag.apps.SwingEdtFreeze$ExportAction.export(SwingEdtFreeze.java:"), matching.get(0));
        }
        String slow = stalled(run, "slow-callback", "MouseEvent MOUSE_RELEASED");
        assertTrue(slow.contains("SwingEdtFreeze$ExportAction.export(SwingEdtFreeze.java:103)"), slow);
    }

    @Test
    void aNettyTransportWithoutAHookIsNamedByTheSelfCheckAndItsTasksAreStillWatched() throws Exception {
        String output = runTestProgram(CustomTransport.class, "");
        assertTrue(output.contains("custom-transport done"), output);
        List<String> selfCheck = output.lines().filter(line -> line.startsWith("loopdiag: self-check: ")).toList();
        assertEquals(List.of("loopdiag: self-check: Netty event loop io.netty.channel.SingleThreadIoEventLoop with I/O handler "
                + CustomTransport.class.getName() + "$Handler (Netty " + io.netty.util.Version.identify().get("netty-common").artifactVersion()
                + "): the agent has no hook for its I/O, so its channel handlers are neither timed nor checked for blocking calls;"
                + " its tasks are"), selfCheck, output);
        assertTrue(output.contains("loopdiag: blocking-call on loop "), "its tasks are watched:\n" + output);
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking=throw", "blocking=warn", "blocking=off"})
    void theBlockingModesAndTheAllowListWorkOnANettyLoopAsOnLoopCore(String mode) throws Exception {
        String output = runTestProgram(NettyModes.class, "=" + mode + ",allow=" + NettyModes.class.getName() + "#allowedPause");
        assertTrue(output.contains("netty-modes done"), output);
        assertTrue(output.contains("\nallowedPause returned\n"), "an allowed call is never refused:\n" + output);
        List<String> found = AgentRun.blocks(output, "loopdiag: blocking-call");
        switch (mode) {
            case "blocking=throw" -> {
                assertTrue(output.contains("\npause threw io.loopdiag.agent.boot.BlockingCallError: loopdiag: blocking call"
                        + " java.lang.Thread.sleep in task "), output);
                assertEquals(1, found.size(), output);
            }
            case "blocking=warn" -> {
                assertTrue(output.contains("\npause returned\n"), output);
                assertEquals(1, found.size(), output);
                assertTrue(found.get(0).startsWith("loopdiag: blocking-call on loop 'modes-loop-"), found.get(0));
                assertTrue(found.get(0).contains("called at " + NettyModes.class.getName() + ".pause(NettyModes.java:"), found.get(0));
            }
            default -> {
                assertTrue(output.contains("\npause returned\n"), output);
                assertEquals(List.of(), found, output);
            }
        }
    }

    @Test
    void aNettyLoopWaitingToEnterAContendedMonitorIsABlockingCallNamingTheMonitorAndItsHolder() throws Exception {
        String output = runTestProgram(NettyMonitor.class, "");
        assertTrue(output.contains("netty-monitor done"), output);
        List<String> found = AgentRun.blocks(output, "loopdiag: blocking-call");
        assertEquals(1, found.size(), output);
        assertTrue(found.get(0).startsWith("loopdiag: blocking-call on loop 'monitor-loop-"), found.get(0));
        assertTrue(found.get(0).contains(": synchronized (waits to enter the monitor of a " + NettyMonitor.class.getName()
                + "$PriceTable held by thread 'price-refresher') in task "), found.get(0));
        assertTrue(found.get(0).contains(", at " + NettyMonitor.class.getName() + ".readPrices(NettyMonitor.java:"), found.get(0));
    }

    /**
     * Netty 4.2's I/O handler runs a batch at every wake-up of its loop, I/O or not: one that
     * handled nothing is not a unit of the loop's work: a task submitted to an idle loop is one
     * unit, not two, and an idle loop, which Netty wakes a few times a second, runs none.
     */
    @Test
    void aNetty42LoopWokenForATaskCountsTheTaskAloneAsItsUnit() throws Exception {
        String output = runTestProgram(NettyWakeUps.class, "=log=off");
        assertTrue(output.contains("netty-wakeups done"), output);
        long units = Long.parseLong(output.lines().filter(line -> line.startsWith("units ")).findFirst().orElseThrow().substring(6));
        assertNotEquals(-1, units, "the idle loop's Units kept growing: its wake-ups counted as units");
        assertTrue(units >= NettyWakeUps.TASKS, "every task is a unit: " + units);
        assertTrue(units < NettyWakeUps.TASKS * 5 / 4, "an empty I/O batch is no unit: " + units + " for " + NettyWakeUps.TASKS + " tasks");
    }

    /** Runs {@code main}, a program of these tests, with the agent and {@code options}; its stdout and stderr, once it exited 0. */
    private static String runTestProgram(Class<?> main, String options) throws Exception {
        List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(), "-javaagent:" + AgentRun.AGENT + options,
                "-cp", System.getProperty("java.class.path"), main.getName());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, child.waitFor(), output);
        return output;
    }

    /** The one block of {@code kind} whose header contains {@code naming}. */
    private static String stalled(AgentRun run, String kind, String naming) {
        List<String> blocks = run.blocks(kind).stream().filter(block -> block.lines().findFirst().orElseThrow().contains(naming)).toList();
        assertFalse(blocks.isEmpty(), "a " + kind + " naming " + naming + ":\n" + run.stderr());
        return blocks.get(0);
    }

    private static long occurrences(JsonNode report, String kind) {
        long count = 0;
        for (JsonNode detection : report.path("detections")) {
            if (detection.path("kind").asText().equals(kind)) {
                count += detection.path("count").asLong();
            }
        }
        return count;
    }
}
