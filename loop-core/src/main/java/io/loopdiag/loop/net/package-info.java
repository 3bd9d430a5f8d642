/**
 * Non-blocking TCP on the event loop, with asyncio's semantics. {@link io.loopdiag.loop.net.Sockets}
 * awaits single socket operations (accept, recv, send, connect); {@link io.loopdiag.loop.net.Streams}
 * opens connections and starts servers whose traffic flows through a
 * {@link io.loopdiag.loop.net.StreamReader} and a {@link io.loopdiag.loop.net.StreamWriter}, with
 * flow control in both directions; {@link io.loopdiag.loop.net.Subprocess} gives a child process's
 * standard streams as the same readers and writers.
 */
package io.loopdiag.loop.net;
