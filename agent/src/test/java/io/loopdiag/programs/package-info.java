/**
 * Small programs the agent's tests run in a child JVM with the agent, each a main class: a Netty
 * transport the agent does not know, blocking calls under each {@code blocking} mode, a contended
 * monitor on a Netty loop. Outside the agent's package, whose frames the agent takes for its own.
 */
package io.loopdiag.programs;
