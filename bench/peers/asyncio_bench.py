#!/usr/bin/env python3
"""CPython asyncio peer of loop-core's in-process benchmarks.

Each measurement is printed as one JSON object per line on stdout; progress
goes to stderr. The default event loop only (no uvloop), standard library only.

    python3 bench/peers/asyncio_bench.py [--smoke] [--only W[,W]] [--debug]

Workloads: callback-chain, task-switch, create-await, timers (these four also
with --debug, variant "debug"), suspended-memory, dump-100k (with dump-stall).
"""

import argparse
import asyncio
import gc
import io
import json
import os
import statistics
import subprocess
import sys
import time

SUBJECT = "asyncio"
PAGE = os.sysconf("SC_PAGE_SIZE")
DEBUG_WORKLOADS = ("callback-chain", "task-switch", "create-await", "timers")
ALL_WORKLOADS = DEBUG_WORKLOADS + ("suspended-memory", "dump-100k")

now_ns = time.perf_counter_ns


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def emit(workload, variant, metric, samples, params, note):
    med = statistics.median(samples)
    err = (max(samples) - min(samples)) / 2 if len(samples) > 1 else 0.0
    line = {
        "workload": workload,
        "subject": SUBJECT,
        "variant": variant,
        "metric": metric,
        "median": round(med, 3),
        "error": round(err, 3),
        "samples": [round(s, 3) for s in samples],
        "params": params,
        "note": note,
    }
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def new_loop(debug):
    # A fresh default loop per repetition; its creation is not timed.
    loop = asyncio.new_event_loop()
    loop.set_debug(debug)
    return loop


def close_loop(loop):
    try:
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        loop.close()
    gc.collect()


def repeat(cfg, name, one_rep):
    """Runs one_rep() warm-up + reps times; returns the kept samples."""
    samples = []
    warm = 0 if cfg.smoke else 1
    total = warm + cfg.reps
    for i in range(total):
        gc.collect()
        value = one_rep()
        tag = "warm-up" if i < warm else f"rep {i - warm + 1}/{cfg.reps}"
        log(f"  {name} {tag}: {value:.3f}")
        if i >= warm:
            samples.append(value)
    return samples


# --- 1. callback-chain ------------------------------------------------------

def callback_chain(n, debug):
    loop = new_loop(debug)
    count = 0
    end = [0]

    def cb():
        nonlocal count
        count += 1
        if count < n:
            loop.call_soon(cb)
        else:
            end[0] = now_ns()
            loop.stop()

    start = now_ns()
    loop.call_soon(cb)
    loop.run_forever()
    close_loop(loop)
    assert count == n
    return (end[0] - start) / n


# --- 2. task-switch ---------------------------------------------------------

async def _switcher(s):
    sleep = asyncio.sleep
    for _ in range(s):
        await sleep(0)


async def _task_switch_main(t, s):
    start = now_ns()
    tasks = [asyncio.create_task(_switcher(s)) for _ in range(t)]
    await asyncio.gather(*tasks)
    return now_ns() - start


def task_switch(t, s, debug):
    loop = new_loop(debug)
    total = loop.run_until_complete(_task_switch_main(t, s))
    close_loop(loop)
    return total / (t * s)


# --- 3. create-await --------------------------------------------------------

async def one():
    return 1


async def _create_await_main(n):
    create_task = asyncio.create_task
    acc = 0
    start = now_ns()
    for _ in range(n):
        acc += await create_task(one())
    elapsed = now_ns() - start
    assert acc == n
    return elapsed


def create_await(n, debug):
    loop = new_loop(debug)
    total = loop.run_until_complete(_create_await_main(n))
    close_loop(loop)
    return total / n


# --- 4. timers --------------------------------------------------------------

def lcg_delays_ms(n, seed=20240601):
    """n delays uniform in [0, 10) ms from a 32-bit LCG (same sequence in node_bench.js)."""
    out = []
    x = seed & 0xFFFFFFFF
    for _ in range(n):
        x = (1664525 * x + 1013904223) & 0xFFFFFFFF
        out.append(x / 4294967296.0 * 10.0)
    return out


async def _timers_main(delays_s):
    loop = asyncio.get_running_loop()
    n = len(delays_s)
    done = loop.create_future()
    count = 0

    def fire():
        nonlocal count
        count += 1
        if count == n:
            done.set_result(now_ns())

    call_later = loop.call_later
    start = now_ns()
    for d in delays_s:
        call_later(d, fire)
    end = await done
    return end - start


def timers(n, debug):
    delays_s = [d / 1000.0 for d in lcg_delays_ms(n)]
    loop = new_loop(debug)
    total = loop.run_until_complete(_timers_main(delays_s))
    close_loop(loop)
    return total / n


