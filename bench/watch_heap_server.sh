#!/bin/bash
# What a busy server feels of watch --heap, measured inside it: tests/fixtures/leak/express_sessions.js
# (express 4; after 3 s of load that fills its heap with sessions, told to keep no more: a steady
# heap of 30-60 MB, the bounded cache and garbage) under loopback load (tests/fixtures/live/load_client.js,
# 8 connections, requests back to back) for PHASE seconds (8) at a time, in three kinds of phase
# alternated ROUNDS times (3): no watch, `watch --heap --every 1s` with a tracked copy (the
# default), and the same with `--fork`. Per phase: the event loop's longest delay the server
# measured itself (perf_hooks.monitorEventLoopDelay: SIGUSR2 prints it and starts again), the
# minor page faults it took (/proc/PID/stat), the requests answered, the load's slowest answer,
# and the watch's median stop, CPU per census and V8 pages its graph took from the last census's
# (the censuses after the first two). Then per kind the medians and ranges.
#   [NODE=tests/.cache/node/22/bin/node] [PHASE=8] [ROUNDS=3] bench/watch_heap_server.sh
set -u
cd "$(dirname "$0")/.."
NS=${NODESCOPE:-build/nodescope}
NODE=${NODE:-tests/.cache/node/22/bin/node}
PHASE=${PHASE:-8}
ROUNDS=${ROUNDS:-3}
[ -d tests/node_modules/express ] || { echo "express not installed (cd tests && npm install)"; exit 1; }
export NODE_PATH=$PWD/tests/node_modules
tmp=$(mktemp -d /tmp/watch-heap-server-bench.XXXXXX)
sp=
trap '[ -n "$sp" ] && kill "$sp" 2> /dev/null; rm -rf "$tmp"' EXIT
port=$((20000 + RANDOM % 20000))
"$NODE" tests/fixtures/leak/express_sessions.js "$port" "$tmp/pid" > "$tmp/out" 2> "$tmp/err" & sp=$!
for _ in $(seq 100); do [ -s "$tmp/pid" ] && break; sleep 0.1; done
[ -s "$tmp/pid" ] || { cat "$tmp/err"; exit 1; }
"$NODE" tests/fixtures/live/load_client.js "$port" 3 8 /login/warm > /dev/null
# from now on no session is kept (SIGUSR1): a heap that stays the same size, so that phases
# compare (a growing one's full collections lengthen from phase to phase)
kill -USR1 "$sp"
faults() { awk '{print $10}' "/proc/$sp/stat"; }
echo "server pid $sp ($("$NODE" --version)), $PHASE s phases, $ROUNDS rounds"
: > "$tmp/phases"
for r in $(seq "$ROUNDS"); do
    for kind in none tracked fork; do
        kill -USR2 "$sp"; sleep 0.2
        f0=$(faults)
        "$NODE" tests/fixtures/live/load_client.js "$port" "$PHASE" 8 /login/bob > "$tmp/load" & lp=$!
        wp=
        if [ "$kind" != none ]; then
            opt=; [ "$kind" = fork ] && opt=--fork
            "$NS" watch -p "$sp" --heap --every 1s -d $((PHASE - 1)) --json $opt > "$tmp/w.json" 2> /dev/null & wp=$!
        fi
        wait $lp
        [ -n "$wp" ] && wait $wp
        f1=$(faults)
        n0=$(grep -c . "$tmp/out")
        kill -USR2 "$sp"
        for _ in $(seq 50); do [ "$(grep -c . "$tmp/out")" -gt "$n0" ] && break; sleep 0.1; done
        delay=$(tail -1 "$tmp/out" | sed -E 's/.*"delayMaxMs":([0-9]+).*/\1/')
        stop=- cpu=- reuse=-
        [ -n "$wp" ] && read -r stop cpu reuse < <(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
            const med = (a) => { const v = a.sort((x, y) => x - y); return v.length ? v[v.length >> 1] : NaN; };
            const later = r.censuses.slice(2), kept = later.filter(c => c.pages_reused !== null);
            console.log(med(r.censuses.slice(1).map(c => c.stop_ms)).toFixed(1), med(later.map(c => c.cpu_ms)).toFixed(0),
                        kept.length ? med(kept.map(c => c.pages_reused)) + "/" + med(kept.map(c => c.pages_reused + c.pages_walked)) : "-")' "$tmp/w.json")
        read -r ok slow < <(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(r.ok, r.maxMs)' "$tmp/load")
        echo "$kind $delay $((f1 - f0)) $ok $slow $stop $cpu $reuse" | tee -a "$tmp/phases" |
            awk '{printf "  %-8s delay %4s ms, %7s faults, %6s requests, slowest %4s ms, stop %s ms, census %s ms CPU, pages reused %s\n", $1, $2, $3, $4, $5, $6, $7, $8}'
    done
done
echo "medians [ranges] per kind:"
for kind in none tracked fork; do
    grep "^$kind " "$tmp/phases" | node -e '
        const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").map(l => l.split(" "));
        const st = (k) => { const v = rows.map(r => +r[k]).filter(x => !isNaN(x)).sort((a, b) => a - b);
            return v.length ? `${v[v.length >> 1]} [${v[0]}-${v[v.length - 1]}]` : "-"; };
        console.log(`  ${rows[0][0].padEnd(8)} the loop${"\x27"}s longest delay ${st(1)} ms, faults ${st(2)}, requests ${st(3)}, slowest answer ${st(4)} ms, stop ${st(5)} ms, census ${st(6)} ms CPU`);'
done
