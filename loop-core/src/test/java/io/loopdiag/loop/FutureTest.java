package io.loopdiag.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class FutureTest {
    private final EventLoop loop = new EventLoop("test", LoopClock.virtual());

    @AfterEach
    void close() {
        loop.close();
    }

    private void runOneIteration() {
        loop.callSoon(loop::stop);
        loop.runForever();
    }

    @Test
    void resultIsRefusedWhilePending() {
        Future<String> future = loop.createFuture();
        assertFalse(future.isDone());
        assertThrows(InvalidStateException.class, future::result);
        assertThrows(InvalidStateException.class, future::exception);
    }

    @Test
    void setResultCompletesOnce() throws Exception {
        Future<String> future = loop.createFuture();
        future.setResult("a");
        assertTrue(future.isDone());
        assertEquals("a", future.result());
        assertNull(future.exception());
        assertThrows(InvalidStateException.class, () -> future.setResult("b"));
        assertThrows(InvalidStateException.class, () -> future.setException(new RuntimeException()));
        assertFalse(future.cancel());
    }

    @Test
    void setExceptionIsRethrownByResultUnchanged() {
        Future<String> future = loop.createFuture();
        IOException failure = new IOException("disk");
        future.setException(failure);
        IOException thrown = assertThrows(IOException.class, future::result);
        assertSame(failure, thrown);
        assertSame(failure, future.exception());
    }

    @Test
    void cancelMakesResultThrowCancelledException() {
        Future<String> future = loop.createFuture();
        assertTrue(future.cancel("no longer needed"));
        assertTrue(future.isCancelled());
        assertTrue(future.isDone());
        CancelledException thrown = assertThrows(CancelledException.class, future::result);
        assertEquals("no longer needed", thrown.getMessage());
        assertFalse(future.cancel());
    }

    @Test
    void doneCallbacksAreScheduledNotRunInline() {
        Future<String> future = loop.createFuture();
        List<String> log = new ArrayList<>();
        future.addDoneCallback(f -> log.add("callback"));
        future.setResult("x");
        assertEquals(List.of(), log);
        runOneIteration();
        assertEquals(List.of("callback"), log);
    }

    @Test
    void aCallbackAddedToADoneFutureRunsNextIteration() {
        Future<String> future = loop.createFuture();
        future.setResult("x");
        List<String> log = new ArrayList<>();
        future.addDoneCallback(f -> log.add("late"));
        assertEquals(List.of(), log);
        runOneIteration();
        assertEquals(List.of("late"), log);
    }

    @Test
    void doneCallbacksRunInTheOrderAdded() {
        Future<String> future = loop.createFuture();
        List<Integer> log = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            future.addDoneCallback(f -> log.add(n));
        }
        future.cancel();
        runOneIteration();
        assertEquals(List.of(0, 1, 2, 3, 4), log);
    }

    @Test
    void removeDoneCallbackStopsItFromRunning() {
        Future<String> future = loop.createFuture();
        List<String> log = new ArrayList<>();
        java.util.function.Consumer<Future<String>> callback = f -> log.add("ran");
        future.addDoneCallback(callback);
        assertEquals(1, future.removeDoneCallback(callback));
        future.setResult("x");
        runOneIteration();
        assertEquals(List.of(), log);
    }

    @Test
    void anUnretrievedExceptionIsKnownUntilAsked() {
        Future<String> future = loop.createFuture();
        future.setException(new IllegalStateException("lost"));
        assertTrue(future.hasUnretrievedException());
        future.exception();
        assertFalse(future.hasUnretrievedException());
    }

    @Test
    void cancellingIsNotAFailureToRetrieve() {
        Future<String> future = loop.createFuture();
        future.cancel();
        assertFalse(future.hasUnretrievedException());
    }

    @Test
    void stateNamesDescribeTheOutcome() {
        Future<String> pending = loop.createFuture();
        Future<String> failed = loop.createFuture();
        failed.setException(new RuntimeException());
        Future<String> cancelled = loop.createFuture();
        cancelled.cancel();
        Future<String> finished = loop.createFuture();
        finished.setResult("ok");
        assertEquals(List.of("pending", "failed", "cancelled", "finished"),
                List.of(pending.stateName(), failed.stateName(), cancelled.stateName(), finished.stateName()));
    }
}
