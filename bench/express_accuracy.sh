#!/usr/bin/env bash
# How close `record`'s live profile of an express 4 server under a loopback load generator comes
# to V8's own --cpu-prof of the same workload (issue 13: within 5 points over the busy time, for
# V8's top 15 functions by inclusive share). Two runs of the same server and load (autocannon,
# 10 connections, SECONDS each): node --cpu-prof, then nodescope record -F HZ (the live sampler).
# GC and (idle) samples are left out of both (bench/threads_accuracy.js). Needs npm (express@4,
# autocannon@7 into bench/.cache). Not a test. Usage: bench/express_accuracy.sh [SECONDS] [HZ]
# WALL=1: record --wall, as V8's sampler counts time (it signals the thread on a wall-clock timer,
# so the time its thread waits for a CPU counts where it was preempted); the main thread's
# "(wait: epoll)" (the event loop waiting) becomes "(idle)", as in V8's profile.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
make -j2 build/nodescope > /dev/null
NS=$ROOT/build/nodescope
SECS=${1:-10}
HZ=${2:-999}
mkdir -p bench/.cache
(cd bench/.cache && [ -d node_modules/express ] && [ -d node_modules/autocannon ] ||
    npm install --silent --no-audit --no-fund express@4 autocannon@7 > /dev/null)
export NODE_PATH=$ROOT/bench/.cache/node_modules
AC=$ROOT/bench/.cache/node_modules/autocannon/autocannon.js
W=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done; [ -n "${KEEP:-}" ] && echo "kept $W" || rm -rf "$W"; }
trap cleanup EXIT
PORT=$((20000 + RANDOM % 20000))
wait_listening() { for _ in $(seq 100); do grep -q listening "$1" 2> /dev/null && return 0; sleep 0.1; done; echo "server did not start" >&2; return 1; }
load() { node "$AC" -c 10 -d "$SECS" "http://127.0.0.1:$PORT/items/abc" 2>&1 | grep -E "^(Req/Sec|  *[0-9]+k? requests)" | tail -2 || true; }

echo "== node --cpu-prof"
node --cpu-prof --cpu-prof-dir="$W/v8" "$ROOT/bench/express_server.js" "$PORT" > "$W/v8.out" & pids+=($!)
wait_listening "$W/v8.out"; load; kill -INT "${pids[-1]}"; wait "${pids[-1]}" || true

WALLFLAG=; [ -n "${WALL:-}" ] && WALLFLAG=--wall
echo "== nodescope record -F $HZ $WALLFLAG (live sampler)"
"$NS" record -F "$HZ" $WALLFLAG -o "$W/live.cpuprofile" -- node "$ROOT/bench/express_server.js" "$PORT" > "$W/live.out" & pids+=($!)
wait_listening "$W/live.out"; load; kill -INT "${pids[-1]}"; wait "${pids[-1]}" || true

if [ -n "$WALLFLAG" ]; then
    node -e 'const fs = require("fs"), f = process.argv[1], p = JSON.parse(fs.readFileSync(f));
        for (const n of p.nodes) if (n.callFrame.functionName === "(wait: epoll)") n.callFrame.functionName = "(idle)";
        fs.writeFileSync(f, JSON.stringify(p));' "$W/live.cpuprofile"
fi
node "$ROOT/bench/threads_accuracy.js" "$W"/v8/*.cpuprofile live="$W/live.cpuprofile"
