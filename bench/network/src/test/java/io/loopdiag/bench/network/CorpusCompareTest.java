package io.loopdiag.bench.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CorpusCompareTest {
    private static final List<BlockingCorpus.Call> CALLS = List.of(
            new BlockingCorpus.Call("Thread.sleep(long)", BlockingCorpus.Group.BLOCKS, f -> null),
            new BlockingCorpus.Call("ProcessBuilder.start", BlockingCorpus.Group.BLOCKS, f -> null),
            new BlockingCorpus.Call("Thread.yield()", BlockingCorpus.Group.DOES_NOT_WAIT, f -> null));

    private static final List<String> AGENT = List.of(
            "loopdiag: agent 0.1.0-SNAPSHOT loaded (slow=100ms, blocking=warn; watching Netty loops)",
            "corpus: begin 1 Thread.sleep(long)",
            "loopdiag: blocking-call on loop 'nioEventLoopGroup-2-1': java.lang.Thread.sleep in task x, called at y",
            "    at java.base/java.lang.Thread.sleep(Thread.java:509)",
            "corpus: end 1 ran 51",
            "corpus: begin 2 ProcessBuilder.start",
            "loopdiag: slow-callback on loop 'nioEventLoopGroup-2-1': task x took about 120 ms",
            "corpus: end 2 ran 4",
            "loopdiag: blocking-call on loop 'nioEventLoopGroup-2-1': outside any marker, counted for no call",
            "corpus: begin 3 Thread.yield()",
            "corpus: end 3 ran 0");

    private static final List<String> HOUND = List.of(
            "blockhound: installed (throw mode; integrations x; a Thread.sleep on the event loop 'l' was caught)",
            "corpus: begin 1 Thread.sleep(long)",
            "corpus: end 1 caught 0 BlockHound: java.lang.Thread.sleepNanos0",
            "corpus: begin 2 ProcessBuilder.start",
            "corpus: end 2 caught 0 BlockHound: java.lang.ProcessImpl#forkAndExec; the call then threw java.lang.Error",
            "corpus: begin 3 Thread.yield()",
            "corpus: end 3 caught 0 BlockHound: java.lang.Thread.yield0");

    @Test
    void theAgentCaughtACallWhenItsBlockingCallLineIsBetweenTheMarkers() {
        Map<Integer, CorpusCompare.Outcome> outcomes = CorpusCompare.outcomes(AGENT, true);
        assertTrue(outcomes.get(1).caught());
        assertEquals(51, outcomes.get(1).millis());
        assertTrue(outcomes.get(1).evidence().startsWith("loopdiag: blocking-call on loop 'nioEventLoopGroup-2-1'"));
        assertFalse(outcomes.get(2).caught(), "a slow-callback is not a blocking-call");
        assertEquals(List.of("loopdiag: slow-callback on loop 'nioEventLoopGroup-2-1': task x took about 120 ms"),
                outcomes.get(2).otherFindings());
        assertFalse(outcomes.get(3).caught(), "a line after an end marker belongs to no call");
    }

    @Test
    void blockHoundCaughtACallWhenItsEndMarkerSaysSo() {
        Map<Integer, CorpusCompare.Outcome> outcomes = CorpusCompare.outcomes(HOUND, false);
        assertTrue(outcomes.get(1).caught());
        assertEquals("BlockHound: java.lang.ProcessImpl#forkAndExec; the call then threw java.lang.Error", outcomes.get(2).evidence());
        assertNull(outcomes.get(2).failure());
    }

    @Test
    void theTableNamesEachCallBlockHoundCaughtAndTheAgentDidNotByGroup() {
        List<CorpusCompare.Row> rows = CorpusCompare.rows(CALLS, AGENT, HOUND);
        assertFalse(CorpusCompare.onlyBlockHoundCaught(rows.get(0)));
        assertTrue(CorpusCompare.onlyBlockHoundCaught(rows.get(1)));
        String table = CorpusCompare.table(rows);
        assertTrue(table.contains("BlockHound caught, loopdiag did not (calls that block): ProcessBuilder.start\n"), table);
        assertTrue(table.contains("BlockHound caught, loopdiag did not (calls that do not wait): Thread.yield()\n"), table);
    }

    @Test
    void aCallAJvmNeverReachedHasNoOutcome() {
        List<CorpusCompare.Row> rows = CorpusCompare.rows(CALLS, AGENT.subList(0, 5), HOUND);
        assertNull(rows.get(1).loopdiag());
        assertTrue(CorpusCompare.onlyBlockHoundCaught(rows.get(1)));
        assertTrue(CorpusCompare.table(rows).contains("(not run)"));
    }
}
