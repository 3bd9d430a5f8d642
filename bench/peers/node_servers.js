#!/usr/bin/env node
'use strict';
// Node.js peer servers for loop-core's network benchmarks (built-ins only).
//
//   node bench/peers/node_servers.js echo|http [--port N]
//
// Binds 127.0.0.1 (port 0 or absent: a free one), prints one line
// "<kind>-server listening on 127.0.0.1:PORT" on stdout once ready, then serves
// until SIGTERM/SIGINT, on which it exits quietly with code 0.
//
// echo: net; every chunk read is written back (socket.on('data', d => socket.write(d))).
// http: the built-in http module, keep-alive "Hello, World!".

const net = require('net');
const http = require('http');

function usage(msg) {
  if (msg) process.stderr.write(msg + '\n');
  process.stderr.write('usage: node node_servers.js echo|http [--port N]\n');
  process.exit(2);
}

const argv = process.argv.slice(2);
let kind = null;
let port = 0;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--port') port = Number(argv[++i]);
  else if (a.startsWith('--port=')) port = Number(a.slice(7));
  else if (a === 'echo' || a === 'http') kind = a;
  else usage(`unknown argument: ${a}`);
}
if (!kind) usage();
if (!Number.isInteger(port) || port < 0 || port > 65535) usage('bad --port');

let server;
if (kind === 'echo') {
  // noDelay: asyncio and loop-core set TCP_NODELAY on their sockets too.
  server = net.createServer({ noDelay: true }, (socket) => {
    socket.on('data', (d) => socket.write(d));
    socket.on('error', () => {});
  });
} else {
  // The response is byte for byte the one loop-core and asyncio send: no Date
  // header (sendDate false) and no "Keep-Alive: timeout=5" header
  // (keepAliveTimeout 0: the server does not time out idle keep-alive
  // connections). Node adds "Connection: keep-alive" itself.
  server = http.createServer((req, res) => {
    res.sendDate = false;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 13 });
    res.end('Hello, World!');
  });
  server.keepAliveTimeout = 0;
}

server.on('error', (e) => {
  process.stderr.write(`${kind}-server: ${e.message}\n`);
  process.exit(1);
});

const quit = () => process.exit(0);
process.on('SIGTERM', quit);
process.on('SIGINT', quit);

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${kind}-server listening on 127.0.0.1:${server.address().port}\n`);
});
