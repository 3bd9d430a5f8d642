package io.loopdiag.loop.sync;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.createTask;
import static io.loopdiag.loop.Async.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.loop.CancelledException;
import io.loopdiag.loop.LoopClock;
import io.loopdiag.loop.Task;
import io.loopdiag.loop.TestLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class EventTest {
    @RegisterExtension
    final TestLoop test = new TestLoop();
    private final LoopClock.Virtual clock = test.clock;

    @Test
    void setWakesEveryWaitingTask() throws Exception {
        Event event = new Event();
        List<String> woken = new ArrayList<>();
        test.run(() -> {
            List<Task<Void>> waiters = new ArrayList<>();
            for (String name : List.of("w1", "w2", "w3")) {
                waiters.add(createTask(name, () -> {
                    event.waitSet();
                    woken.add(name);
                    return null;
                }));
            }
            sleep(Duration.ofMillis(10));
            assertTrue(woken.isEmpty());
            assertEquals("event wait", waiters.get(0).awaiting().awaitLabel());
            event.set();
            for (Task<Void> waiter : waiters) {
                await(waiter);
            }
            return null;
        });
        assertEquals(List.of("w1", "w2", "w3"), woken);
        assertTrue(event.isSet());
    }

    @Test
    void waitSetReturnsAtOnceWhileSetAndSuspendsAgainAfterClear() throws Exception {
        Event event = new Event();
        event.set();
        test.run(() -> {
            event.waitSet();
            assertEquals(0, clock.nanoTime());
            event.clear();
            assertFalse(event.isSet());
            Task<Void> waiter = createTask("waiter", () -> {
                event.waitSet();
                return null;
            });
            sleep(Duration.ofMillis(5));
            assertFalse(waiter.isDone());
            event.set();
            await(waiter);
            return null;
        });
    }

    @Test
    void aCancelledWaiterDoesNotKeepOthersFromWaking() throws Exception {
        Event event = new Event();
        test.run(() -> {
            Task<Void> cancelled = createTask("cancelled", () -> {
                event.waitSet();
                return null;
            });
            Task<Void> other = createTask("other", () -> {
                event.waitSet();
                return null;
            });
            sleep(Duration.ofMillis(1));
            cancelled.cancel();
            sleep(Duration.ofMillis(1));
            event.set();
            await(other);
            assertThrows(CancelledException.class, () -> await(cancelled));
            return null;
        });
    }
}
