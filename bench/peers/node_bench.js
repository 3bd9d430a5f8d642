#!/usr/bin/env node
'use strict';
// Node.js peer of loop-core's in-process benchmarks: plain Node, built-ins only.
// One JSON object per line on stdout; progress on stderr.
//
//   node bench/peers/node_bench.js [--smoke] [--only W[,W]]
//
// Workloads: callback-chain, task-switch, create-await, timers, suspended-memory.
// The script re-executes itself with --expose-gc (a full GC between
// repetitions, and before each memory reading).

const { spawnSync } = require('child_process');

const SUBJECT = 'node';
const WORKLOADS = ['callback-chain', 'task-switch', 'create-await', 'timers', 'suspended-memory'];

const now = process.hrtime.bigint;

function log(msg) {
  process.stderr.write(msg + '\n');
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const r3 = (x) => Math.round(x * 1000) / 1000;

function emit(workload, metric, samples, params, note) {
  const err = samples.length > 1 ? (Math.max(...samples) - Math.min(...samples)) / 2 : 0;
  const line = {
    workload, subject: SUBJECT, variant: 'default', metric,
    median: r3(median(samples)), error: r3(err), samples: samples.map(r3), params, note,
  };
  process.stdout.write(JSON.stringify(line) + '\n');
}

function fullGc() {
  if (typeof global.gc === 'function') global.gc();
}

// Lets pending I/O and immediates settle between repetitions.
const settle = () => new Promise((r) => setImmediate(r));

async function repeat(cfg, name, oneRep) {
  const warm = cfg.smoke ? 0 : 1;
  const samples = [];
  for (let i = 0; i < warm + cfg.reps; i++) {
    fullGc();
    await settle();
    const v = await oneRep();
    log(`  ${name} ${i < warm ? 'warm-up' : `rep ${i - warm + 1}/${cfg.reps}`}: ${v.toFixed(3)}`);
    if (i >= warm) samples.push(v);
  }
  return samples;
}

// 1. callback-chain: each setImmediate callback schedules the next one.
function callbackChain(n) {
  return new Promise((resolve) => {
    let count = 0;
    let start;
    function cb() {
      if (++count < n) setImmediate(cb);
      else resolve(Number(now() - start) / n);
    }
    start = now();
    setImmediate(cb);
  });
}

// 2. task-switch: T async functions, each awaiting S immediates.
async function switcher(s) {
  for (let i = 0; i < s; i++) await new Promise((r) => setImmediate(r));
}

async function taskSwitch(t, s) {
  const start = now();
  const all = [];
  for (let i = 0; i < t; i++) all.push(switcher(s));
  await Promise.all(all);
  return Number(now() - start) / (t * s);
}

// 3. create-await: call an async function and await it, n times.
async function one() {
  return 1;
}

async function createAwait(n) {
  let acc = 0;
  const start = now();
  for (let i = 0; i < n; i++) acc += await one();
  const elapsed = Number(now() - start);
  if (acc !== n) throw new Error('create-await: wrong sum');
  return elapsed / n;
}

// 4. timers: n setTimeout callbacks, delays uniform in [0, 10) ms.
// The same 32-bit LCG and seed as asyncio_bench.py, so the same delays.
function lcgDelaysMs(n, seed = 20240601) {
  const out = new Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (1664525 * x + 1013904223) % 4294967296; // exact: stays below 2^53
    out[i] = (x / 4294967296) * 10;
  }
  return out;
}

function timers(delays) {
  return new Promise((resolve) => {
    const n = delays.length;
    let count = 0;
    let start;
    const fire = () => {
      if (++count === n) resolve(Number(now() - start) / n);
    };
    start = now();
    for (let i = 0; i < n; i++) setTimeout(fire, delays[i]);
  });
}

// 5. suspended-memory, run in a fresh process (--expose-gc) per repetition.
const neverSettle = () => {};

async function waiter(p, reached) {
  reached.n++;
  await p;
}

async function memoryChild(n) {
  const reached = { n: 0 };
  await settle();
  global.gc();
  global.gc();
  const before = process.memoryUsage();
  // Each async function awaits its own promise, which is never resolved. The
  // array keeps those promises reachable (as a pending operation would):
  // otherwise a suspended function and its promise are garbage, and the GC
  // takes them. A suspended function is reachable through its promise only.
  let pending = new Array(n);
  for (let i = 0; i < n; i++) {
    const p = new Promise(neverSettle);
    pending[i] = p;
    waiter(p, reached);
  }
  while (reached.n < n) await settle();
  await settle();
  global.gc();
  global.gc();
  const after = process.memoryUsage();
  // Read `pending` here: a variable not read after an await is not kept
  // alive across it by V8, and the promises would be collected too early.
  if (pending.length !== n || reached.n !== n) throw new Error('suspended-memory: lost tasks');
  // Clean up: nothing can cancel them; drop them and let the GC take them.
  pending = null;
  global.gc();
  const cleaned = process.memoryUsage();
  process.stdout.write(JSON.stringify({
    heap: after.heapUsed - before.heapUsed,
    rss: after.rss - before.rss,
    heapAfterCleanup: cleaned.heapUsed - before.heapUsed,
  }) + '\n');
}

