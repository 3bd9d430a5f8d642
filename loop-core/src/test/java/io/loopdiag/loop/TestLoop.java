package io.loopdiag.loop;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A loop on virtual time for one test, closed after it: {@code @RegisterExtension final TestLoop
 * test = new TestLoop();}. Virtual time jumps to the next timer instead of waiting, so a test of
 * an hour-long sleep runs at once and always the same way.
 */
public final class TestLoop implements AfterEachCallback {
    public final LoopClock.Virtual clock = LoopClock.virtual();
    public final EventLoop loop = new EventLoop("test", clock);

    /** Runs {@code body} as a task named {@code main} until it completes; returns its result. */
    public <T> T run(Coroutine.Body<T> body) throws Exception {
        return loop.runUntilComplete(loop.createTask("main", body));
    }

    /** Inside a task: yields a few times, so that every task woken so far has run up to its next wait. */
    public static void settle() throws Exception {
        for (int i = 0; i < 3; i++) {
            Async.sleep(java.time.Duration.ZERO);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        loop.close();
    }
}
