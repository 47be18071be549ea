#!/bin/bash
# watch --heap's cost per census on big heaps (issue 31's goal: < 1 s of nodescope CPU and < 20 ms
# of stop per census of a 1 GB heap): bench/watch_heap_program.js builds a heap of 512 and 1024 MB
# of small objects (Node 20), then `watch --heap --every 1s -d 4` (5 censuses) runs in each mode,
# alternating, ROUNDS times (2): the object graph (default) and --all-objects (one walk). Prints per
# heap and mode the median and range of nodescope's CPU per census, the census's wall time, and the
# stop. With SNAPSHOT=1 also how long the program's own v8.writeHeapSnapshot() takes (it stops the
# program all that time), the tool people use, and the ratio.
#   bench/watch_heap.sh [SIZES_MB...]
set -u
cd "$(dirname "$0")/.."
NS=${NODESCOPE:-build/nodescope}
NODE=${NODE:-tests/.cache/node/20/bin/node}
ROUNDS=${ROUNDS:-2}
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(512 1024)
tmp=$(mktemp -d /tmp/watch-heap-bench.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT
summary() {   # JSON reports... -> "cpu median [min-max] ms, wall ..., stop ..."
    node -e '
        const fs = require("fs"), cs = process.argv.slice(1).flatMap(f => JSON.parse(fs.readFileSync(f, "utf8")).censuses);
        const st = k => { const v = cs.map(c => c[k]).sort((a, b) => a - b); const m = v.length >> 1;
            return `${(v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2).toFixed(1)} [${v[0].toFixed(1)}-${v[v.length - 1].toFixed(1)}]`; };
        console.log(`${cs.length} censuses: CPU ${st("cpu_ms")} ms, wall ${st("wall_ms")} ms, stopped ${st("stop_ms")} ms (fork ${st("fork_ms")}); ` +
                    `heap ${(cs[0].heap_bytes / 1e6).toFixed(0)} MB counted, ${(cs[0].all_bytes / 1e6).toFixed(0)} MB on the pages`);
    ' "$@"
}
for mb in "${sizes[@]}"; do
    rm -f "$tmp/pid"
    "$NODE" --max-old-space-size=8000 bench/watch_heap_program.js "$tmp/pid" "$mb" > "$tmp/out" 2>&1 & pid=$!
    for _ in $(seq 300); do [ -s "$tmp/pid" ] && break; sleep 0.5; done
    [ -s "$tmp/pid" ] || { echo "the program did not build its heap"; exit 1; }
    echo "== ${mb} MB heap (pid $pid, RSS $(awk '/VmRSS/ {print $2 / 1024 " MB"}' /proc/$pid/status))"
    for r in $(seq "$ROUNDS"); do
        for mode in graph all; do
            extra=; [ $mode = all ] && extra=--all-objects
            "$NS" watch -p "$pid" --heap --every 1s -d 4 --json --no-paths $extra > "$tmp/$mb.$mode.$r.json" 2> "$tmp/err" ||
                { cat "$tmp/err"; exit 1; }
        done
    done
    for mode in graph all; do printf '  %-6s ' "$mode:"; summary "$tmp/$mb".$mode.*.json; done
    if [ "${SNAPSHOT:-0}" = 1 ]; then
        : > "$tmp/out"; kill -USR2 "$pid"
        for _ in $(seq 1200); do grep -q snapshot "$tmp/out" && break; sleep 0.5; done
        snap=$(awk '/snapshot/ {print $2}' "$tmp/out")
        echo "  v8.writeHeapSnapshot() in the program: stopped it ${snap} ms"
        node -e '
            const fs = require("fs"), snap = +process.argv[1];
            const st = process.argv.slice(2).flatMap(f => JSON.parse(fs.readFileSync(f, "utf8")).censuses.map(c => c.stop_ms)).sort((a, b) => a - b);
            const med = st.length % 2 ? st[st.length >> 1] : (st[st.length / 2 - 1] + st[st.length / 2]) / 2;
            console.log(`  ratio: a heap snapshot stops the program ${(snap / med).toFixed(0)}x longer than a census (median stop ${med.toFixed(1)} ms)`);
        ' "$snap" "$tmp/$mb".*.json
    fi
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
done
