package io.loopdiag.loop.sync;

import io.loopdiag.protocol.AwaitKinds;
import java.util.concurrent.BrokenBarrierException;
import java.util.function.BooleanSupplier;

/**
 * Lets {@link #parties()} tasks of one loop wait for each other (asyncio 3.11's {@code Barrier}):
 * each calls {@link #await()}, and when the last of them arrives all go on together. The barrier
 * then drains (the tasks leave) and fills again for the next round. {@link #reset()} sends the
 * tasks waiting now away with {@link BrokenBarrierException} and starts afresh; {@link #abort()}
 * breaks it for good. A task waiting here shows in dumps as a wait on a barrier, with no task
 * behind it: which parties are missing is the application's to know. Loop thread and its tasks only.
 */
public final class Barrier {
    private enum State { FILLING, DRAINING, RESETTING, BROKEN }

    private final int parties;
    private final LoopBinding binding = new LoopBinding("barrier");
    private final Waiters waiters;
    private State state = State.FILLING;
    private int count; // tasks inside await(): arrived and waiting, or leaving

    /** A barrier for {@code parties} tasks (at least 1). */
    public Barrier(int parties) {
        if (parties < 1) {
            throw new IllegalArgumentException("a barrier needs at least 1 party, not " + parties);
        }
        this.parties = parties;
        this.waiters = new Waiters(binding, AwaitKinds.BARRIER, "await (" + parties + " parties)", this);
    }

    /**
     * Waits until {@link #parties()} tasks are waiting, then returns this task's place among them,
     * 0 for the first to arrive up to {@code parties - 1} for the last. A task arriving while the
     * previous round drains or resets waits for it to end first.
     *
     * @throws BrokenBarrierException if the barrier is reset or aborted while this task waits, or
     *     was aborted before
     */
    public int await() throws Exception {
        binding.checkThread();
        waitWhile(() -> state == State.DRAINING || state == State.RESETTING);
        if (state == State.BROKEN) {
            throw new BrokenBarrierException("barrier aborted");
        }
        int index = count++;
        try {
            if (index + 1 == parties) {
                state = State.DRAINING;
                waiters.wakeAll();
            } else {
                waitWhile(() -> state == State.FILLING);
                if (state == State.BROKEN || state == State.RESETTING) {
                    throw new BrokenBarrierException("barrier " + (state == State.BROKEN ? "aborted" : "reset"));
                }
            }
            return index;
        } finally {
            count--;
            if (count == 0) {
                if (state == State.RESETTING || state == State.DRAINING) {
                    state = State.FILLING;
                }
                waiters.wakeAll();
            }
        }
    }

    /**
     * Back to empty: tasks waiting now get {@link BrokenBarrierException}, and new ones wait for a
     * full round again. Unlike asyncio's, it does not suspend (the loop runs one task at a time).
     */
    public void reset() {
        binding.checkThread();
        state = count > 0 ? State.RESETTING : State.FILLING;
        waiters.wakeAll();
    }

    /** Breaks the barrier: tasks waiting now, and every later {@link #await()}, get {@link BrokenBarrierException}. */
    public void abort() {
        binding.checkThread();
        state = State.BROKEN;
        waiters.wakeAll();
    }

    /** How many tasks it takes to pass. */
    public int parties() {
        return parties;
    }

    /** How many tasks wait for the round to fill (asyncio's {@code n_waiting}). */
    public int waiting() {
        return state == State.FILLING ? count : 0;
    }

    /** True once {@link #abort()} was called. */
    public boolean isBroken() {
        return state == State.BROKEN;
    }

    /** Suspends the calling task while {@code blocked} holds; every change of state wakes all to look again. */
    private void waitWhile(BooleanSupplier blocked) throws Exception {
        while (blocked.getAsBoolean()) {
            waiters.await();
        }
    }

    @Override
    public String toString() {
        return "Barrier[" + state.name().toLowerCase(java.util.Locale.ROOT) + ", waiting " + waiting() + "/" + parties + "]";
    }
}