# --- 5. suspended-memory ----------------------------------------------------

def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


async def _waiter(fut, reached):
    reached[0] += 1
    await fut


async def _suspend_and_measure(n, measure):
    import tracemalloc
    loop = asyncio.get_running_loop()
    reached = [0]
    gc.collect()
    if measure == "heap":
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
    else:
        before = rss_bytes()
    # Each task awaits its own future, which is never completed.
    tasks = [loop.create_task(_waiter(loop.create_future(), reached)) for _ in range(n)]
    while reached[0] < n:
        await asyncio.sleep(0)
    gc.collect()
    if measure == "heap":
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    else:
        after = rss_bytes()
    assert not any(t.done() for t in tasks)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return after - before


def memory_child(n):
    # RSS first, in a fresh process (no tracemalloc, no reused arenas); then
    # the traced heap, which counts live blocks and so is unaffected by reuse.
    out = {"rss": asyncio.run(_suspend_and_measure(n, "rss"))}
    gc.collect()
    out["heap"] = asyncio.run(_suspend_and_measure(n, "heap"))
    sys.stdout.write(json.dumps(out) + "\n")


def suspended_memory(cfg):
    n = cfg.scale(100_000)
    heap, rss = [], []
    # One fresh process per repetition; no warm-up: the figures are
    # deterministic and a fresh process has nothing to warm.
    for i in range(cfg.reps):
        res = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--_memory-child", str(n)],
            check=True, capture_output=True, text=True)
        got = json.loads(res.stdout)
        log(f"  suspended-memory rep {i + 1}/{cfg.reps}: heap {got['heap']} B, rss {got['rss']} B")
        heap.append(got["heap"] / 1e6)
        rss.append(got["rss"] / 1e6)
    params = {"tasks": n, "future": "per-task"}
    per_heap = statistics.median(heap) * 1e6 / n
    per_rss = statistics.median(rss) * 1e6 / n
    emit("suspended-memory", "default", "MB", heap, dict(params, measure="heap"),
         f"tracemalloc traced-size growth for {n} tasks, each awaiting its own never-completed "
         f"future (incl. the future and the list holding the tasks): {per_heap:.0f} B/task; "
         "tracemalloc slows creation but its traced size is exact")
    emit("suspended-memory", "default", "MB", rss, dict(params, measure="rss"),
         f"/proc/self/statm resident growth: {per_rss:.0f} B/task; a fresh process per "
         "repetition, RSS measured without tracemalloc (its trace tables would inflate RSS)")


# --- 6. dump-100k -----------------------------------------------------------

async def _a(fut):
    await _b(fut)


async def _b(fut):
    await _c(fut)


async def _c(fut):
    await fut


def dump_stack():
    for t in asyncio.all_tasks():
        t.get_stack()


def dump_print():
    for t in asyncio.all_tasks():
        t.get_stack()
        t.print_stack(file=io.StringIO())


async def _timed_dump(loop, fn):
    # Run the dump as one callback on the loop, as a signal handler would.
    done = loop.create_future()

    def run():
        t0 = now_ns()
        fn()
        done.set_result(now_ns() - t0)

    loop.call_soon(run)
    return (await done) / 1e6


async def _dump_stall(loop, fn, period=0.001):
    """Longest gap (ms) seen by a 1 ms periodic callback while fn runs on the loop."""
    state = {"last": None, "worst": 0, "stop": False}
    finished = loop.create_future()

    def tick():
        t = now_ns()
        if state["last"] is not None:
            state["worst"] = max(state["worst"], t - state["last"])
        state["last"] = t
        if state["stop"]:
            finished.set_result(None)
        else:
            loop.call_later(period, tick)

    def dump_then_stop():
        fn()
        loop.call_later(0.010, lambda: state.update(stop=True))

    loop.call_soon(tick)
    loop.call_later(0.010, dump_then_stop)
    await finished
    return state["worst"] / 1e6


async def _dump_main(cfg, n):
    loop = asyncio.get_running_loop()
    # Each task: a() -> b() -> c() -> await its own never-completed future.
    tasks = [loop.create_task(_a(loop.create_future())) for _ in range(n)]
    await asyncio.sleep(0)
    assert all(t._fut_waiter is not None and not t.done() for t in tasks)
    frames = len(tasks[0].get_stack())
    warm = 0 if cfg.smoke else 1
    res = {"stack": [], "print": [], "stall": []}
    # The tasks are made once; every repetition dumps the same 100k tasks.
    for i in range(warm + cfg.reps):
        gc.collect()
        stack = await _timed_dump(loop, dump_stack)
        printed = await _timed_dump(loop, dump_print)
        stall = await _dump_stall(loop, dump_stack)
        tag = "warm-up" if i < warm else f"rep {i - warm + 1}/{cfg.reps}"
        log(f"  dump-100k {tag}: stack {stack:.1f} ms, print {printed:.1f} ms, stall {stall:.1f} ms")
        if i >= warm:
            res["stack"].append(stack)
            res["print"].append(printed)
            res["stall"].append(stall)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return res, frames


