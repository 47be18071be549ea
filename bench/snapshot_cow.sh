#!/bin/bash
# What a snapshot of a live process costs it while nodescope reads the copy (issue 30): the stop,
# and the copy-on-write growth (the memory the pages it writes meanwhile take twice: Pss of the
# process and its copy, sampled every 50 ms during `core --pid P heapsnapshot`, less the process's
# own before), against gdb's gcore (the process stopped for the whole dump) and the program's own
# v8.writeHeapSnapshot() (its stop, and its peak RSS over its RSS before), in the same run, on a
# program that keeps writing its heap (snapshot_cow_program.js). Not part of the tests.
#   SIZES="100 500 1000 2000" bench/snapshot_cow.sh [NODE]     (default sizes 100 500; MB of heap)
set -u
cd "$(dirname "$0")/.."
NODE=${1:-tests/.cache/node/22/bin/node}
NS=${NS:-build/nodescope}
SIZES=${SIZES:-100 500}
w=$(mktemp -d); pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$w"' EXIT
pss() { awk '/^Pss:/ {s += $2} END {print int(s / 1024)}' "/proc/$1/smaps_rollup" 2> /dev/null || echo 0; }
copy_of() {   # the target's child with exit signal 0: the frozen copy
    local c
    for c in $(cat /proc/"$1"/task/*/children 2> /dev/null); do
        [ "$(sed 's/.*) //' "/proc/$c/stat" 2> /dev/null | awk '{print $36}')" = 0 ] && { echo "$c"; return; }
    done
}
printf "%-6s %-9s %-11s %-10s %-12s %-11s %-10s %-11s\n" heap stop_ms read_s cow_MB gcore_stop_s wHS_stop_s wHS_RSS+MB rss_MB
for mb in $SIZES; do
    rm -f "$w/ready"
    "$NODE" --max-old-space-size=16384 bench/snapshot_cow_program.js "$w/ready" "$mb" "$w" > "$w/out" & pid=$!
    for _ in $(seq 1200); do [ -s "$w/ready" ] && break; sleep 0.1; done
    sleep 2
    before=$(pss "$pid"); rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status")
    t0=$(date +%s.%N)
    "$NS" core --pid "$pid" -v heapsnapshot -o "$w/ns.heapsnapshot" 2> "$w/err" & ns=$!
    peak=0
    while kill -0 "$ns" 2> /dev/null; do
        c=$(copy_of "$pid")
        if [ -n "$c" ]; then
            tot=$(( $(pss "$pid") + $(pss "$c") ))
            [ "$tot" -gt "$peak" ] && peak=$tot
        fi
        sleep 0.05
    done
    wait "$ns"
    read_s=$(echo "$(date +%s.%N) - $t0" | bc)
    stop=$(grep -o 'stopped for [0-9.]*' "$w/err" | grep -o '[0-9.]*$')
    cow=$(( peak > before ? peak - before : 0 ))
    rm -f "$w/ns.heapsnapshot"
    t0=$(date +%s.%N); gcore -o "$w/core" "$pid" > /dev/null 2>&1; g=$(echo "$(date +%s.%N) - $t0" | bc); rm -f "$w"/core.*
    : > "$w/out"; kill -USR1 "$pid"
    for _ in $(seq 6000); do grep -q writeHeapSnapshot "$w/out" && break; sleep 0.1; done
    read -r _ wms wbefore wpeak < <(grep writeHeapSnapshot "$w/out")
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
    printf "%-6s %-9s %-11.1f %-10s %-12.2f %-11.2f %-10s %-11s\n" "${mb}MB" "$stop" "$read_s" "$cow" "$g" \
        "$(echo "$wms / 1000" | bc -l)" "$((wpeak - wbefore))" "$rss"
done
echo "(stop_ms: the process stopped for the snapshot (nodescope -v); read_s: the heapsnapshot written from the copy"
echo " meanwhile; cow_MB: copy-on-write growth, at its peak; gcore_stop_s: gdb's gcore, stopped the whole time;"
echo " wHS: the program's own v8.writeHeapSnapshot(), stopped the whole time, and its peak RSS over its RSS before)"
