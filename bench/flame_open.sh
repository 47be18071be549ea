#!/usr/bin/env bash
# Benchmark: how soon a huge flame graph is interactive in a browser. The same
# folded input (about 150,000 frames with --minwidth 0, Node-like stacks) drawn by
# nodescope flame and by flamegraph.pl, each SVG opened in headless Chromium at
# 1400x900 (bench/flame_open.mjs): time from navigation to the first hover
# answered, best of $RUNS (3). Prints both and the ratio.
# flamegraph.pl at run time in bench/.cache (never committed): from $FLAMEGRAPH_DIR
# or the local mirror the fetch tool made, as bench/flame.sh does.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD CACHE=$ROOT/bench/.cache
mkdir -p "$CACHE"
NS=$ROOT/build/nodescope
[ -x "$NS" ] || make -j2 build/nodescope >/dev/null
FG=${FLAMEGRAPH_DIR:-$CACHE/FlameGraph}
if [ ! -f "$FG/flamegraph.pl" ]; then
    m=/work/.mirror/brendangregg+FlameGraph/repo
    [ -d "$m" ] && mkdir -p "$FG" && git -C "$m" archive HEAD | tar -x -C "$FG" || { echo "flamegraph.pl not found: set FLAMEGRAPH_DIR" >&2; exit 1; }
fi
RUNS=${RUNS:-3}
in=$CACHE/open.folded
if [ ! -s "$in" ]; then
    node -e '
      let s = 7; const r = (n) => (s = (s * 1103515245 + 12345) % 2147483648) % n;
      const boot = "node;__libc_start_call_main;node::Start;node::NodeMainInstance::Run;node::LoadEnvironment;v8::internal::Execution::Call;Builtins_JSEntry";
      const out = [];
      for (let a = 0; a < 60; a++) for (let b = 0; b < 60; b++) for (let c = 0; c < 40; c++) {
        const deep = c % 9 === 0 ? ";v8::internal::Runtime_CompileLazy;v8::internal::Compiler::Compile(v8::internal::Isolate*, v8::internal::Handle<v8::internal::JSFunction>)" : "";
        out.push(`${boot};JS:*route${a} /app/routes/r${a}.js:1:1;JS:*handler${a}_${b} /app/h/h${a}.js:${b + 1}:3${deep};leaf${a}_${b}_${c} ${1 + r(13)}`);
      }
      require("fs").writeFileSync(process.argv[1], out.join("\n") + "\n");' "$in"
fi
"$NS" flame -q --minwidth 0 "$in" -o "$CACHE/open-ns.svg"
perl "$FG/flamegraph.pl" --minwidth 0 "$in" > "$CACHE/open-pl.svg"
frames=$(node -e 'const s = require("fs").readFileSync(process.argv[1], "utf8"); console.log(JSON.parse(/id="flame-config">([\s\S]*?)<\/script>/.exec(s)[1]).d.length)' "$CACHE/open-ns.svg")
echo "input: $in ($(wc -l < "$in") stacks, $frames frames drawn with --minwidth 0); load average $(cut -d' ' -f1 /proc/loadavg)"
printf '  %-16s %8s  %s\n' "" "SVG" "interactive (load event), best of $RUNS"
node bench/flame_open.mjs "$RUNS" "nodescope=$CACHE/open-ns.svg" "flamegraph.pl=$CACHE/open-pl.svg" | while read -r name ms load; do
    file=$CACHE/open-ns.svg; [ "$name" = nodescope ] || file=$CACHE/open-pl.svg
    printf '  %-16s %8s  %6d ms (%d ms)\n' "$name" "$(du -h "$file" | cut -f1)" "$ms" "$load"
    echo "$ms" > "$CACHE/open-$name.ms"
done
ns_ms=$(cat "$CACHE/open-nodescope.ms") pl_ms=$(cat "$CACHE/open-flamegraph.pl.ms")
printf '  ratio: flamegraph.pl / nodescope = %.1fx\n' "$(echo "$pl_ms / $ns_ms" | bc -l)"
rm -f "$CACHE/open-nodescope.ms" "$CACHE/open-flamegraph.pl.ms"
