#!/usr/bin/env bash
# Benchmark: nodescope collapse vs stackcollapse-perf.pl vs node-stackvis on perf
# scripts of real Node workloads, in the same run:
#   busy  a 200+ MB perf script of examples/busy.js: few, shallow unique stacks
#   tsc   the TypeScript compiler checking a generated 240-module project at 999 Hz:
#         deep (~45 frames a sample, up to 130) and varied (thousands of unique stacks)
#   tsc-big the same on a 1200-module project (~150 MB; fixed start-up costs matter less)
#   bench/collapse.sh [busy|tsc|tsc-big]...   (default busy tsc; inputs are cached in bench/.cache)
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
record_tsc() {   # output, modules (240: tsc; 1200: tsc-big, ~150 MB), map name
    local out=$1 n=${2:-240} map=${3:-perf-tsc.map} dir=$CACHE/tsc proj=proj
    [ "$n" = 240 ] || proj=proj$n
    echo "recording tsc on a generated project of $n modules (about 10-60 s)..." >&2
    mkdir -p "$dir"
    [ -x "$dir/node_modules/.bin/tsc" ] || (cd "$dir" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund typescript@5 >/dev/null 2>&1)
    [ -d "$dir/$proj" ] || node "$ROOT/bench/gen_ts_project.js" "$dir/$proj" "$n"
    (cd "$dir" && perf record -q -g -k CLOCK_MONOTONIC -F 999 -o perf.data -- node --perf-basic-prof \
        --interpreted-frames-native-stack node_modules/typescript/bin/tsc -p "$proj" >/dev/null 2>&1 || true)
    perf script -i "$dir/perf.data" > "$out" 2>/dev/null
    rm -f "$dir/perf.data" "$dir"/isolate-*.log
    keep_map "$out" "$CACHE/$map"
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
    tsc-big) [ -s "$INPUT" ] || record_tsc "$INPUT" 1200 perf-tsc-big.map ;;
    *) echo "unknown input '$which' (busy, tsc, tsc-big)" >&2; exit 2 ;;
esac
SIZE=$(stat -c %s "$INPUT")
MB=$(awk -v s="$SIZE" 'BEGIN{printf "%.1f", s/1e6}')
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; ratios below are measured in this same run)"
echo "== $which: $INPUT, $MB MB, $(awk 'NF==0{n++} END{print n+0}' "$INPUT") samples, $(awk 'NF==0{if(d>m)m=d; t+=d; n++; d=0; next} /^[ \t]/{d++} END{printf "%.0f frames a sample on average, up to %d", t/n, m}' "$INPUT")"
# 3. Time each in one run, in rounds: every tool once per round, in turn, so a change of the
#    machine's speed during the run (this VM's vCPUs move between two speeds ~1.6x apart) hits
#    every tool alike. RUNS rounds (5); best and median of wall and CPU seconds (user + system,
#    every thread), MB/s from the best wall time, peak RSS (the largest of the runs). The output
#    file is removed and the page cache written back (sync) before each run, outside the timing:
#    no tool is charged for the kernel freeing or writing back the previous run's output.
RUNS=${RUNS:-5}
once() {  # name, command...: one timed run, appended to runs-NAME.txt
    local name=$1; shift
    local log=$CACHE/time-$name.txt out=$CACHE/out-$name.folded
    local TIMEFORMAT='%3R %3U %3S'
    rm -f "$out"
    sync   # the previous run's output written back now, not during this run
    { time /usr/bin/time -f '%M' -o "$log" "$@" < "$INPUT" > "$out" 2> "$CACHE/err-$name.txt"; } 2> "$CACHE/t-$name.txt" ||
        { echo "$name: failed ($(tail -n 3 "$CACHE/err-$name.txt"))"; return 1; }
    echo "$(cat "$CACHE/t-$name.txt") $(tail -n 1 "$log")" >> "$CACHE/runs-$name.txt"
    rm -f "$CACHE/t-$name.txt"
}
summary() {  # name: columns wall user sys rss_kb -> best/median wall, best/median cpu, max rss
    local name=$1; local rows=$CACHE/runs-$name.txt
    [ -s "$rows" ] || return 0
    sort -n -k1,1 "$rows" | awk '{w[NR]=$1} END{print w[1], w[int((NR+1)/2)]}' > "$CACHE/wall-$name"
    awk '{print $2+$3}' "$rows" | sort -n | awk '{c[NR]=$1} END{print c[1], c[int((NR+1)/2)]}' > "$CACHE/cpu-$name"
    local rss n; rss=$(sort -n -k4,4 "$rows" | tail -n 1 | awk '{print $4}'); n=$(wc -l < "$rows")
    read -r wb wm < "$CACHE/wall-$name"; read -r cb cm < "$CACHE/cpu-$name"
    awk -v n="$name" -v wb="$wb" -v wm="$wm" -v cb="$cb" -v cm="$cm" -v mb="$MB" -v rss="$rss" -v r="$n" \
        'BEGIN{printf "%-26s wall %7.3f s best %7.3f median   CPU %7.3f s best %7.3f median   %7.1f MB/s   peak RSS %6.1f MB  (%d runs)\n", n, wb, wm, cb, cm, mb/wb, rss/1024, r}'
}
ratio() {  # name, reference: "Nx wall, Nx CPU" best against best and median against median
    read -r wb wm < "$CACHE/wall-$1"; read -r cb cm < "$CACHE/cpu-$1"
    read -r rwb rwm < "$CACHE/wall-$2"; read -r rcb rcm < "$CACHE/cpu-$2"
    awk -v v="$1" -v r="$2" -v wb="$wb" -v wm="$wm" -v cb="$cb" -v cm="$cm" -v rwb="$rwb" -v rwm="$rwm" -v rcb="$rcb" -v rcm="$rcm" \
        'function q(a, b) { return b > 0 ? sprintf("%.1fx", a / b) : "-" }
         BEGIN{printf "%s vs %s: wall %s best, %s median; CPU %s best, %s median\n", v, r, q(rwb, wb), q(rwm, wm), q(rcb, cb), q(rcm, cm)}'
}

