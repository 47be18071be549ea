#!/bin/bash
# Time and peak RSS of `core objects`, `instances` and `find` on a core of a program holding ~3.5
# million objects (bench/heap_objects_program.js), Node 20 by default (NODE=... for another).
# llnode (the issue's comparison: findjsobjects 21.9 s, 945 MB) is not installable here.
# Usage: bench/heap_objects.sh [WORKDIR]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NODE=${NODE:-$ROOT/tests/.cache/node/20/bin/node}
NS=${NODESCOPE:-$ROOT/build/nodescope}
W=${1:-$(mktemp -d)}
mkdir -p "$W"; rm -f "$W/fifo" "$W/ready" "$W"/core.*; mkfifo "$W/fifo"
"$NODE" --max-old-space-size=4096 "$ROOT/bench/heap_objects_program.js" "$W/fifo" "$W/ready" & pid=$!
trap 'kill $pid 2>/dev/null; true' EXIT
for _ in $(seq 600); do [ -s "$W/ready" ] && break; sleep 0.2; done
gcore -o "$W/core" "$pid" >/dev/null 2>&1
kill $pid; wait $pid 2>/dev/null || true
core=$(ls "$W"/core.*)
echo "core: $(du -h "$core" | cut -f1) ($core)"
run() {
    /usr/bin/time -f "%e s, %M KB peak RSS" -o "$W/time" "$NS" core "$core" --node "$NODE" "$@" > "$W/out"
    printf '%-45s %s  (%s lines)\n' "$*" "$(cat "$W/time")" "$(wc -l < "$W/out")"
}
run type 0x2a00000000      # opening the core alone
run objects
head -5 "$W/out"
run instances Point --limit 10
run find Session --where 'hits == 3' --limit 10
