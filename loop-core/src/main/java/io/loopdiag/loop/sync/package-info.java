/**
 * Synchronization primitives for tasks of one event loop, with asyncio's semantics: a
 * {@link io.loopdiag.loop.sync.Queue} between producers and consumers, an
 * {@link io.loopdiag.loop.sync.Event} flag, a {@link io.loopdiag.loop.sync.Lock}, a
 * {@link io.loopdiag.loop.sync.Semaphore} and a {@link io.loopdiag.loop.sync.Condition}.
 *
 * <p>A task that must wait awaits a <em>waiter</em>: a future kept in the primitive's FIFO and
 * completed when the task may go on, labelled so that dumps show what the task waits for. They
 * are not thread-safe and need no locks: like futures, they are used only by the loop and its
 * tasks, one at a time. A primitive binds to the loop of the first task that waits on it.
 */
package io.loopdiag.loop.sync;
