#!/usr/bin/env python3
"""CPython asyncio peer servers for loop-core's network benchmarks.

    python3 bench/peers/asyncio_servers.py echo|http [--port N]

Binds 127.0.0.1 (port 0 or absent: a free one), prints one line
"<kind>-server listening on 127.0.0.1:PORT" on stdout once ready, then serves
until SIGTERM/SIGINT, on which it exits quietly with code 0.

echo: asyncio streams; read up to 64 KiB, write it back, await drain().
http: a hand-written asyncio.Protocol answering every request (a request ends
at CRLF CRLF; pipelined and split requests handled) with a fixed keep-alive
"Hello, World!" response.
"""

import argparse
import asyncio
import signal
import sys

RESPONSE = (b"HTTP/1.1 200 OK\r\n"
            b"Content-Type: text/plain\r\n"
            b"Content-Length: 13\r\n"
            b"Connection: keep-alive\r\n"
            b"\r\n"
            b"Hello, World!")
END = b"\r\n\r\n"
MAX_HEAD = 64 * 1024  # a request head longer than this closes the connection


ECHO_CONNECTIONS = {}  # handler task -> writer, to close them at shutdown


async def echo_handler(reader, writer):
    ECHO_CONNECTIONS[asyncio.current_task()] = writer
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()
        del ECHO_CONNECTIONS[asyncio.current_task()]


class HttpProtocol(asyncio.Protocol):
    __slots__ = ("transport", "buf")

    def connection_made(self, transport):
        self.transport = transport
        self.buf = b""

    def data_received(self, data):
        buf = self.buf + data if self.buf else data
        count = buf.count(END)
        if count:
            # One write for every complete request in this read (pipelining).
            self.transport.write(RESPONSE if count == 1 else RESPONSE * count)
            buf = buf[buf.rfind(END) + 4:]
        if len(buf) > MAX_HEAD:
            self.transport.close()
            buf = b""
        self.buf = buf

    def connection_lost(self, exc):
        self.transport = None


async def serve(kind, port):
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    if kind == "echo":
        server = await asyncio.start_server(echo_handler, "127.0.0.1", port)
    else:
        server = await loop.create_server(HttpProtocol, "127.0.0.1", port)
    bound = server.sockets[0].getsockname()[1]
    sys.stdout.write(f"{kind}-server listening on 127.0.0.1:{bound}\n")
    sys.stdout.flush()
    await stop
    server.close()
    # Close open echo connections so that their handlers end by EOF, not by
    # the cancellation asyncio.run would deliver (which streams would log).
    if ECHO_CONNECTIONS:
        for writer in ECHO_CONNECTIONS.values():
            writer.transport.abort()
        await asyncio.wait(list(ECHO_CONNECTIONS), timeout=2)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=("echo", "http"))
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    try:
        asyncio.run(serve(args.kind, args.port))
    except KeyboardInterrupt:  # a SIGINT before the handlers were in place
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
