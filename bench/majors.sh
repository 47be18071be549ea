#!/bin/bash
# The benches of issue 41, Node majors side by side in one run (default 24 and 26), so that a
# regression in a newer V8 shows as a ratio. Each round measures every major in turn, the order
# alternating from round to round (pairs: 24 26, then 26 24, ...):
#   - record's cost per sample: bench/live_sample_cost.mjs (MODES=live99, one window of WINDOW s):
#     microseconds a sample takes from the thread it interrupts;
#   - attach stop: bench/live_attach.sh with ATTACHES attaches of `core --pid PID stack`: the median
#     of the longest event-loop gap per attach (ms), as the program saw it;
#   - heapsnapshot and census of a heap of SIZE_MB (bench/watch_heap_program.js, one process per
#     major, built once, measured every round): `core --pid PID heapsnapshot -o F` and `core --pid
#     PID objects`, nodescope's wall time and CPU (user + system) in seconds.
# Prints per measure and major the median and range over the rounds, and each major's ratio of
# medians to the first major's (26/24 by default). Not a test; on a shared or small machine keep
# the sizes modest and read the spreads (the issue's size is SIZE_MB=1024).
#   [ROUNDS=3] [SIZE_MB=256] [WINDOW=4] [ATTACHES=10] bench/majors.sh [MAJOR...]
# KEEP_RESULTS=FILE keeps every round's figures ("measure major value" lines); RESULTS=FILE prints
# the summary of such a file again, measuring nothing.
# NODESCOPE=path: the build measured (default build/nodescope); majors are tests/.cache/node/M.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=${NODESCOPE:-$ROOT/build/nodescope}
ROUNDS=${ROUNDS:-3} SIZE_MB=${SIZE_MB:-256} WINDOW=${WINDOW:-4} ATTACHES=${ATTACHES:-10}
MAJORS=("${@:-24}")
[ $# -gt 0 ] || MAJORS=(24 26)
W=$(mktemp -d /tmp/nodescope-majors.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done; rm -rf "$W"' EXIT
summary() {   # the results file: median and range per measure and major; ratios of medians to the first major's
    awk -v first="${MAJORS[0]}" -v majors="${MAJORS[*]}" '
    { v[$1, $2, ++n[$1, $2]] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
    function med(key, m,    c, i, j, t, a) {
        c = n[key, m]; for (i = 1; i <= c; i++) a[i] = v[key, m, i]
        for (i = 2; i <= c; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        lo = a[1]; hi = a[c]; return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2 }
    END {
        nm = split(majors, M, " ")
        for (i = 1; i <= k; i++) {
            key = order[i]; line = sprintf("%-20s", key); base = med(key, first)
            for (j = 1; j <= nm; j++) {
                md = med(key, M[j])
                line = line sprintf("  %s: %.3g [%.3g..%.3g]", M[j], md, lo, hi)
                if (j > 1) line = line sprintf(" (%s/%s %.2f)", M[j], first, base > 0 ? md / base : 0)
            }
            print line
        }
    }' "$1"
}
if [ -n "${RESULTS:-}" ]; then summary "$RESULTS"; exit; fi
for m in "${MAJORS[@]}"; do
    [ -x "$ROOT/tests/.cache/node/$m/bin/node" ] || { echo "no Node $m (scripts/setup.sh)" >&2; exit 1; }
done
echo "nodescope $("$NS" --version | cut -d' ' -f2); majors ${MAJORS[*]}; $ROUNDS rounds; heap $SIZE_MB MB; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# one heap per major, built once
for m in "${MAJORS[@]}"; do
    "$ROOT/tests/.cache/node/$m/bin/node" --max-old-space-size=8000 "$ROOT/bench/watch_heap_program.js" "$W/pid.$m" "$SIZE_MB" > /dev/null 2>&1 &
    pids+=($!)
done
for m in "${MAJORS[@]}"; do
    for _ in $(seq 600); do [ -s "$W/pid.$m" ] && break; sleep 0.2; done
    [ -s "$W/pid.$m" ] || { echo "Node $m: the heap was not built" >&2; exit 1; }
done

# measure MAJOR ROUND: one line per figure into $W/results: "measure major value"
measure() {
    local m=$1 node=$ROOT/tests/.cache/node/$1/bin/node pid
    pid=$(cat "$W/pid.$m")
    NODE=$node MODES=live99 node "$ROOT/bench/live_sample_cost.mjs" 1 "$WINDOW" 2> /dev/null |
        awk -v m="$m" '/^live99/ { for (i = 1; i < NF; i++) if ($(i + 1) == "us") print "sample_us", m, $i }' >> "$W/results"
    NODE=$node NODESCOPE=$NS "$ROOT/bench/live_attach.sh" "$ATTACHES" 2> /dev/null |
        awk -v m="$m" '/^new / { for (i = 1; i < NF; i++) if ($i == "median") print "attach_stop_ms", m, $(i + 1) }' >> "$W/results"
    rm -f "$W/snap.heapsnapshot"
    /usr/bin/time -f "%e %U %S" -o "$W/t" "$NS" core --pid "$pid" heapsnapshot -o "$W/snap.heapsnapshot" > /dev/null 2>&1 ||
        echo "Node $m: heapsnapshot failed" >&2
    awk -v m="$m" '{ print "heapsnapshot_wall_s", m, $1; print "heapsnapshot_cpu_s", m, $2 + $3 }' "$W/t" >> "$W/results"
    /usr/bin/time -f "%e %U %S" -o "$W/t" "$NS" core --pid "$pid" objects > /dev/null 2>&1 || echo "Node $m: objects failed" >&2
    awk -v m="$m" '{ print "census_wall_s", m, $1; print "census_cpu_s", m, $2 + $3 }' "$W/t" >> "$W/results"
}
: > "$W/results"
for r in $(seq "$ROUNDS"); do
    order=("${MAJORS[@]}")
    [ $((r % 2)) = 0 ] && order=($(printf '%s\n' "${MAJORS[@]}" | tac))
    for m in "${order[@]}"; do measure "$m"; done
    echo "round $r/$ROUNDS (${order[*]}) done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
cp "$W/results" "${KEEP_RESULTS:-/dev/null}" 2> /dev/null
summary "$W/results"