function suspendedMemory(cfg) {
  const n = cfg.scale(100000);
  const heap = [];
  const rss = [];
  // One fresh process per repetition, no warm-up: a fresh process has
  // nothing to warm, and RSS growth in a reused process would be understated.
  for (let i = 0; i < cfg.reps; i++) {
    const res = spawnSync(process.execPath, ['--expose-gc', __filename, '--_memory-child', String(n)],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (res.status !== 0) throw new Error(`memory child failed (${res.status})`);
    const got = JSON.parse(res.stdout);
    log(`  suspended-memory rep ${i + 1}/${cfg.reps}: heap ${got.heap} B, rss ${got.rss} B` +
      ` (heap after cleanup ${got.heapAfterCleanup} B)`);
    heap.push(got.heap / 1e6);
    rss.push(got.rss / 1e6);
  }
  const params = { tasks: n, future: 'per-task' };
  const perHeap = (median(heap) * 1e6) / n;
  const perRss = (median(rss) * 1e6) / n;
  emit('suspended-memory', 'MB', heap, { ...params, measure: 'heap' },
    `process.memoryUsage().heapUsed growth after global.gc() for ${n} pending async functions, ` +
    `each awaiting its own never-resolved promise (incl. the promise and the array that keeps the promises reachable): ` +
    `${perHeap.toFixed(0)} B/task`);
  emit('suspended-memory', 'MB', rss, { ...params, measure: 'rss' },
    `process.memoryUsage().rss growth: ${perRss.toFixed(0)} B/task; a fresh process per repetition`);
}

// --- driver -----------------------------------------------------------------

function parseArgs(argv) {
  const args = { smoke: false, only: null, memoryChild: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--smoke') args.smoke = true;
    else if (a === '--only') args.only = argv[++i];
    else if (a.startsWith('--only=')) args.only = a.slice(7);
    else if (a === '--_memory-child') args.memoryChild = Number(argv[++i]);
    else if (a === '-h' || a === '--help') {
      log('usage: node node_bench.js [--smoke] [--only W[,W]]\nworkloads: ' + WORKLOADS.join(', '));
      process.exit(0);
    } else {
      log(`unknown argument: ${a}`);
      process.exit(2);
    }
  }
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.memoryChild !== null) {
    await memoryChild(args.memoryChild);
    return;
  }
  if (typeof global.gc !== 'function') {
    // Re-execute with --expose-gc; same arguments, same stdio.
    const res = spawnSync(process.execPath, ['--expose-gc', __filename, ...process.argv.slice(2)],
      { stdio: 'inherit' });
    process.exit(res.status === null ? 1 : res.status);
  }
  let chosen = WORKLOADS;
  if (args.only) {
    chosen = args.only.split(',').map((w) => w.trim()).filter(Boolean);
    const unknown = chosen.filter((w) => !WORKLOADS.includes(w));
    if (unknown.length) {
      log(`unknown workload(s) ${unknown.join(', ')}; choose from ${WORKLOADS.join(', ')}`);
      process.exit(2);
    }
  }
  const cfg = {
    smoke: args.smoke,
    reps: args.smoke ? 1 : 5,
    scale: (n) => (args.smoke ? Math.max(1, Math.floor(n / 1000)) : n),
  };

  for (const w of chosen) {
    log(`${w}${cfg.smoke ? ' (smoke)' : ''}`);
    const t0 = Date.now();
    if (w === 'callback-chain') {
      const n = cfg.scale(1000000);
      const s = await repeat(cfg, w, () => callbackChain(n));
      emit(w, 'ns/op', s, { n }, 'setImmediate from a setImmediate callback');
    } else if (w === 'task-switch') {
      const t = 100;
      const sw = cfg.scale(10000);
      const s = await repeat(cfg, w, () => taskSwitch(t, sw));
      emit(w, 'ns/op', s, { tasks: t, switches: sw },
        'await new Promise(r => setImmediate(r)) in each of the async functions, run together; ns per switch');
    } else if (w === 'create-await') {
      const n = cfg.scale(200000);
      const s = await repeat(cfg, w, () => createAwait(n));
      emit(w, 'ns/op', s, { n }, 'await one() where async function one() { return 1 }');
    } else if (w === 'timers') {
      const n = cfg.scale(100000);
      const delays = lcgDelaysMs(n);
      const s = await repeat(cfg, w, () => timers(delays));
      emit(w, 'ns/op', s, { n, max_delay_ms: 10 },
        'setTimeout with the same delays as asyncio (LCG, fixed seed); Node has 1 ms granularity: ' +
        'it truncates each delay to whole ms and raises delays under 1 ms to 1 ms');
    } else if (w === 'suspended-memory') {
      suspendedMemory(cfg);
    }
    log(`${w} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}

main().catch((e) => {
  log(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
