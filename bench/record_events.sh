#!/bin/bash
# record -e EVENT's cost (issue 32). Root only (tracepoints, uprobes).
#  1. Cost per event, each kind: the target's CPU time (user+sys, from wait4, inside the
#     recording) with and without `nodescope record -e KIND`, divided by the events the kernel
#     counted, on tests/fixtures/events/ run flat out (no pauses): syscall:write, page-faults, gc,
#     u:node:uv_fs_open. ROUNDS pairs, alternated; medians and spread.
#  2. A write-heavy server at its natural rate (bench/record_events_server.js: an HTTP server that
#     fs.writeSync's a log line per request, driven by 8 keep-alive clients for SECONDS): requests/s
#     alone, with `nodescope record -e syscall:write -p PID`, and with
#     with --max-rate 1000/s, and with
#     `perf record -e syscalls:sys_enter_write -g -p PID` (perf reads tracefs: when it is not mounted
#     perf runs in a private mount namespace with one), alternated ROUNDS times; the slowdowns.
# Usage: bench/record_events.sh   (NODE=..., ROUNDS=5, SECONDS_=5, NODESCOPE=..., PART=2: the server only)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NODE=${NODE:-$ROOT/tests/.cache/node/22/bin/node}
NS=${NODESCOPE:-$ROOT/build/nodescope}
ROUNDS=${ROUNDS:-5}
SECS=${SECONDS_:-5}
FIX=$ROOT/tests/fixtures/events
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
[ "$(id -u)" -eq 0 ] || { echo "root needed (tracepoints, uprobes)"; exit 77; }
echo "node $("$NODE" --version), load average $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }

# --- 1. cost per event
cpu_of() { awk '{ print $1 + $2 }' "$1"; }
# the command's user+sys CPU time, in microseconds' precision (wait4's rusage; /usr/bin/time gives 10 ms)
RUSAGE='import resource, subprocess, sys
subprocess.run(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%f %f\n" % (r.ru_utime, r.ru_stime))' 
kind() {   # NAME EVENT FIXTURE ARGS...
    local name=$1 ev=$2; shift 2
    : > "$W/base"; : > "$W/rec"; : > "$W/per"
    for r in $(seq "$ROUNDS"); do
        python3 -c "$RUSAGE" "$W/t0" "$NODE" "$@" > /dev/null
        "$NS" record --children -e "$ev" -o "$W/p.folded" -- python3 -c "$RUSAGE" "$W/t1" "$NODE" "$@" > /dev/null 2> "$W/err"
        n=$(sed -n 's/.*; \([0-9]*\) events counted.*/\1/p' "$W/err" | tail -1)
        lost=$(sed -n 's/.* \([0-9]*\) not sampled.*/\1/p' "$W/err" | tail -1)
        a=$(cpu_of "$W/t0"); b=$(cpu_of "$W/t1")
        echo "$a" >> "$W/base"; echo "$b" >> "$W/rec"
        [ -n "$n" ] && [ "$n" -gt 0 ] && awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.1f\n", (b - a) * 1e6 / n }' >> "$W/per"
    done
    printf '%-20s %6s events (%s not sampled); target CPU %.3f s alone, %.3f s recorded; cost per event %s us (spread %s)\n' \
        "$name" "${n:-?}" "${lost:-0}" "$(median < "$W/base")" "$(median < "$W/rec")" "$(median < "$W/per")" "$(spread < "$W/per")"
}
if [ "${PART:-1}" = 1 ]; then
echo "== cost per event (the target's CPU time; nodescope's own CPU is apart)"
kind syscall:write syscall:write "$FIX/writes.js" "$W/out.txt" 10000 1000 0
kind page-faults page-faults "$FIX/faults.js" 40 1 1000 0
kind gc gc "$FIX/gc.js" 300 1000 0
kind u:node:uv_fs_open u:node:uv_fs_open "$FIX/opens.js" 10000 1000 0
fi

# --- 2. a write-heavy server
echo "== write-heavy server: requests/s with 8 keep-alive clients for $SECS s"
perf_tp() {   # perf record with the syscalls tracepoints named: tracefs mounted, privately if need be
    if [ -d /sys/kernel/tracing/events ]; then exec perf "$@"
    else exec unshare -m sh -c 'mount -t tracefs nodev /sys/kernel/tracing && exec perf "$@"' sh "$@"; fi
}
serve() {   # MODE: prints requests/s
    local mode=$1 pid rate
    local rpid=""
    rm -f "$W/port"
    "$NODE" "$ROOT/bench/record_events_server.js" server "$W/log" "$W/port" & pid=$!
    for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
    case $mode in
        nodescope) "$NS" record -e syscall:write -p "$pid" -o "$W/s.folded" 2> "$W/ns.err" & rpid=$! ;;
        maxrate) "$NS" record -e syscall:write --max-rate 1000/s -p "$pid" -o "$W/m.folded" 2> "$W/mr.err" & rpid=$! ;;
        perf) perf_tp record -q -e syscalls:sys_enter_write -g -p "$pid" -o "$W/perf.data" 2> "$W/perf.err" & rpid=$! ;;
    esac
    sleep 1
    rate=$("$NODE" "$ROOT/bench/record_events_server.js" client "$(cat "$W/port")" "$SECS" | awk '{ print $1 }')
    [ -n "$rpid" ] && { kill -INT "$rpid"; wait "$rpid" 2>/dev/null; }
    kill "$pid"; wait "$pid" 2>/dev/null
    echo "$rate"
}
: > "$W/alone"; : > "$W/nodescope"; : > "$W/maxrate"; : > "$W/perf"
for r in $(seq "$ROUNDS"); do
    for m in alone nodescope maxrate perf; do serve $m >> "$W/$m"; done
done
a=$(median < "$W/alone"); n=$(median < "$W/nodescope"); p=$(median < "$W/perf"); mr=$(median < "$W/maxrate")
echo "alone     $a req/s (spread $(spread < "$W/alone"))"
echo "nodescope $n req/s (spread $(spread < "$W/nodescope")): $(awk -v a="$a" -v b="$n" 'BEGIN { printf "%.1f%% slower", 100 * (a - b) / a }')"
echo "nodescope --max-rate 1000/s $mr req/s (spread $(spread < "$W/maxrate")): $(awk -v a="$a" -v b="$mr" 'BEGIN { printf "%.1f%% slower", 100 * (a - b) / a }')"
echo "perf -g   $p req/s (spread $(spread < "$W/perf")): $(awk -v a="$a" -v b="$p" 'BEGIN { printf "%.1f%% slower", 100 * (a - b) / a }')"
echo "ratio nodescope/perf slowdown: $(awk -v a="$a" -v n="$n" -v p="$p" 'BEGIN { if (a - p > 0) printf "%.2f", (a - n) / (a - p); else print "n/a" }')"
tail -1 "$W/ns.err"
tail -1 "$W/mr.err"
