#!/usr/bin/env python3
"""Checks the peer servers by hand-made traffic (standard library only).

    python3 bench/peers/check_servers.py            # all four servers
    python3 bench/peers/check_servers.py asyncio    # or: node

For each server: the ready line, then echo (small, 4 MiB in order while
reading concurrently, several connections) or http (one request, keep-alive
reuse, 3 pipelined requests in one write, a request split across writes, its
terminator split too, and a 2 000-request pipelined burst); then SIGTERM must
end it with code 0 and nothing on stderr.
"""

import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n"
            b"Connection: keep-alive\r\n\r\nHello, World!")
REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: check\r\nAccept: */*\r\n\r\n"

COMMANDS = {
    "asyncio": [sys.executable, os.path.join(HERE, "asyncio_servers.py")],
    "node": ["node", os.path.join(HERE, "node_servers.js")],
}


def start(cmd, kind):
    proc = subprocess.Popen(cmd + [kind], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = proc.stdout.readline().decode()
    m = re.fullmatch(rf"{kind}-server listening on 127\.0\.0\.1:(\d+)\n", line)
    assert m, f"ready line was {line!r}"
    return proc, int(m.group(1))


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(10)
    err = proc.stderr.read()
    extra = proc.stdout.read()
    assert rc == 0, f"exit code {rc}, stderr {err!r}"
    assert not err and not extra, f"after SIGTERM: stdout {extra!r} stderr {err!r}"


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(1 << 20, n - len(buf)))
        assert chunk, f"closed after {len(buf)} of {n} bytes"
        buf += chunk
    return bytes(buf)


def check_echo(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"hello")
        assert recv_exact(s, 5) == b"hello"
    # 4 MiB of random bytes, written by one thread while this one reads.
    data = random.Random(7).randbytes(4 << 20)
    with socket.create_connection(("127.0.0.1", port)) as s:
        t = threading.Thread(target=lambda: s.sendall(data))
        t.start()
        got = recv_exact(s, len(data))
        t.join()
        assert got == data, "echoed bytes differ"
        s.shutdown(socket.SHUT_WR)
        assert s.recv(1) == b"", "expected the server to close after our EOF"
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    for i, s in enumerate(socks):
        s.sendall(b"conn %d\n" % i)
    for i, s in enumerate(socks):
        msg = b"conn %d\n" % i
        assert recv_exact(s, len(msg)) == msg
        s.close()
    return "echo: small, 4 MiB in order, 20 connections"


def check_http(port):
    n = len(RESPONSE)
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(REQUEST)
        assert recv_exact(s, n) == RESPONSE, "single request"
        s.sendall(REQUEST)  # keep-alive: same connection
        assert recv_exact(s, n) == RESPONSE, "second request on the same connection"
        s.sendall(REQUEST * 3)  # pipelined in one write
        assert recv_exact(s, 3 * n) == RESPONSE * 3, "3 pipelined requests"
        for part in (REQUEST[:10], REQUEST[10:-3], REQUEST[-3:]):  # split, terminator too
            s.sendall(part)
            time.sleep(0.05)
        assert recv_exact(s, n) == RESPONSE, "split request"
        s.sendall(REQUEST + REQUEST[:20])  # one and a half
        time.sleep(0.05)
        s.sendall(REQUEST[20:])
        assert recv_exact(s, 2 * n) == RESPONSE * 2, "request and a half, then the rest"
        s.settimeout(0.3)
        try:
            extra = s.recv(1)
        except socket.timeout:
            extra = b""
        assert extra == b"", f"unexpected extra bytes {extra!r}"
        s.settimeout(None)
        burst = 2000
        t = threading.Thread(target=lambda: s.sendall(REQUEST * burst))
        t.start()
        assert recv_exact(s, burst * n) == RESPONSE * burst, "pipelined burst"
        t.join()
    return "http: single, keep-alive, 3 pipelined, split, 1.5 + rest, 2000 pipelined"


def main():
    which = sys.argv[1:] or ["asyncio", "node"]
    failed = False
    for peer in which:
        for kind, check in (("echo", check_echo), ("http", check_http)):
            proc, port = start(COMMANDS[peer], kind)
            try:
                what = check(port)
                stop(proc)
                print(f"ok   {peer} {what}; SIGTERM exit 0, quiet")
            except Exception as e:  # report and go on with the next server
                failed = True
                proc.kill()
                print(f"FAIL {peer} {kind}: {e!r}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
