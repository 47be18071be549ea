#!/usr/bin/env bash
# Benchmark: nodescope flame vs flamegraph.pl vs node-stackvis on the same folded
# stacks: (1) real Node captures made by bench/collapse.sh (bench/.cache/perf-busy.txt:
# few, shallow stacks; perf-tsc.txt: the TypeScript compiler, deep and varied),
# (2) a synthetic file of 200,000 unique stacks.
# Comparison tools at run time in bench/.cache (never committed): FlameGraph from
# $FLAMEGRAPH_DIR or the local mirror the fetch tool made; npm install stackvis.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD CACHE=$ROOT/bench/.cache
mkdir -p "$CACHE"
NS=$ROOT/build/nodescope
[ -x "$NS" ] || make -j2 >/dev/null
FG=${FLAMEGRAPH_DIR:-$CACHE/FlameGraph}
if [ ! -f "$FG/flamegraph.pl" ]; then
    m=/work/.mirror/brendangregg+FlameGraph/repo
    [ -d "$m" ] && mkdir -p "$FG" && git -C "$m" archive HEAD | tar -x -C "$FG" || echo "set FLAMEGRAPH_DIR" >&2
fi
STACKVIS=$CACHE/node_modules/.bin/stackvis
[ -x "$STACKVIS" ] || (cd "$CACHE" && npm install --silent --no-audit --no-fund stackvis >/dev/null 2>&1) || true

inputs=()
if [ -s "$CACHE/perf-busy.txt" ]; then
    "$NS" collapse --no-resolve "$CACHE/perf-busy.txt" -o "$CACHE/busy.folded"
    inputs+=("$CACHE/busy.folded")
fi
# deep, varied real stacks: the tsc perf script bench/collapse.sh records (perl-compatible roots)
if [ -s "$CACHE/perf-tsc.txt" ]; then
    "$NS" collapse --no-resolve --threads merge "$CACHE/perf-tsc.txt" -o "$CACHE/tsc.folded"
    inputs+=("$CACHE/tsc.folded")
fi
if [ ! -s "$CACHE/synthetic.folded" ]; then
    node -e '
      let s = 1; const r = () => (s = (s * 1103515245 + 12345) % 2147483648);
      const out = [];
      for (let i = 0; i < 200000; i++) {
        const d = 5 + r() % 30, f = ["node", "main"];
        for (let k = 0; k < d; k++) f.push("JS:*fn" + (r() % (k < 4 ? 20 : 400)) + " /app/mod" + (r() % 50) + ".js:" + (r() % 900) + ":3");
        out.push(f.join(";") + " " + (1 + r() % 1000));
      }
      require("fs").writeFileSync(process.argv[1], out.join("\n") + "\n");' "$CACHE/synthetic.folded"
fi
inputs+=("$CACHE/synthetic.folded")

measure() {  # prints "seconds peak_kb": the best of 3 runs, so other jobs on a shared VM skew less
    local best="" t m
    for _ in 1 2 3; do
        /usr/bin/time -f '%e %M' -o "$CACHE/time.txt" "$@" > /dev/null 2>&1 || { echo "failed -"; return; }
        read -r t m < "$CACHE/time.txt"
        if [ -z "$best" ] || [ "$(echo "$t < ${best% *}" | bc)" = 1 ]; then best="$t $m"; fi
    done
    echo "$best"
}
for in in "${inputs[@]}"; do
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; ratios are measured in this same run)"
    echo "input: $in ($(wc -l < "$in") stacks, $(du -h "$in" | cut -f1))"
    read -r ns_t ns_m < <(measure "$NS" flame "$in" -o "$CACHE/ns.svg")
    printf '  %-16s %8s s  %8s KB  %s\n' nodescope "$ns_t" "$ns_m" "$(du -h "$CACHE/ns.svg" | cut -f1)"
    if [ -f "$FG/flamegraph.pl" ]; then
        read -r pl_t pl_m < <(measure sh -c "perl '$FG/flamegraph.pl' '$in' > '$CACHE/pl.svg'")
        printf '  %-16s %8s s  %8s KB  ratio %.1fx\n' flamegraph.pl "$pl_t" "$pl_m" "$(echo "$pl_t / $ns_t" | bc -l)"
    fi
    if [ -x "$STACKVIS" ]; then
        read -r sv_t sv_m < <(measure sh -c "'$STACKVIS' collapsed flamegraph-svg < '$in' > '$CACHE/sv.svg'")
        [ "$sv_t" != failed ] && printf '  %-16s %8s s  %8s KB  ratio %.1fx\n' stackvis "$sv_t" "$sv_m" "$(echo "$sv_t / $ns_t" | bc -l)"
    fi
done

# The whole pipeline users run today on a perf capture, against one nodescope command.
if [ -s "$CACHE/perf-busy.txt" ] && [ -f "$FG/flamegraph.pl" ]; then
    p=$CACHE/perf-busy.txt
    echo "pipeline on $p ($(du -h "$p" | cut -f1)):"
    read -r ns_t ns_m < <(measure "$NS" flame "$p" -o "$CACHE/ns.svg")
    printf '  %-40s %8s s  %8s KB\n' "nodescope flame perf.txt" "$ns_t" "$ns_m"
    read -r pl_t pl_m < <(measure sh -c "perl '$FG/stackcollapse-perf.pl' '$p' | perl '$FG/flamegraph.pl' > '$CACHE/pl.svg'")
    printf '  %-40s %8s s  %8s KB  ratio %.1fx\n' "stackcollapse-perf.pl | flamegraph.pl" "$pl_t" "$pl_m" "$(echo "$pl_t / $ns_t" | bc -l)"
fi
