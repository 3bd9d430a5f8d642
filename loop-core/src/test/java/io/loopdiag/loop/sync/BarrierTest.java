package io.loopdiag.loop.sync;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.Task;
import io.loopdiag.loop.TestLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Barrier, against asyncio's (3.11): rounds, places, reset, abort, cancellation. */
@Timeout(10)
class BarrierTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();

    private static Task<Integer> party(Barrier barrier, String name, List<String> log) {
        return createTask(name, () -> {
            log.add(name + " arrives");
            int place = barrier.await();
            log.add(name + " passes");
            return place;
        });
    }

    @Test
    void nobodyPassesUntilTheLastPartyArrivesThenAllPassWithTheirPlaces() throws Exception {
        Barrier barrier = new Barrier(3);
        List<String> log = new ArrayList<>();
        List<Integer> places = test.run(() -> {
            Task<Integer> a = party(barrier, "a", log);
            Task<Integer> b = party(barrier, "b", log);
            TestLoop.settle();
            assertEquals(2, barrier.waiting());
            assertFalse(a.isDone() || b.isDone());
            Task<Integer> c = party(barrier, "c", log);
            return List.of(await(a), await(b), await(c));
        });
        assertEquals(List.of(0, 1, 2), places);
        assertEquals(List.of("a arrives", "b arrives", "c arrives"), log.subList(0, 3));
        assertEquals(0, barrier.waiting());
    }

    @Test
    void theBarrierFillsAgainForTheNextRound() throws Exception {
        Barrier barrier = new Barrier(2);
        List<Integer> places = test.run(() -> {
            List<Integer> all = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                Task<Integer> other = createTask("other", barrier::await);
                all.add(barrier.await());
                all.add(await(other));
            }
            return all;
        });
        assertEquals(List.of(0, 1, 0, 1, 0, 1), places, "the main task arrives first each round");
    }

    @Test
    void resetSendsTheWaitingAwayAndStartsAfresh() throws Exception {
        Barrier barrier = new Barrier(2);
        int place = test.run(() -> {
            Task<Integer> waiting = createTask("waiting", barrier::await);
            TestLoop.settle();
            barrier.reset();
            assertInstanceOf(BrokenBarrierException.class, assertThrows(Exception.class, () -> await(waiting)));
            assertFalse(barrier.isBroken());
            Task<Integer> next = createTask("next", barrier::await);
            int mine = barrier.await();
            await(next);
            return mine;
        });
        assertEquals(0, place, "the first of a fresh round after the reset");
    }

    @Test
    void abortBreaksItForTheWaitingAndEveryLaterCaller() throws Exception {
        Barrier barrier = new Barrier(3);
        String message = test.run(() -> {
            Task<Integer> waiting = createTask("waiting", barrier::await);
            TestLoop.settle();
            barrier.abort();
            assertEquals("barrier aborted", assertThrows(BrokenBarrierException.class, () -> await(waiting)).getMessage());
            return assertThrows(BrokenBarrierException.class, barrier::await).getMessage();
        });
        assertEquals("barrier aborted", message);
        assertTrue(barrier.isBroken());
    }

    @Test
    void aCancelledPartyLeavesTheRoundShortButUnbroken() throws Exception {
        Barrier barrier = new Barrier(2);
        int place = test.run(() -> {
            Task<Integer> quitter = createTask("quitter", barrier::await);
            TestLoop.settle();
            quitter.cancel();
            TestLoop.settle();
            assertEquals(0, barrier.waiting());
            Task<Integer> other = createTask("other", barrier::await);
            TestLoop.settle();
            int mine = barrier.await();
            await(other);
            return mine;
        });
        assertEquals(1, place);
        assertFalse(barrier.isBroken());
    }

    @Test
    void aBarrierNeedsAParty() {
        assertEquals("a barrier needs at least 1 party, not 0",
                assertThrows(IllegalArgumentException.class, () -> new Barrier(0)).getMessage());
    }
}
