#!/usr/bin/env bash
# Whole-process network benchmarks: each subject's TCP echo server under bench-network.jar's
# echo-load, and its HTTP hello server under wrk, one after the other on this machine.
#
#   bench/network/run.sh [--smoke] [--rounds N] [--subjects LIST]
#
# Subjects: loop-core (test-apps echo-server / http-server), loop-core with the agent (variant
# "agent", and "agent-nostats" with its loop health numbers off, statistics=off), netty, netty
# with the agent (variant "agent"), netty with BlockHound (variant "blockhound"), asyncio and
# node (bench/peers/*_servers.*, or PEERS_DIR/*_servers.*; a missing script or interpreter is
# noted on stderr and the subject skipped). --subjects: only these,
# comma-separated, each SUBJECT (all its variants) or SUBJECT:VARIANT, e.g. "netty" or
# "loop-core,netty:default,asyncio,node"; default all. Output: one JSON line per
# measurement on stdout, in the benchmarks' shared format; progress and the servers' own stderr on
# stderr. Each load follows a 3 s warm-up against the same server. --smoke: 1 s loads, no warm-up
# (checks that everything runs, measures nothing worth keeping). --rounds N (default 1): N passes
# over every subject, interleaved so that a drift in the machine's load touches them all alike
# (netty's three variants, which are compared with each other, also take turns at going first);
# each line then has N samples, their median. The agent and BlockHound variants count their
# tool's detection lines on the server's stderr (params.detections; there must be none).
#
# Builds nothing: run `./build package -DskipTests` first (test-apps, agent, bench/network).
# Server and load share the machine's cores: nothing is pinned, and each line's note says how many
# cores the server, the client and the rest of the machine used (a busy "rest of the machine" means
# other processes took CPU from the run).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

smoke=false rounds=1 subjects=all
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=true ;;
    --rounds)
      rounds=${2:-}
      [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --rounds needs a positive number" >&2; exit 2; }
      shift ;;
    --subjects)
      subjects=${2:-}
      [[ "$subjects" =~ ^[a-z-]+(:[a-z-]+)?(,[a-z-]+(:[a-z-]+)?)*$ ]] \
        || { echo "run.sh: --subjects needs SUBJECT[:VARIANT],... (e.g. netty or loop-core,netty:default)" >&2; exit 2; }
      shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (usage: run.sh [--smoke] [--rounds N] [--subjects LIST])" >&2; exit 2 ;;
  esac
  shift
done

