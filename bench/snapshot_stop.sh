#!/bin/bash
# How long a node process is stopped by `core --pid --snapshot` (the default), `core --pid --stop`
# and gdb's gcore, and by `nodescope gcore`, on heaps of 0.1 and 0.5 GB (2 GB with SIZES="100 500 2000"):
# tests/fixtures/core/snapshot_ticker.js with that many MB of touched Buffers, under a 1 ms
# ticker whose longest gap (performance.now) is the stop as the program sees it. Each round runs
# the four one after the other on the same process (paired); medians over ROUNDS (default 5).
# Also fork's own floor at that size (bench/fork_floor.c: a process with as much touched memory
# in 4 KiB pages, median of 7 forks: fork copies the page tables, which is what the snapshot
# pays). Not part of the tests.
#   bench/snapshot_stop.sh [NODE]        NODE: default tests/.cache/node/22/bin/node
set -u
cd "$(dirname "$0")/.."
NODE=${1:-tests/.cache/node/22/bin/node}
NS=${NS:-build/nodescope}
ROUNDS=${ROUNDS:-5}
SIZES=${SIZES:-100 500}
w=$(mktemp -d); pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$w"' EXIT
cc -O2 -o "$w/fork_floor" bench/fork_floor.c || exit 1
gap() { : > "$w/out"; kill -USR2 "$pid"; for _ in $(seq 100); do grep -q gap "$w/out" && break; sleep 0.02; done; awk '/gap/ {print $2}' "$w/out"; }
median() { sort -n | awk '{a[NR] = $1} END {print NR ? (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) : "-"}'; }
printf "%-7s %-12s %-12s %-12s %-12s %-12s %-12s %-10s\n" "heap" "snap(-v)" "its-fork" "snap(gap)" "stop(gap)" "gdb-gcore" "ns-gcore" "fork-floor"
for mb in $SIZES; do
    rm -f "$w/ready"
    "$NODE" --expose-gc tests/fixtures/core/snapshot_ticker.js "$w/ready" "$mb" > "$w/out" & pid=$!
    for _ in $(seq 600); do [ -s "$w/ready" ] && break; sleep 0.1; done
    sleep 1; gap > /dev/null
    : > "$w/v"; : > "$w/f"; : > "$w/s"; : > "$w/t"; : > "$w/g"; : > "$w/n"
    for _ in $(seq "$ROUNDS"); do
        "$NS" core --pid "$pid" -v stack 2>&1 > /dev/null | grep 'stopped for' > "$w/line"
        grep -o 'stopped for [0-9.]*' "$w/line" | grep -o '[0-9.]*$' >> "$w/v"
        grep -o 'fork took [0-9.]*' "$w/line" | grep -o '[0-9.]*$' >> "$w/f"
        gap >> "$w/s"
        "$NS" core --pid "$pid" --stop objects > /dev/null; gap >> "$w/t"
        gcore -o "$w/core" "$pid" > /dev/null 2>&1; gap >> "$w/g"; rm -f "$w"/core.*
        "$NS" gcore -o "$w/ns.core" "$pid" 2> /dev/null; gap >> "$w/n"; rm -f "$w/ns.core"
    done
    rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status")
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
    floor=$("$w/fork_floor" "$rss" | awk '{print $1}')
    printf "%-7s %-12s %-12s %-12s %-12s %-12s %-12s %-10s\n" "${rss}MB" "$(median < "$w/v")" "$(median < "$w/f")" "$(median < "$w/s")" "$(median < "$w/t")" \
        "$(median < "$w/g")" "$(median < "$w/n")" "$floor"
done
echo "(ms; snap(-v): the stop nodescope measures, its-fork: the injected clone alone; the others: the ticker's longest gap, i.e. as the program sees it)"
