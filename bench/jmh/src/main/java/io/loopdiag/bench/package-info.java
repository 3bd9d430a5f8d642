/**
 * JMH benchmarks: loop-core's hot paths (callback chain, task switch, create and await, timers)
 * beside the same workloads on Netty's event loop and kotlinx-coroutines, and the cost of a
 * blocking-call check off the loop beside BlockHound's. {@code bench/run} runs them with and
 * without the agent.
 */
package io.loopdiag.bench;
