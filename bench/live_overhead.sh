#!/usr/bin/env bash
# What the live sampler costs the program it samples (issue 13: < 0.5% at 99 Hz, no worse than
# `perf record -g` at 999 Hz). Two workloads (bench/live_overhead.js): a CPU-bound JS benchmark
# (rounds a second) and a small HTTP server under autocannon (requests a second, 10 connections).
# Each is run plain, under `nodescope record` at 99 Hz and 999 Hz, and under `perf record -g -F 999`,
# the modes alternating round by round; prints the median of each mode, its slowdown against the
# plain runs, and the sampler's own cost of one sample (record -v: nodescope's CPU time while it
# sampled, reading the rings, naming and polling, over the samples).
# Load averages are printed before and after: on a shared machine the numbers move with it.
# Needs npm (autocannon@7 into bench/.cache). Not a test.
#   bench/live_overhead.sh [ROUNDS] [SECONDS]      (default 3 rounds of 6 s)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
make -j2 build/nodescope > /dev/null
NS=$ROOT/build/nodescope
NODE=${NODE:-node}
ROUNDS=${1:-3}
SECS=${2:-6}
mkdir -p bench/.cache
(cd bench/.cache && [ -d node_modules/autocannon ] || npm install --silent --no-audit --no-fund autocannon@7 > /dev/null)
AC=$ROOT/bench/.cache/node_modules/autocannon/autocannon.js
JS=$ROOT/bench/live_overhead.js
W=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done; rm -rf "$W"; }
trap cleanup EXIT
have_perf=1; command -v perf > /dev/null || have_perf=0
modes="plain live99 live999"; [ $have_perf = 1 ] && modes="$modes perf999"

# run MODE CMD...: the command under MODE; the sampler's -v line goes to $W/MODE.cost
run() {
    local mode=$1; shift
    case $mode in
    plain) "$@" ;;
    live99) "$NS" record -v -F 99 -o "$W/p.folded" -- "$@" 2>> "$W/$mode.cost" ;;
    live999) "$NS" record -v -F 999 -o "$W/p.folded" -- "$@" 2>> "$W/$mode.cost" ;;
    perf999) perf record -q -g -F 999 -o "$W/perf.data" -- "$@" 2> /dev/null ;;
    esac
}
wait_listening() { for _ in $(seq 200); do grep -q listening "$1" 2> /dev/null && return 0; sleep 0.05; done; echo "server did not start" >&2; return 1; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
    for mode in $modes; do
        run $mode "$NODE" "$JS" cpu "$SECS" | awk -v m=$mode '/^rounds/ { print m, $2 }' >> "$W/cpu.txt"
        PORT=$((20000 + RANDOM % 20000))
        run $mode "$NODE" "$JS" http "$PORT" > "$W/server.out" & pids+=($!)
        wait_listening "$W/server.out"
        sleep 1   # the sampler has attached (record waits for node's threads) and the server is warm
        rps=$("$NODE" "$AC" -j -c 10 -d "$SECS" "http://127.0.0.1:$PORT/x" 2> /dev/null |
              "$NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).requests.average))')
        echo "$mode $rps" >> "$W/http.txt"
        # the server's own pid: record and perf started it as their child
        srv=$(pgrep -f "live_overhead.js http $PORT" | head -1 || true)
        [ -n "$srv" ] && kill -INT "$srv" 2> /dev/null || true
        wait "${pids[-1]}" || true
        rm -f "$W/server.out"
    done
    echo "round $r done ($(cut -d' ' -f1-3 /proc/loadavg))"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
report() {   # FILE UNIT
    "$NODE" -e '
        const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(l => l.split(" "));
        const by = {};
        for (const [m, v] of lines) (by[m] = by[m] || []).push(Number(v));
        const med = a => { a = [...a].sort((x, y) => x - y); return a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2; };
        const base = med(by.plain);
        for (const m of Object.keys(by)) {
            const v = med(by[m]);
            console.log(`  ${m.padEnd(8)} ${v.toFixed(1).padStart(10)} ${process.argv[2]}  ${m === "plain" ? "" : ((100 * (base - v) / base).toFixed(2) + "% slower")}  (runs: ${by[m].map(x => x.toFixed(0)).join(" ")})`);
        }' "$1" "$2"
}
echo "CPU-bound JS benchmark (median of $ROUNDS runs of ${SECS} s):"; report "$W/cpu.txt" rounds/s
echo "HTTP server under autocannon -c 10 (median of $ROUNDS runs of ${SECS} s):"; report "$W/http.txt" req/s
for m in live99 live999; do
    [ -f "$W/$m.cost" ] || continue
    grep -o '[0-9.]* us CPU a sample' "$W/$m.cost" | awk -v m=$m '{ s += $1; n++; all = all " " $1 } END { if (n) printf "%s: %.0f us of nodescope CPU a sample (mean over %d recordings:%s)\n", m, s / n, n, all }'
done
