#!/bin/bash
# watch --heap's cost per census on big heaps (issue 31's goal: < 1 s of nodescope CPU and < 20 ms
# of stop per census of a 1 GB heap): bench/watch_heap_program.js builds a heap of 512 and 1024 MB
# of small objects (Node 20), then `watch --heap --every 1s -d 10` (censuses every second, or back
# to back when one takes longer; DURATION=seconds) runs in each mode, alternating, ROUNDS times
# (2): the object graph (default) and --all-objects (one walk). Prints per heap and mode the median
# and range of nodescope's CPU per census, the census's wall time, and the stop; and, measured
# inside the program (perf_hooks.monitorEventLoopDelay), the event loop's longest delay during
# each watch, and during as long without one; and nodescope's maximum RSS (/usr/bin/time). With
# SNAPSHOT=1 also how long the program's own
# v8.writeHeapSnapshot() takes (it stops the program all that time), the tool people use, and the
# ratio. With BASE=another/nodescope, each run of NODESCOPE is paired with one of BASE (same heap;
# which goes first alternates from round to round: a watch's first census costs more after a
# pause, whichever build it is) and the ratio of their median CPU per census printed: a watch's
# first two censuses are left out of that ratio (the first reads the whole process and maps the
# graph's memory, the second maps the second set of arrays a census that reuses pages of the last
# one's graph needs; later ones reuse both), and shown apart.
#   [BASE=old/build/nodescope] [DURATION=10] bench/watch_heap.sh [SIZES_MB...]
set -u
cd "$(dirname "$0")/.."
NS=${NODESCOPE:-build/nodescope}
NODE=${NODE:-tests/.cache/node/20/bin/node}
ROUNDS=${ROUNDS:-2}
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(512 1024)
tmp=$(mktemp -d /tmp/watch-heap-bench.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT
summary() {   # JSON reports... -> "cpu median [min-max] ms (first censuses apart), wall ..., stop ..."
    node -e '
        const fs = require("fs"), rs = process.argv.slice(1).map(f => JSON.parse(fs.readFileSync(f, "utf8")).censuses);
        const firsts = rs.map(c => c[0]), seconds = rs.filter(c => c.length > 1).map(c => c[1]), cs = rs.flatMap(c => c.slice(2));
        const st = (k, a) => { const v = a.map(c => c[k]).sort((x, y) => x - y); const m = v.length >> 1;
            return v.length ? `${(v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2).toFixed(1)} [${v[0].toFixed(1)}-${v[v.length - 1].toFixed(1)}]` : "-"; };
        const all = rs.flat();
        const reused = cs.filter(c => c.pages_reused !== null && c.pages_reused !== undefined);
        console.log(`${all.length} censuses: CPU ${st("cpu_ms", cs)} ms (a watch${"\x27"}s first: ${st("cpu_ms", firsts)}, second: ${st("cpu_ms", seconds)}), wall ${st("wall_ms", cs)} ms, ` +
                    (reused.length ? `pages reused ${st("pages_reused", reused)} of ${st("pages", reused.map(c => ({ pages: c.pages_walked + c.pages_reused })))}, ` : "") +
                    `stopped ${st("stop_ms", all)} ms (fork ${st("fork_ms", all)}); ` +
                    `heap ${(all[0].heap_bytes / 1e6).toFixed(0)} MB counted, ${(all[0].all_bytes / 1e6).toFixed(0)} MB on the pages`);
    ' "$@"
}
median_cpu() {   # JSON reports... -> the median CPU ms of the censuses after each watch's second
    node -e '
        const fs = require("fs"), v = process.argv.slice(1).flatMap(f => JSON.parse(fs.readFileSync(f, "utf8")).censuses.slice(2).map(c => c.cpu_ms)).sort((a, b) => a - b);
        const m = v.length >> 1; console.log(v.length ? (v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2) : NaN);
    ' "$@"
}
delay() {   # the program's event loop's longest delay since the last call, in ms (it prints it on SIGUSR1)
    local n
    n=$(grep -c '^delay ' "$tmp/out")
    kill -USR1 "$pid"
    for _ in $(seq 100); do [ "$(grep -c '^delay ' "$tmp/out")" -gt "$n" ] && break; sleep 0.05; done
    grep '^delay ' "$tmp/out" | tail -1 | awk '{ print $2 }'
}
bins=(new); [ -n "${BASE:-}" ] && bins=(new base)
for mb in "${sizes[@]}"; do
    rm -f "$tmp/pid"
    "$NODE" --max-old-space-size=8000 bench/watch_heap_program.js "$tmp/pid" "$mb" > "$tmp/out" 2>&1 & pid=$!
    for _ in $(seq 300); do [ -s "$tmp/pid" ] && break; sleep 0.5; done
    [ -s "$tmp/pid" ] || { echo "the program did not build its heap"; exit 1; }
    echo "== ${mb} MB heap (pid $pid, RSS $(awk '/VmRSS/ {print $2 / 1024 " MB"}' /proc/$pid/status))"
    delay > /dev/null; sleep "${DURATION:-10}"; quiet=$(delay)
    for r in $(seq "$ROUNDS"); do
        for mode in graph all; do
            extra=; [ $mode = all ] && extra=--all-objects
            order=("${bins[@]}"); [ $((r % 2)) = 0 ] && [ ${#bins[@]} -gt 1 ] && order=(base new)
            for bin in "${order[@]}"; do
                ns=$NS; [ $bin = base ] && ns=$BASE
                delay > /dev/null
                timed=(); [ -x /usr/bin/time ] && timed=(/usr/bin/time -a -o "$tmp/$mb.$mode.$bin.rss" -f %M)
                "${timed[@]}" "$ns" watch -p "$pid" --heap --every 1s -d "${DURATION:-10}" --json --no-paths $extra > "$tmp/$mb.$mode.$bin.$r.json" 2> "$tmp/err" ||
                    { cat "$tmp/err"; exit 1; }
                delay >> "$tmp/$mb.$bin.delays"
            done
        done
    done
    for mode in graph all; do
        for bin in "${bins[@]}"; do
            label=$mode; [ ${#bins[@]} -gt 1 ] && label="$mode ($bin)"
            printf '  %-14s ' "$label:"; summary "$tmp/$mb".$mode.$bin.*.json
            [ -s "$tmp/$mb.$mode.$bin.rss" ] && echo "                 nodescope's maximum RSS: $(sort -n "$tmp/$mb.$mode.$bin.rss" | tail -1 | awk '{ printf "%.2f GB", $1 / 1048576 }')"
        done
        if [ ${#bins[@]} -gt 1 ]; then
            n=$(median_cpu "$tmp/$mb".$mode.new.*.json) b=$(median_cpu "$tmp/$mb".$mode.base.*.json)
            node -e 'console.log(`  ${process.argv[1]}: CPU per census, base / new = ${(process.argv[3] / process.argv[2]).toFixed(2)}`)' "$mode" "$n" "$b"
        fi
    done
    for bin in "${bins[@]}"; do
        label=; [ ${#bins[@]} -gt 1 ] && label=" ($bin)"
        echo "  in the program$label: the event loop's longest delay during a watch: $(sort -n "$tmp/$mb.$bin.delays" |
            awk '{ v[NR] = $1 } END { printf "median %.1f [%.1f-%.1f] ms", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR] }')" \
            "(over as long without a watch: $quiet ms)"
    done
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
