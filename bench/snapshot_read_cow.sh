#!/bin/bash
# What reading a snapshot costs the host in memory, on an idle program (it writes nothing, so every
# page the copy gains is the reader's doing): the peak private memory of the frozen copy while
# `core --pid PID objects` reads it, and the command's time, for nodescope and (OLD=path) another
# build, alternated. Until c098c1e the copy was read with process_vm_readv, whose read-only pin of
# a shared anonymous page makes the kernel copy the page into the copy (unsharing since Linux 5.19).
# Usage: [OLD=/path/to/old/nodescope] bench/snapshot_read_cow.sh [OBJECTS_MILLIONS] [ROUNDS]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=${NODESCOPE:-$ROOT/build/nodescope}
M=${1:-3}; ROUNDS=${2:-3}
w=$(mktemp -d); trap 'kill $pid 2> /dev/null; rm -rf "$w"' EXIT
cat > "$w/idle.js" <<'JS'
const a = []; for (let i = 0; i < Number(process.argv[3]) * 1e6; i++) a.push({ i, s: 'v' + i, o: { k: i } });
globalThis.keep = a; require('fs').writeFileSync(process.argv[2], 'ok'); setInterval(() => {}, 1e9);
JS
node --max-old-space-size=8000 "$w/idle.js" "$w/ready" "$M" & pid=$!
while [ ! -s "$w/ready" ]; do sleep 0.2; done
echo "idle program: $(awk '/VmRSS/ {print $2 / 1024}' /proc/$pid/status) MB resident"
one() {   # BIN: prints "peak_kB seconds"
    local t0 t1 peak=0 v c
    t0=$(date +%s%N)
    "$1" core --pid "$pid" objects > /dev/null 2>&1 & local np=$!
    while kill -0 $np 2> /dev/null; do
        for c in $(cat /proc/$pid/task/*/children 2> /dev/null); do
            v=$(awk '/^Private_(Clean|Dirty)/ {s += $2} END {print s + 0}' /proc/$c/smaps_rollup 2> /dev/null || echo 0)
            [ "${v:-0}" -gt "$peak" ] && peak=$v
        done
        sleep 0.05
    done
    t1=$(date +%s%N)
    echo "$peak $(( (t1 - t0) / 1000000 ))"
}
for r in $(seq "$ROUNDS"); do
    echo "round $r: nodescope: copy's peak private kB, ms: $(one "$NS")"
    [ -n "${OLD:-}" ] && echo "round $r: OLD:       copy's peak private kB, ms: $(one "$OLD")"
done
