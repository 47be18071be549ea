#!/usr/bin/env bash
# Benchmark: how long `nodescope core --pid PID stack` stops a live node process, seen from inside
# the process. The target runs a setInterval(..., 1) loop that timestamps every tick and reports each
# gap over 2 ms; the script attaches N times (default 50) and takes, for each attach, the longest
# gap that overlaps it. Baseline: the same windows' gaps without any attach. With OLD=path/to/an
# older nodescope, the old attach (stop everything, then load symbols) is measured in the same run.
# Prints min / median / max in ms. Not a test.
#   bench/live_attach.sh [N]            NODE=... NODESCOPE=... OLD=... to change the binaries
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=${NODESCOPE:-$ROOT/build/nodescope}
NODE=${NODE:-$ROOT/tests/.cache/node/22/bin/node}
N=${1:-50}
W=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$W"' EXIT
cat > "$W/ticker.js" <<'JS'
// Every 1 ms tick; a gap over 2 ms is printed as "end-of-gap-epoch-ms gap-ms". Some work between
// ticks keeps JIT frames on the stack.
let last = performance.now();
function work(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); return s; }
setInterval(() => {
    const now = performance.now();
    if (now - last > 2) process.stdout.write(`${(performance.timeOrigin + now).toFixed(3)} ${(now - last).toFixed(3)}\n`);
    last = now;
    work(2000);
}, 1);
JS
"$NODE" "$W/ticker.js" > "$W/gaps" &
pid=$!
sleep 2
now_ms() { date +%s%3N; }
run() {   # label, nodescope binary or "none"
    : > "$W/windows.$1"
    for _ in $(seq "$N"); do
        local t0 t1
        t0=$(now_ms)
        if [ "$2" = none ]; then sleep 0.05; else "$2" core --pid "$pid" stack > /dev/null; fi
        t1=$(now_ms)
        echo "$t0 $t1" >> "$W/windows.$1"
        sleep 0.1
    done
}
report() {   # label
    sleep 0.1
    awk 'FNR == NR { s[NR] = $1; e[NR] = $2 + 5; n = NR; next }
         { for (i = 1; i <= n; i++) if ($1 >= s[i] && $1 - $2 <= e[i] && $2 > g[i]) g[i] = $2 }
         END { for (i = 1; i <= n; i++) printf "%.3f\n", g[i] + 0 }' "$W/windows.$1" "$W/gaps" | sort -n > "$W/per.$1"
    local n; n=$(wc -l < "$W/per.$1")
    printf '%-28s %d attaches; longest event-loop gap per attach (ms, 0 = none over 2 ms): min %s  median %s  max %s\n' \
        "$1" "$n" "$(head -1 "$W/per.$1")" "$(sed -n "$(( (n + 1) / 2 ))p" "$W/per.$1")" "$(tail -1 "$W/per.$1")"
}
run baseline none;  report baseline
run new "$NS";      report new
if [ -n "${OLD:-}" ]; then run old "$OLD"; report old; fi
