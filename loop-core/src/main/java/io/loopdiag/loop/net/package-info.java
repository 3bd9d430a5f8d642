/**
 * Non-blocking TCP, TLS, Unix domain sockets, UDP and subprocess pipes on the event loop, with
 * asyncio's semantics. {@link io.loopdiag.loop.net.Sockets} awaits single socket operations
 * (accept, recv, send, connect); {@link io.loopdiag.loop.net.Streams} opens connections and starts
 * servers, over TCP (plain, or TLS given an {@code SSLContext}, on the JDK's {@code SSLEngine}) or
 * a Unix domain socket, whose traffic flows through a {@link io.loopdiag.loop.net.StreamReader} and
 * a {@link io.loopdiag.loop.net.StreamWriter}, with flow control in both directions;
 * {@link io.loopdiag.loop.net.Subprocess} gives a child process's standard streams as the same
 * readers and writers; {@link io.loopdiag.loop.net.Datagrams} opens a UDP
 * {@link io.loopdiag.loop.net.DatagramEndpoint}.
 */
package io.loopdiag.loop.net;