MAP=$CACHE/perf-$which.map
MAPOPT=(); [ -s "$MAP" ] && MAPOPT=(--perf-map "$MAP")
rm -f "$CACHE"/wall-* "$CACHE"/cpu-* "$CACHE"/runs-*
have_pl=0; have_sv=0
[ -f "$FG/stackcollapse-perf.pl" ] && have_pl=1 || echo "stackcollapse-perf.pl: not available"
[ -x "$STACKVIS" ] && have_sv=1 || echo "stackvis: not available"
# one run of tool K (0-4)
tool() {
    case $1 in
    0) once nodescope "$NS" collapse "${MAPOPT[@]}" - || exit 1 ;;
    # without re-resolving JIT frames against /tmp/perf-PID.map (perf's own labels, as the Perl script uses)
    1) once nodescope-no-resolve "$NS" collapse --no-resolve - ;;
    # without the source-map stage (it reads each JS file the frames name, looking for a map; the Perl script has none)
    2) if [ -s "$MAP" ]; then once nodescope-no-source-maps "$NS" collapse --no-source-maps "${MAPOPT[@]}" -; fi ;;
    # one thread (the second core's share: see docs/performance.md)
    3) NODESCOPE_PERF_THREADS=1 once nodescope-1-thread "$NS" collapse "${MAPOPT[@]}" - ;;
    4) if [ $have_pl = 1 ]; then once stackcollapse-perf.pl perl "$FG/stackcollapse-perf.pl" || have_pl=0; fi ;;
    esac
}
# The order turns by one each round, so no tool always runs first or right after the Perl script.
for round in $(seq "$RUNS"); do
    for k in 0 1 2 3 4; do tool $(( (k + round) % 5 )); done
    # stackvis is slow and its figure is for scale only: the first round
    if [ $have_sv = 1 ] && [ "$round" = 1 ]; then once stackvis "$STACKVIS" perf collapsed || have_sv=0; fi
done
for v in nodescope nodescope-no-resolve nodescope-no-source-maps nodescope-1-thread stackcollapse-perf.pl stackvis; do summary "$v"; done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

for v in nodescope nodescope-no-source-maps nodescope-no-resolve nodescope-1-thread; do
    [ -f "$CACHE/wall-$v" ] || continue
    # on a shared machine wall time swings with other jobs; CPU time (user + system) less so
    [ $have_pl = 1 ] && ratio "$v" stackcollapse-perf.pl
    [ $have_sv = 1 ] && ratio "$v" stackvis
done
if [ $have_pl = 1 ]; then
    # compared as the Perl script roots stacks: one root per comm (--threads merge), perf's own labels
    "$NS" collapse --no-resolve --threads merge "$INPUT" > "$CACHE/out-nodescope-merged.folded" 2>/dev/null
    if cmp -s "$CACHE/out-nodescope-merged.folded" "$CACHE/out-stackcollapse-perf.pl.folded"; then echo "output (--threads merge --no-resolve): identical to stackcollapse-perf.pl"
    else echo "output (--threads merge --no-resolve): $(diff "$CACHE/out-nodescope-merged.folded" "$CACHE/out-stackcollapse-perf.pl.folded" | grep -c '^<') of $(wc -l < "$CACHE/out-nodescope-merged.folded") lines differ from stackcollapse-perf.pl (documented differences)"; fi
fi
done
