#!/bin/bash
# 200 snapshots of a small HTTP server under a loopback load (tests/fixtures/watch/http_load.js):
# `core --pid PID stack` (a frozen copy each: stop, fork, read, kill, reap) COUNT times (default
# 200) while 8 keep-alive clients send requests; then every request sent was answered (none
# failed), and after every snapshot the server is running or sleeping, untraced, with no child
# left (no copy, no zombie: /proc checked). Throughput: answers per second in the same length of
# time before the snapshots (baseline) and during them, and the worst 100 ms bucket of each.
# Too slow for the suite (a minute or two). Exit 1 when a check fails.
#   bench/watch_on_server.sh [NODE]        NODE: default tests/.cache/node/22/bin/node
set -u
cd "$(dirname "$0")/.."
NODE=${1:-tests/.cache/node/22/bin/node}
NS=${NS:-build/nodescope}
COUNT=${COUNT:-200}
FIX=tests/fixtures/watch/http_load.js
w=$(mktemp -d); pid=; lp=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$lp" ] && kill "$lp" 2>/dev/null; rm -rf "$w"' EXIT
bad() { echo "FAIL: $*"; exit 1; }
"$NODE" "$FIX" server "$w/port" > "$w/server.out" & pid=$!
for _ in $(seq 100); do [ -s "$w/port" ] && break; sleep 0.05; done
port=$(cat "$w/port")
# the snapshots' duration, measured first without load, sets both windows' length
t0=$(date +%s.%N)
for _ in $(seq 5); do "$NS" core --pid "$pid" stack > /dev/null 2>&1 || bad "core --pid stack failed"; done
per=$(echo "$(date +%s.%N) - $t0" | bc -l)
secs=$(printf '%.0f' "$(echo "$per / 5 * $COUNT + 1" | bc -l)")
"$NODE" "$FIX" load "$port" "$secs" "$w/base.json"
"$NODE" "$FIX" load "$port" "$((secs + 2))" "$w/snap.json" & lp=$!
sleep 1
stopped=(); s0=$(date +%s%3N)
for i in $(seq "$COUNT"); do
    "$NS" core --pid "$pid" -v stack 2> "$w/err" > /dev/null || { cat "$w/err"; bad "snapshot $i failed"; }
    stopped+=("$(grep -o 'stopped for [0-9.]*' "$w/err" | grep -o '[0-9.]*$')")
    st=$(awk '/^State:/ {print $2}' "/proc/$pid/status"); tr=$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")
    [[ "$st" == [RS] ]] && [ "$tr" = 0 ] || bad "after snapshot $i: state $st, tracer $tr"
    ch=$(cat /proc/"$pid"/task/*/children 2> /dev/null | tr -d ' ')
    [ -z "$ch" ] || bad "after snapshot $i: children $ch"
done
s1=$(date +%s%3N)
wait "$lp"; lp=
kill -TERM "$pid"; wait "$pid"; pid=
node -e '
const fs = require("fs");
const [b, s] = [process.argv[1], process.argv[2]].map((f) => JSON.parse(fs.readFileSync(f)));
const stopped = process.argv[3].split(" ").map(Number).sort((x, y) => x - y);
const [s0, s1] = [+process.argv[4], +process.argv[5]];
// the snapshot run: only the buckets while the snapshots were taken
const during = s.buckets.slice(Math.ceil((s0 - s.start) / 100), Math.floor((s1 - s.start) / 100));
const rate = (j) => j.answered / (j.buckets.length / 10);
const worst = (j) => Math.min(...j.buckets.slice(1, -1));
const drate = during.reduce((x, y) => x + y, 0) / (during.length / 10);
for (const [name, j] of [["baseline", b], ["snapshots", s]])
    console.log(`${name.padEnd(10)} sent ${j.sent} answered ${j.answered} errors ${j.errors}: ${rate(j).toFixed(0)} req/s, worst 100 ms bucket ${worst(j)}`);
console.log(`during the ${stopped.length} snapshots (${(during.length / 10).toFixed(1)} s): ${drate.toFixed(0)} req/s, ${(100 * drate / rate(b)).toFixed(1)}% of baseline, worst 100 ms bucket ${Math.min(...during)}; stopped ms median ${stopped[stopped.length >> 1]} max ${stopped[stopped.length - 1]}`);
if (s.errors || s.answered !== s.sent || b.errors) { console.log("FAIL: requests lost"); process.exit(1); }
' "$w/base.json" "$w/snap.json" "${stopped[*]}" "$s0" "$s1" || exit 1
grep -q '^served' "$w/server.out" || bad "the server did not exit by its SIGTERM handler"
echo "ok: every request answered; the server never left stopped, traced or with a child"
