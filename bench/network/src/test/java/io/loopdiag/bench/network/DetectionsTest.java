package io.loopdiag.bench.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DetectionsTest {
    private static final String AGENT_LOADED = "loopdiag: agent 0.1.0-SNAPSHOT loaded (slow=100ms, blocking=warn; watching Netty loops)";
    private static final String HOUND_INSTALLED = "blockhound: installed (log mode; integrations x; a Thread.sleep on the event loop 'l' was caught)";

    @TempDir
    Path dir;

    private Path stderr(String... lines) throws IOException {
        return Files.write(dir.resolve("server.err"), java.util.List.of(lines));
    }

    @Test
    void agentFindingHeadersAreCountedButNotTheirFramesOrOtherLines() throws IOException {
        Detections detections = Detections.read(stderr(AGENT_LOADED,
                "loopdiag: slow-callback on loop 'nioEventLoopGroup-3-2': I/O took about 106 ms",
                "    at io.netty.channel.nio.NioEventLoop.processSelectedKeys(NioEventLoop.java:658)",
                "loopdiag: blocking-call on loop 'nioEventLoopGroup-3-1': java.lang.Thread.sleep in task x",
                "loopdiag: agent already installed; ignoring the second load",
                "blockhound: blocking call java.lang.Thread.sleepNanos0 on thread 'x'"));
        assertTrue(detections.loaded());
        assertEquals(2, detections.count());
        assertEquals("loopdiag: slow-callback on loop 'nioEventLoopGroup-3-2': I/O took about 106 ms", detections.first());
        assertTrue(detections.problem().startsWith("2 detection(s) on the healthy path"), detections.problem());
    }

    @Test
    void aSelfCheckProblemIsNotedWithoutCountingAsADetection() throws IOException {
        Detections detections = Detections.read(stderr(AGENT_LOADED,
                "loopdiag: self-check: Netty event loop X: the agent has no hook for its I/O"));
        assertEquals(0, detections.count());
        assertEquals("1 self-check problem(s), first: loopdiag: self-check: Netty event loop X: the agent has no hook for its I/O",
                detections.problem());
    }

    @Test
    void blockHoundLinesAreReadOnlyForBlockHound() throws IOException {
        Path file = stderr(HOUND_INSTALLED,
                "blockhound: blocking call java.lang.Thread.sleepNanos0 on thread 'nioEventLoopGroup-3-1'",
                "    at java.base/java.lang.Thread.sleepNanos0(Native Method)",
                "loopdiag: blocking-call on loop 'x': y");
        Detections hound = Detections.read(file, Detections.Tool.BLOCKHOUND);
        assertTrue(hound.loaded());
        assertEquals(1, hound.count());
        Detections agent = Detections.read(file, Detections.Tool.LOOPDIAG);
        assertFalse(agent.loaded());
        assertEquals("the agent did not say it loaded", agent.problem());
    }

    @Test
    void aQuietToolThatLoadedHasNoProblem() throws IOException {
        assertNull(Detections.read(stderr(HOUND_INSTALLED), Detections.Tool.BLOCKHOUND).problem());
        assertEquals("BlockHound did not say it loaded", Detections.read(stderr("hello"), Detections.Tool.BLOCKHOUND).problem());
        assertThrows(IllegalArgumentException.class, () -> Detections.Tool.named("jfr"));
    }
}
