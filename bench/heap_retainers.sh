#!/bin/bash
# Time and peak RSS of `core retainers` (first, with the graph built; second, from the cache),
# `dominators` and `heapsnapshot` on a core of a program holding ~3.5 million objects
# (bench/heap_retainers_program.js, ~1 GB heap), against the same program's own
# v8.writeHeapSnapshot() of the same heap (taken after the core). Node 20 by default (NODE=...).
# Usage: bench/heap_retainers.sh [WORKDIR]   (NO_V8_SNAPSHOT=1: skip the program's own snapshot,
# which takes minutes and several GB)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NODE=${NODE:-$ROOT/tests/.cache/node/20/bin/node}
NS=${NODESCOPE:-$ROOT/build/nodescope}
W=${1:-$(mktemp -d)}
mkdir -p "$W"; rm -f "$W/fifo" "$W/ready" "$W"/core.* "$W"/*.heapsnapshot "$W/v8.json"; mkfifo "$W/fifo"
export XDG_CACHE_HOME=$W/cache; rm -rf "$XDG_CACHE_HOME"
"$NODE" --max-old-space-size=4096 "$ROOT/bench/heap_retainers_program.js" "$W/fifo" "$W/ready" "$W/v8.heapsnapshot" "$W/v8.json" & pid=$!
trap 'kill $pid 2>/dev/null; true' EXIT
for _ in $(seq 600); do [ -s "$W/ready" ] && break; sleep 0.2; done
gcore -o "$W/core" "$pid" >/dev/null 2>&1
core=$(ls "$W"/core.*)
echo "core: $(du -h "$core" | cut -f1) ($core)"
# the program writes its own snapshot now, measured inside (time and peak RSS)
if [ -z "${NO_V8_SNAPSHOT:-}" ]; then
    echo > "$W/fifo"
    for _ in $(seq 1200); do [ -s "$W/v8.json" ] && break; sleep 0.5; done
    wait $pid 2>/dev/null || true
    echo "v8.writeHeapSnapshot() in the program: $(cat "$W/v8.json"), file $(du -h "$W/v8.heapsnapshot" | cut -f1)"
else
    kill $pid; wait $pid 2>/dev/null || true
fi
# wall and CPU time (the machine may be shared: CPU is the steadier figure), peak RSS, load
run() {
    /usr/bin/time -f "%e s wall, %U+%S s CPU, %M KB peak RSS" -o "$W/time" "$NS" core "$core" --node "$NODE" "$@" > "$W/out"
    printf '%-45s %s  (%s lines; load %s)\n' "$*" "$(cat "$W/time")" "$(wc -l < "$W/out")" "$(cut -d' ' -f1 /proc/loadavg)"
}
run type 0x2a00000000      # opening the core alone
a=$("$NS" core "$core" --node "$NODE" instances LeakedSession | cut -d' ' -f1)
run retainers "$a"
cat "$W/out"
run retainers "$a"
run refs "$a"
run dominators --top 5
head -8 "$W/out"
run objects --retained
head -6 "$W/out"
run retainers --no-cache "$a"    # the graph built again, nothing written
run heapsnapshot -o "$W/ns.heapsnapshot"                          # the graph from the cache
run heapsnapshot --no-cache --force -o "$W/ns-built.heapsnapshot"   # the graph built in the same run
cmp -s "$W/ns.heapsnapshot" "$W/ns-built.heapsnapshot" || echo "DIFFERENT: the snapshots from the cache and from a build"
rm -rf "$XDG_CACHE_HOME"
run heapsnapshot --force -o "$W/ns-built.heapsnapshot"              # built, and the cache written first
cmp -s "$W/ns.heapsnapshot" "$W/ns-built.heapsnapshot" || echo "DIFFERENT: the snapshot that wrote the cache"
rm -f "$W/ns-built.heapsnapshot"
echo "nodescope's snapshot: $(du -h "$W/ns.heapsnapshot" | cut -f1), sha1 $(sha1sum < "$W/ns.heapsnapshot" | cut -c1-12); core $(du -h "$core" | cut -f1)"
