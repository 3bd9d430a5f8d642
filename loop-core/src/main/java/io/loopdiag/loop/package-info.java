/**
 * A reference event loop with asyncio's semantics. An {@link io.loopdiag.loop.EventLoop} runs
 * {@link io.loopdiag.loop.Handle callbacks} from a ready queue, a timer heap and a
 * {@link java.nio.channels.Selector}; a {@link io.loopdiag.loop.Future} is a result that will
 * exist, and a {@link io.loopdiag.loop.Task} drives a lazy {@link io.loopdiag.loop.Coroutine}.
 *
 * <p>Each task runs on a virtual thread of its own, and the loop runs on a virtual thread too;
 * exactly one of them runs at a time, handing a baton back and forth. A task that
 * {@linkplain io.loopdiag.loop.Async#await awaits} parks its virtual thread, so its stack stays
 * where it is: {@link java.lang.Thread#getStackTrace()} of that thread is the task's suspension
 * stack, which is what loopdiag's dumps show.
 */
package io.loopdiag.loop;
