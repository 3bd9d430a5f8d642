package io.loopdiag.loop.sync;

import io.loopdiag.protocol.AwaitKinds;

/**
 * A flag that tasks can wait for (asyncio's {@code Event}): {@link #set()} wakes every task in
 * {@link #waitSet()}, and later waits return at once until {@link #clear()}. Loop thread and its
 * tasks only.
 */
public final class Event {
    private final LoopBinding binding = new LoopBinding("event");
    private final Waiters waiters = new Waiters(binding, AwaitKinds.EVENT, "event wait", null);
    private boolean set;

    /** True if the flag is set. */
    public boolean isSet() {
        return set;
    }

    /** Sets the flag and wakes every waiting task; does nothing if it is set already. */
    public void set() {
        waiters.checkThread();
        if (!set) {
            set = true;
            waiters.wakeAll();
        }
    }

    /** Clears the flag, so that {@link #waitSet()} suspends again; tasks already woken still go on. */
    public void clear() {
        waiters.checkThread();
        set = false;
    }

    /** Returns at once if the flag is set, else suspends the calling task until {@link #set()} is called. */
    public void waitSet() throws Exception {
        if (set) {
            return;
        }
        waiters.await();
    }

    @Override
    public String toString() {
        return "Event[" + (set ? "set" : "unset") + ", waiters " + waiters.pendingCount() + "]";
    }
}
