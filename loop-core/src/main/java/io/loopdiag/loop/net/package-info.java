/**
 * Non-blocking TCP and TLS on the event loop, with asyncio's semantics. {@link io.loopdiag.loop.net.Sockets}
 * awaits single socket operations (accept, recv, send, connect); {@link io.loopdiag.loop.net.Streams}
 * opens connections and starts servers, plain or TLS (given an {@code SSLContext}, on the JDK's
 * {@code SSLEngine}), whose traffic flows through a {@link io.loopdiag.loop.net.StreamReader} and a
 * {@link io.loopdiag.loop.net.StreamWriter}, with flow control in both directions.
 */
package io.loopdiag.loop.net;
