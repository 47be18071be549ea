#!/usr/bin/env bash
# Benchmark: nodescope collapse vs stackcollapse-perf.pl vs node-stackvis on perf
# scripts of real Node workloads, in the same run:
#   busy  a 200+ MB perf script of examples/busy.js: few, shallow unique stacks
#   tsc   the TypeScript compiler checking a generated 240-module project at 999 Hz:
#         deep (~45 frames a sample, up to 130) and varied (thousands of unique stacks)
#   bench/collapse.sh [busy|tsc]...   (default both; inputs are cached in bench/.cache)
# Comparison tools are fetched at run time into bench/.cache (never committed):
#   FlameGraph: $FLAMEGRAPH_DIR, else the local mirror the fetch tool made;
#   stackvis:   npm install stackvis.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE=$ROOT/bench/.cache
mkdir -p "$CACHE"
NS=$ROOT/build/nodescope
[ -x "$NS" ] || make -j2 >/dev/null

# 1. The inputs.
record_busy() {
    local out=$1 tmp
    echo "recording a Node workload (about 15 s)..." >&2
    tmp=$(mktemp -d)
    (cd "$tmp" && perf record -q -g -F 9999 -o perf.data -- node --perf-basic-prof "$ROOT/examples/busy.js" 12 >/dev/null 2>&1)
    perf script -i "$tmp/perf.data" > "$out" 2>/dev/null
    rm -rf "$tmp"
    keep_map "$out" "$CACHE/perf-busy.map"
}
# The program's perf map goes beside its perf script (resolution uses it), not left in /tmp.
keep_map() {
    local pid; pid=$(awk 'NF && $1 !~ /^[0-9a-f]+$/ {print $2; exit}' "$1")
    pid=${pid%%/*}
    mv "/tmp/perf-$pid.map" "$2" 2>/dev/null || true
}
record_tsc() {
    local out=$1 dir=$CACHE/tsc
    echo "recording tsc on a generated project (about 10-30 s)..." >&2
    mkdir -p "$dir"
    [ -x "$dir/node_modules/.bin/tsc" ] || (cd "$dir" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund typescript@5 >/dev/null 2>&1)
    [ -d "$dir/proj" ] || node "$ROOT/bench/gen_ts_project.js" "$dir/proj" 240
    (cd "$dir" && perf record -q -g -k CLOCK_MONOTONIC -F 999 -o perf.data -- node --perf-basic-prof \
        --interpreted-frames-native-stack node_modules/typescript/bin/tsc -p proj >/dev/null 2>&1 || true)
    perf script -i "$dir/perf.data" > "$out" 2>/dev/null
    rm -f "$dir/perf.data"
    keep_map "$out" "$CACHE/perf-tsc.map"
}
INPUTS=${*:-busy tsc}

# 2. The comparison tools.
FG=${FLAMEGRAPH_DIR:-$CACHE/FlameGraph}
if [ ! -f "$FG/stackcollapse-perf.pl" ]; then
    { m=/work/.mirror/brendangregg+FlameGraph/repo; [ -d "$m" ] && mkdir -p "$FG" && git -C "$m" archive HEAD | tar -x -C "$FG"; } ||
        echo "FlameGraph not found: set FLAMEGRAPH_DIR to a checkout of Brendan Gregg's FlameGraph" >&2
fi
STACKVIS=$CACHE/node_modules/.bin/stackvis
[ -x "$STACKVIS" ] || (cd "$CACHE" && npm install --silent --no-audit --no-fund stackvis >/dev/null 2>&1) || true

for which in $INPUTS; do
INPUT=$CACHE/perf-$which.txt
case $which in
    busy) [ -s "$INPUT" ] && [ "$(stat -c %s "$INPUT")" -ge 200000000 ] || record_busy "$INPUT" ;;
    tsc)  [ -s "$INPUT" ] || record_tsc "$INPUT" ;;
    *) echo "unknown input '$which' (busy, tsc)" >&2; exit 2 ;;
esac
SIZE=$(stat -c %s "$INPUT")
MB=$(awk -v s="$SIZE" 'BEGIN{printf "%.1f", s/1e6}')
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; ratios below are measured in this same run)"
echo "== $which: $INPUT, $MB MB, $(awk 'NF==0{n++} END{print n+0}' "$INPUT") samples, $(awk 'NF==0{if(d>m)m=d; t+=d; n++; d=0; next} /^[ \t]/{d++} END{printf "%.0f frames a sample on average, up to %d", t/n, m}' "$INPUT")"
# 3. Time each in one run: wall seconds, MB/s, peak RSS, CPU seconds (user + system).
run() {  # name, command...   (runs taking under 2 s are repeated: best of 3, the machine is shared)
    local name=$1; shift
    local t0 t1 log=$CACHE/time-$name.txt best="" a b cpu=0
    for try in 1 2 3; do
        a=$(date +%s.%N)
        /usr/bin/time -v "$@" < "$INPUT" > "$CACHE/out-$name.folded" 2> "$log" || { echo "$name: failed ($(tail -n 3 "$log"))"; return 1; }
        b=$(date +%s.%N)
        if [ -z "$best" ] || awk -v x="$b" -v y="$a" -v z="$best" 'BEGIN{exit !(x-y < z)}'; then
            best=$(awk -v x="$b" -v y="$a" 'BEGIN{print x-y}'); t0=$a; t1=$b
            cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$log")
        fi
        awk -v x="$best" 'BEGIN{exit !(x >= 2)}' && break
    done
    local rss; rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$log")
    awk -v n="$name" -v a="$t0" -v b="$t1" -v mb="$MB" -v rss="$rss" -v cpu="$cpu" \
        'BEGIN{s=b-a; printf "%-22s %8.2f s %9.1f MB/s   peak RSS %8.1f MB   CPU %6.2f s\n", n, s, mb/s, rss/1024, cpu}'
    echo "$t0 $t1" > "$CACHE/wall-$name"
    echo "$cpu" > "$CACHE/cpu-$name"
}
secs() { awk '{print $2-$1}' "$CACHE/wall-$1"; }

MAP=$CACHE/perf-$which.map
if [ -s "$MAP" ]; then run nodescope "$NS" collapse --perf-map "$MAP" -; else run nodescope "$NS" collapse -; fi
# without re-resolving JIT frames against /tmp/perf-PID.map (perf's own labels, as the Perl script uses)
if "$NS" collapse --help | grep -q -- --no-resolve; then run nodescope-no-resolve "$NS" collapse --no-resolve -; fi
# without the source-map stage (it reads each JS file the frames name, looking for a map; the Perl script has none)
if [ -s "$MAP" ] && "$NS" collapse --help | grep -q -- --no-source-maps; then
    run nodescope-no-source-maps "$NS" collapse --no-source-maps --perf-map "$MAP" -
fi
NODESCOPE_PERF_THREADS=1 run nodescope-1-thread "$NS" collapse --no-resolve -
have_pl=0; have_sv=0
if [ -f "$FG/stackcollapse-perf.pl" ]; then run stackcollapse-perf.pl perl "$FG/stackcollapse-perf.pl" && have_pl=1; else echo "stackcollapse-perf.pl: not available"; fi
if [ -x "$STACKVIS" ]; then run stackvis "$STACKVIS" perf collapsed && have_sv=1; else echo "stackvis: not available"; fi

for v in nodescope nodescope-no-source-maps nodescope-no-resolve nodescope-1-thread; do
    [ -f "$CACHE/wall-$v" ] || continue
    ns=$(secs $v)
    # on a shared machine wall time swings with other jobs; CPU time (user + system) less so
    [ $have_pl = 1 ] && awk -v v=$v -v a="$(secs stackcollapse-perf.pl)" -v b="$ns" -v ca="$(cat "$CACHE/cpu-stackcollapse-perf.pl")" \
        -v cb="$(cat "$CACHE/cpu-$v")" 'BEGIN{printf "%s vs stackcollapse-perf.pl: %.1fx faster (%.1fx less CPU time)\n", v, a/b, (cb > 0 ? ca/cb : 0)}'
    [ $have_sv = 1 ] && awk -v v=$v -v a="$(secs stackvis)" -v b="$ns" 'BEGIN{printf "%s vs stackvis: %.1fx faster\n", v, a/b}'
done
if [ $have_pl = 1 ]; then
    # compared as the Perl script roots stacks: one root per comm (--threads merge), perf's own labels
    "$NS" collapse --no-resolve --threads merge "$INPUT" > "$CACHE/out-nodescope-merged.folded" 2>/dev/null
    if cmp -s "$CACHE/out-nodescope-merged.folded" "$CACHE/out-stackcollapse-perf.pl.folded"; then echo "output (--threads merge --no-resolve): identical to stackcollapse-perf.pl"
    else echo "output (--threads merge --no-resolve): $(diff "$CACHE/out-nodescope-merged.folded" "$CACHE/out-stackcollapse-perf.pl.folded" | grep -c '^<') of $(wc -l < "$CACHE/out-nodescope-merged.folded") lines differ from stackcollapse-perf.pl (documented differences)"; fi
fi
done
