#!/bin/bash
# Time and peak RSS of `core async --group`, `async --json`, `pending` and `stack --async` on a
# core of a server holding 100,000 suspended requests (bench/async_pending_program.js; about 1 GB
# of core), Node 20 by default (NODE=... for another, N=... for another count). Goal: < 2 s each.
# Usage: bench/async_pending.sh [WORKDIR]   (CORE=PATH: reuse a core it made; NODE must match)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NODE=${NODE:-$ROOT/tests/.cache/node/20/bin/node}
NS=${NODESCOPE:-$ROOT/build/nodescope}
N=${N:-100000}
W=${1:-$(mktemp -d)}
mkdir -p "$W"
if [ -n "${CORE:-}" ]; then   # reuse a core this script made before
    core=$CORE
else
    rm -f "$W/fifo" "$W/ready" "$W"/core.*; mkfifo "$W/fifo"
    "$NODE" --max-old-space-size=4096 "$ROOT/bench/async_pending_program.js" "$W/fifo" "$W/ready" "$N" & pid=$!
    trap 'kill $pid 2>/dev/null; true' EXIT
    for _ in $(seq 600); do [ -s "$W/ready" ] && break; sleep 0.2; done
    gcore -o "$W/core" "$pid" >/dev/null 2>&1
    kill $pid; wait $pid 2>/dev/null || true
    core=$(ls "$W"/core.*)
    trap - EXIT
fi
echo "core: $(du -h "$core" | cut -f1) ($core), $N requests, node $("$NODE" --version)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (CPU time is the number to trust on a loaded machine)"
run() {
    /usr/bin/time -f "%e s wall, %U+%S s CPU, %M KB peak RSS" -o "$W/time" "$NS" core "$core" --node "$NODE" "$@" > "$W/out"
    printf '%-30s %s  (%s lines, load %s)\n' "$*" "$(cat "$W/time")" "$(wc -l < "$W/out")" "$(cut -d' ' -f1 /proc/loadavg)"
}
run type 0x2a00000000      # opening the core alone
run objects
run async --group
cat "$W/out"
run async --json
run pending
head -12 "$W/out"
run stack --async