def dump_100k(cfg):
    n = cfg.scale(100_000)
    gc.collect()
    res, frames = asyncio.run(_dump_main(cfg, n))
    depth_note = (f"; Task.get_stack() of a suspended task gives {frames} frame(s) of the 3 "
                  "(the task's own coroutine a(), not the awaited b() and c())")
    params = {"tasks": n, "depth": 3, "future": "per-task"}
    emit("dump-100k", "default", "ms", res["stack"], dict(params, format="stack"),
         "for t in asyncio.all_tasks(): t.get_stack(), run as one loop callback" + depth_note)
    emit("dump-100k", "default", "ms", res["print"], dict(params, format="print"),
         "get_stack() plus t.print_stack(file=io.StringIO()) for every task, one loop callback"
         + depth_note)
    emit("dump-stall", "default", "ms", res["stall"], dict(params, format="stack", period_ms=1),
         "longest gap between two runs of a 1 ms call_later tick while the get_stack dump runs "
         "as a callback on the same loop (the gap includes the 1 ms period)")


# --- driver -----------------------------------------------------------------

class Config:
    def __init__(self, smoke, debug):
        self.smoke = smoke
        self.debug = debug
        self.reps = 1 if smoke else 5

    def scale(self, n):
        return max(1, n // 1000) if self.smoke else n


def run_timed(cfg, workload):
    variant = "debug" if cfg.debug else "default"
    d = cfg.debug
    # Debug mode costs ~10-25x per operation (a stack extracted for every
    # handle and future, coroutine origin tracking): with --debug every
    # workload runs at a tenth of its size so that the run stays within the
    # time budget; params say the size used. The per-op figure barely
    # depends on the size (timers: the 10 ms span adds 1 us/op at n=10,000).
    cut = 10 if d else 1
    if workload == "callback-chain":
        n = cfg.scale(1_000_000 // cut)
        s = repeat(cfg, workload, lambda: callback_chain(n, d))
        emit(workload, variant, "ns/op", s, {"n": n}, "call_soon from a callback")
    elif workload == "task-switch":
        t, sw = 100, cfg.scale(10_000 // cut)
        s = repeat(cfg, workload, lambda: task_switch(t, sw, d))
        emit(workload, variant, "ns/op", s, {"tasks": t, "switches": sw},
             "await asyncio.sleep(0) in each of the tasks, run together; ns per switch")
    elif workload == "create-await":
        n = cfg.scale(200_000 // cut)
        s = repeat(cfg, workload, lambda: create_await(n, d))
        emit(workload, variant, "ns/op", s, {"n": n},
             "await asyncio.create_task(one()) in one coroutine")
    elif workload == "timers":
        n = cfg.scale(100_000 // cut)
        s = repeat(cfg, workload, lambda: timers(n, d))
        emit(workload, variant, "ns/op", s, {"n": n, "max_delay_ms": 10},
             "loop.call_later with delays uniform in [0,10) ms (LCG, fixed seed); "
             "from first schedule to last callback, divided by n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="1 repetition, tiny sizes")
    ap.add_argument("--only", help="comma-separated workloads")
    ap.add_argument("--debug", action="store_true",
                    help="asyncio debug mode (callback-chain, task-switch, create-await, timers)")
    ap.add_argument("--_memory-child", dest="memory_child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.memory_child is not None:
        memory_child(args.memory_child)
        return

    if args.debug:
        # Debug mode as a user turns it on: new loops read PYTHONASYNCIODEBUG,
        # and every loop here also gets set_debug(True).
        os.environ["PYTHONASYNCIODEBUG"] = "1"
    cfg = Config(args.smoke, args.debug)
    available = DEBUG_WORKLOADS if args.debug else ALL_WORKLOADS
    if args.only:
        chosen = [w.strip() for w in args.only.split(",") if w.strip()]
        unknown = [w for w in chosen if w not in available]
        if unknown:
            ap.error(f"unknown workload(s) {unknown}; choose from {list(available)}")
    else:
        chosen = list(available)

    for w in chosen:
        log(f"{w} ({'debug' if cfg.debug else 'default'}{', smoke' if cfg.smoke else ''})")
        t0 = time.monotonic()
        if w == "suspended-memory":
            suspended_memory(cfg)
        elif w == "dump-100k":
            dump_100k(cfg)
        else:
            run_timed(cfg, w)
        log(f"{w} took {time.monotonic() - t0:.1f} s")


if __name__ == "__main__":
    main()