# True if --subjects asks for subject $1 in variant $2 (all of them when not given).
wanted() {
  [ "$subjects" = all ] && return 0
  local item
  for item in ${subjects//,/ }; do
    if [ "$item" = "$1" ] || [ "$item" = "$1:$2" ]; then return 0; fi
  done
  return 1
}

# Both workloads get the same warm-up before the measured load, so that the JVMs' JIT (and V8's)
# has compiled the hot paths: a cold Netty HTTP server runs at a quarter of its speed in its first
# second. The warm-up's figures are thrown away.
if $smoke; then
  load_seconds=1 warmup_seconds=0
else
  load_seconds=10 warmup_seconds=3
fi
connections=100 message_bytes=64 wrk_threads=2
readonly ready_timeout_seconds=60

java_home=$("$root/scripts/find-jdk")
java="$java_home/bin/java"
bench_jar=$root/bench/network/target/bench-network.jar
apps_jar=$root/test-apps/target/test-apps.jar
agent_jar=$root/agent/target/loopdiag-agent.jar
for jar in "$bench_jar" "$apps_jar" "$agent_jar"; do
  if [ ! -f "$jar" ]; then
    echo "run.sh: $jar is missing: run ./build package -DskipTests first" >&2
    exit 1
  fi
done
have_wrk=true
command -v wrk >/dev/null 2>&1 || { have_wrk=false; echo "run.sh: note: wrk is not installed ('apt-get install wrk'): the http workload is skipped" >&2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-network.XXXXXX")
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "run.sh: $*" >&2; }

# CPU time (user + system, all threads) of process $1 in clock ticks; the command name in
# parentheses may hold spaces, so fields are counted after it.
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
clock_ticks=$(getconf CLK_TCK)

# Busy CPU time of the whole machine in clock ticks: all but idle and I/O wait (fields of /proc/stat's first line).
machine_busy_ticks() { awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# Starts "$@" as the server, waits for its "listening on 127.0.0.1:PORT" line; sets server_pid,
# server_port, server_out, server_err. Returns 1 (with the reason on stderr) if it never says so.
start_server() {
  server_out=$work/server.out server_err=$work/server.err
  : >"$server_out"; : >"$server_err"
  "$@" >"$server_out" 2>"$server_err" </dev/null &
  server_pid=$!
  local waited=0 line
  while :; do
    line=$(grep -m1 -E 'listening on 127\.0\.0\.1:[0-9]+' "$server_out" || true)
    if [ -n "$line" ]; then
      server_port=${line##*:}
      return 0
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      log "the server exited before listening: $*"
      sed 's/^/  server: /' "$server_err" >&2
      wait "$server_pid" 2>/dev/null || true
      server_pid=
      return 1
    fi
    if [ "$waited" -ge $((ready_timeout_seconds * 10)) ]; then
      log "the server did not say it was listening within ${ready_timeout_seconds} s: $*"
      stop_server
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

# Kills the server and shows what it printed on stderr.
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
  if [ -s "$server_err" ]; then sed 's/^/  server: /' "$server_err" >&2; fi
}

# Three error lines for a measurement that could not be made (the loads write their own otherwise).
emit_failure() { # workload subject variant rate_metric error
  local workload=$1 subject=$2 variant=$3 metric=$4 error=${5//\"/\'} p
  local params="\"connections\": $connections, \"size\": $message_bytes, \"seconds\": $load_seconds"
  [ "$workload" = http ] && params="\"connections\": $connections, \"threads\": $wrk_threads, \"seconds\": $load_seconds"
  printf '{"workload": "%s", "subject": "%s", "variant": "%s", "metric": "%s", "median": null, "error": "%s", "samples": [], "params": {%s}, "note": null}\n' \
    "$workload" "$subject" "$variant" "$metric" "$error" "$params"
  for p in 50 99; do
    printf '{"workload": "%s", "subject": "%s", "variant": "%s", "metric": "us", "median": null, "error": "%s", "samples": [], "params": {%s, "percentile": %s}, "note": null}\n' \
      "$workload" "$subject" "$variant" "$error" "$params" "$p"
  done
}

# measure WORKLOAD SUBJECT VARIANT SERVER-COMMAND...: one server, one load, its JSON lines.
measure() {
  local workload=$1 subject=$2 variant=$3
  shift 3
  local detections=()
  [[ "$variant" == agent* ]] && detections=(--server-stderr "$work/server.err")
  [ "$variant" = blockhound ] && detections=(--server-stderr "$work/server.err" --detector blockhound)
  log "$subject ($variant): $workload"
  : >"$work/result.jsonl"
  if ! start_server "$@"; then
    emit_failure "$workload" "$subject" "$variant" "$([ "$workload" = echo ] && echo msg/s || echo req/s)" \
      "the server did not start" >>"$lines"
    return 0
  fi
  if [ "$workload" = echo ]; then
    "$java" -jar "$bench_jar" echo-load --port "$server_port" --connections "$connections" --size "$message_bytes" \
      --seconds "$load_seconds" --warmup "$warmup_seconds" --subject "$subject" --variant "$variant" \
      --server-pid "$server_pid" "${detections[@]}" >"$work/result.jsonl" \
      || log "echo-load failed for $subject ($variant)"
  else
    local before after machine_before machine_after wrk_cpu TIMEFORMAT='%3U %3S'
    if [ "$warmup_seconds" -gt 0 ]; then
      wrk -t"$wrk_threads" -c"$connections" -d"${warmup_seconds}s" "http://127.0.0.1:$server_port/" >/dev/null 2>&1 \
        || log "the wrk warm-up failed for $subject ($variant)"
    fi
    before=$(cpu_ticks "$server_pid")
    machine_before=$(machine_busy_ticks)
    { time wrk -t"$wrk_threads" -c"$connections" -d"${load_seconds}s" --latency "http://127.0.0.1:$server_port/" \
        >"$work/wrk.out" 2>&1 ; } 2>"$work/wrk.time" || log "wrk failed for $subject ($variant)"
    after=$(cpu_ticks "$server_pid" 2>/dev/null || echo "$before")
    machine_after=$(machine_busy_ticks)
    wrk_cpu=$(awk '{ printf "%.3f", $1 + $2 }' "$work/wrk.time")
    sed 's/^/  wrk: /' "$work/wrk.out" >&2
    "$java" -jar "$bench_jar" wrk-report --input "$work/wrk.out" --connections "$connections" --threads "$wrk_threads" \
      --seconds "$load_seconds" --subject "$subject" --variant "$variant" \
      --server-cpu-seconds "$(awk -v t=$((after - before)) -v hz="$clock_ticks" 'BEGIN { printf "%.3f", t / hz }')" \
      --client-cpu-seconds "$wrk_cpu" \
      --machine-cpu-seconds "$(awk -v t=$((machine_after - machine_before)) -v hz="$clock_ticks" 'BEGIN { printf "%.3f", t / hz }')" \
      "${detections[@]}" >"$work/result.jsonl" \
      || log "wrk-report failed for $subject ($variant)"
  fi
  stop_server
  sed 's/^/  result: /' "$work/result.jsonl" >&2
  cat "$work/result.jsonl" >>"$lines"
}

# subject NAME VARIANT ECHO-COMMAND -- HTTP-COMMAND: both workloads on one subject, if --subjects wants it.
subject() {
  local name=$1 variant=$2
  shift 2
  wanted "$name" "$variant" || return 0
  local echo_command=() http_command=()
  while [ "$1" != -- ]; do echo_command+=("$1"); shift; done
  shift
  http_command=("$@")
  measure echo "$name" "$variant" "${echo_command[@]}"
  if $have_wrk; then measure http "$name" "$variant" "${http_command[@]}"; fi
}

# A peer needs its script and its interpreter; otherwise it is skipped with a note.
peer_available() { # name script interpreter
  if [ ! -f "$2" ]; then log "note: $2 is missing: subject $1 skipped"; return 1; fi
  if ! command -v "$3" >/dev/null 2>&1; then log "note: $3 is not installed: subject $1 skipped"; return 1; fi
}

# netty_variant VARIANT: the Netty peers plain, with the agent, or with BlockHound (log mode: it
# prints each blocking call and lets it run, as the agent does; its own JVM flags).
# Netty 4.1 uses sun.misc.Unsafe (its default on JDK 24+ too); allowing it says so and silences the JDK's warning.
netty_variants=(default agent blockhound)
netty_variant() {
  local flags=(--sun-misc-unsafe-memory-access=allow) args=()
  case "$1" in
    agent) flags+=("-javaagent:$agent_jar=log=stderr") ;;
    blockhound)
      flags+=(-XX:+AllowRedefinitionToAddDeleteMethods -XX:+EnableDynamicAgentLoading -Djdk.attach.allowAttachSelf=true)
      args=(--blockhound log) ;;
  esac
  subject netty "$1" \
    "$java" "${flags[@]}" -jar "$bench_jar" netty-echo --port 0 "${args[@]}" -- \
    "$java" "${flags[@]}" -jar "$bench_jar" netty-http --port 0 "${args[@]}"
}

# loop_core_agent VARIANT: loop-core's servers with the agent, its statistics on ("agent") or off ("agent-nostats").
agent_variants=(agent agent-nostats)
loop_core_agent() {
  local options=log=stderr
  [ "$1" = agent-nostats ] && options+=,statistics=off
  subject loop-core "$1" \
    "$java" "-javaagent:$agent_jar=$options" -jar "$apps_jar" echo-server --port 0 -- \
    "$java" "-javaagent:$agent_jar=$options" -jar "$apps_jar" http-server --port 0
}

log "JDK $java_home; $(nproc) cores shared by server and load; $($smoke && echo smoke: ) loads of ${load_seconds} s after a warm-up of ${warmup_seconds} s, $rounds round(s)"
busy_before=$(machine_busy_ticks); sleep 2
busy_cores=$(awk -v t=$(($(machine_busy_ticks) - busy_before)) -v hz="$clock_ticks" 'BEGIN { printf "%.2f", t / hz / 2 }')
if awk -v c="$busy_cores" 'BEGIN { exit !(c > 0.2) }'; then
  log "warning: before the run, other processes kept $busy_cores cores busy: the figures will be low (see \"rest of the machine\" in each note)"
fi

cd "$root"
# The peers' scripts; PEERS_DIR points elsewhere, e.g. at another checkout's bench/peers.
peers=${PEERS_DIR:-bench/peers}
lines=$work/lines.jsonl
: >"$lines"
for round in $(seq 1 "$rounds"); do
  if [ "$rounds" -gt 1 ]; then log "round $round of $rounds"; fi
  subject loop-core default \
    "$java" -jar "$apps_jar" echo-server --port 0 -- \
    "$java" -jar "$apps_jar" http-server --port 0
  # With the agent, its loop health numbers on and off taking turns at going first: their difference is
  # what the statistics cost.
  for turn in 0 1; do
    loop_core_agent ${agent_variants[$(( (round - 1 + turn) % 2 ))]}
  done
  # Netty's variants take turns at going first: round 1 default, agent, blockhound; round 2 agent,
  # blockhound, default; and so on.
  for turn in 0 1 2; do
    netty_variant ${netty_variants[$(( (round - 1 + turn) % 3 ))]}
  done
  if peer_available asyncio "$peers/asyncio_servers.py" python3; then
    subject asyncio default \
      python3 "$peers/asyncio_servers.py" echo --port 0 -- \
      python3 "$peers/asyncio_servers.py" http --port 0
  fi
  if peer_available node "$peers/node_servers.js" node; then
    subject node default \
      node "$peers/node_servers.js" echo --port 0 -- \
      node "$peers/node_servers.js" http --port 0
  fi
done
# One line per measurement, every round's value in its samples (a single round passes through).
"$java" -jar "$bench_jar" merge <"$lines" || log "some measurement failed in every round (its line has the error)"
log "done"
