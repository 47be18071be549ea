#!/bin/bash
# What a snapshot of a live process costs it while nodescope reads the copy (issue 30), on a
# program that keeps writing its heap (snapshot_cow_program.js: small JS objects, thousands of
# V8 mappings), in the same run at each size:
#   - the stop: `core --pid P -v stack`, ROUNDS times (median [min-max]), and the fork inside it;
#   - the floor: fork() of a process with as much touched memory (bench/fork_floor.c) in one
#     mapping and in 256 KiB mappings as V8 keeps its heap (median of 7 forks);
#   - copy-on-write growth: Pss of the process and its copy, sampled every 50 ms during
#     `core --pid P heapsnapshot`, less the process's own before (its peak), and that command's time;
#   - gdb's gcore (the process stopped the whole time; skipped when the disk has not RSS + 1 GB free);
#   - the program's own v8.writeHeapSnapshot() (stopped the whole time; its peak RSS over its RSS
#     before: about 11x the heap, 5.6 GB at 0.5 GB): skipped, and why said, when MemAvailable is
#     less than that estimate + 4 GB (the machine is shared), or with WHS=0.
# Not part of the tests. Run the big sizes niced, once:
#   SIZES="100 500" bench/snapshot_cow.sh [NODE]          (default; MB of heap)
#   SIZES="1000 2000" ROUNDS=3 nice bench/snapshot_cow.sh
set -u
cd "$(dirname "$0")/.."
NODE=${1:-tests/.cache/node/22/bin/node}
NS=${NS:-build/nodescope}
SIZES=${SIZES:-100 500}
ROUNDS=${ROUNDS:-5}
WHS=${WHS:-1}
w=$(mktemp -d); pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$w"' EXIT
cc -O2 -o "$w/fork_floor" bench/fork_floor.c || exit 1
pss() { awk '/^Pss:/ {s += $2} END {print int(s / 1024)}' "/proc/$1/smaps_rollup" 2> /dev/null || echo 0; }
copy_of() {   # the target's child with exit signal 0: the frozen copy
    local c
    for c in $(cat /proc/"$1"/task/*/children 2> /dev/null); do
        [ "$(sed 's/.*) //' "/proc/$c/stat" 2> /dev/null | awk '{print $36}')" = 0 ] && { echo "$c"; return; }
    done
}
stats() { sort -n | awk '{a[NR] = $1} END {if (!NR) {print "-"; exit} m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.1f [%.1f-%.1f]\n", m, a[1], a[NR]}'; }
avail_mb() { awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo; }
printf "%-6s %-8s %-19s %-19s %-13s %-13s %-7s %-7s %-8s %-9s %s\n" heap rss_MB stop_ms fork_ms floor_1map floor_256K read_s cow_MB gcore_s wHS_s wHS_RSS+MB
for mb in $SIZES; do
    rm -f "$w/ready"
    "$NODE" --max-old-space-size=16384 bench/snapshot_cow_program.js "$w/ready" "$mb" "$w" > "$w/out" & pid=$!
    for _ in $(seq 3000); do [ -s "$w/ready" ] && break; sleep 0.1; done
    sleep 2
    rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status")
    : > "$w/stop"; : > "$w/fork"
    for _ in $(seq "$ROUNDS"); do
        "$NS" core --pid "$pid" -v stack 2>&1 > /dev/null | grep 'stopped for' > "$w/line"
        grep -o 'stopped for [0-9.]*' "$w/line" | grep -o '[0-9.]*$' >> "$w/stop"
        grep -o 'fork took [0-9.]*' "$w/line" | grep -o '[0-9.]*$' >> "$w/fork"
        sleep 0.5
    done
    before=$(pss "$pid")
    t0=$(date +%s.%N)
    "$NS" core --pid "$pid" heapsnapshot -o "$w/ns.heapsnapshot" 2> "$w/err" & ns=$!
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
    cow=$(( peak > before ? peak - before : 0 ))
    rm -f "$w/ns.heapsnapshot"
    g=-
    if [ "$(df -Pm "$w" | awk 'NR == 2 {print $4}')" -gt $((rss + 1024)) ]; then
        t0=$(date +%s.%N); gcore -o "$w/core" "$pid" > /dev/null 2>&1; g=$(printf "%.1f" "$(echo "$(date +%s.%N) - $t0" | bc)"); rm -f "$w"/core.*
    else
        echo "(${mb} MB: gcore skipped, less than $((rss + 1024)) MB free on $(df -Pm "$w" | awk 'NR == 2 {print $6}'))" >&2
    fi
    ws=-; wg=-
    need=$((mb * 112 / 10 + 4096)); avail=$(avail_mb)
    if [ "$WHS" = 0 ]; then
        echo "(${mb} MB: writeHeapSnapshot skipped, WHS=0)" >&2
    elif [ "$avail" -lt "$need" ]; then
        echo "(${mb} MB: writeHeapSnapshot skipped: it needs about $((mb * 112 / 10)) MB more RSS, $avail MB available, 4 GB kept for the others)" >&2
    else
        : > "$w/out"; kill -USR1 "$pid"
        for _ in $(seq 12000); do grep -q writeHeapSnapshot "$w/out" && break; sleep 0.1; done
        read -r _ wms wbefore wpeak < <(grep writeHeapSnapshot "$w/out")
        ws=$(printf "%.1f" "$(echo "$wms / 1000" | bc -l)"); wg=$((wpeak - wbefore))
    fi
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
    f1=$("$w/fork_floor" "$rss" | awk '{printf "%s [%s-%s]", $1, $2, $3}')
    f2=$("$w/fork_floor" "$rss" 256 | awk '{printf "%s [%s-%s]", $1, $2, $3}')
    printf "%-6s %-8s %-19s %-19s %-13s %-13s %-7.1f %-7s %-8s %-9s %s\n" "${mb}MB" "$rss" "$(stats < "$w/stop")" "$(stats < "$w/fork")" \
        "$f1" "$f2" "$read_s" "$cow" "$g" "$ws" "$wg"
done
echo "(stop_ms: the process stopped for a snapshot (nodescope -v, median [min-max] of $ROUNDS), fork_ms: the clone inside it;"
echo " floor: fork() of a process with rss_MB touched in one mapping / in 256 KiB mappings; read_s: core --pid heapsnapshot"
echo " from the copy, cow_MB: its copy-on-write growth at its peak; gcore_s: gdb's gcore, stopped the whole time;"
echo " wHS: the program's own v8.writeHeapSnapshot(), stopped the whole time, and its peak RSS over its RSS before)"
