#!/usr/bin/env bash
# Read a ~100 MB .cpuprofile (and a ~10 MB one for speedscope): nodescope (to folded stacks) vs the JavaScript tools people
# use today, measured in the same run:
#  - speedscope's own importer (its npm build in headless Debian chromium, the profile
#    fetched over local HTTP; timed until the imported profile is shown; peak RSS of the
#    renderer). Skipped when chromium or tests/node_modules is missing.
#  - a minimal node baseline (JSON.parse of the whole file + folding the tree: the least
#    any JS importer does).
# The profile is a real `node --cpu-prof` one scaled up: its tree copied K times
# under the root (new ids) and its samples repeated over the copies.
# Prints wall time, peak RSS and the time ratio. Not run by the tests.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NODESCOPE=${NODESCOPE:-$ROOT/build/nodescope}
NODE=${NODE:-$ROOT/tests/.cache/node/22/bin/node}
[ -x "$NODE" ] || NODE=node
TARGET_MB=${TARGET_MB:-100}
W=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT
cd "$W"
"$NODE" --cpu-prof --cpu-prof-name=seed.cpuprofile "$ROOT/tests/fixtures/cpuprofile/workload.js" 1500 > /dev/null
cat > scale.js <<'JS'
// scale.js MB OUT: the seed profile's tree copied K times under the root, samples repeated
const fs = require("fs");
const p = JSON.parse(fs.readFileSync("seed.cpuprofile", "utf8"));
const target = Number(process.argv[2]) * 1e6, seedSize = fs.statSync("seed.cpuprofile").size;
const K = Math.max(1, Math.ceil(target / seedSize));
const maxId = Math.max(...p.nodes.map((n) => n.id));
const root = p.nodes.find((n) => n.callFrame.functionName === "(root)");
const out = fs.openSync(process.argv[3], "w");
fs.writeSync(out, "{\"nodes\":[");
const rootCopy = { ...root, children: [] };
for (let k = 0; k < K; k++) for (const c of root.children) rootCopy.children.push(c + k * maxId);
fs.writeSync(out, JSON.stringify(rootCopy));
for (let k = 0; k < K; k++)
  for (const n of p.nodes) {
    if (n === root) continue;
    const m = { ...n, id: n.id + k * maxId, callFrame: { ...n.callFrame, functionName: n.callFrame.functionName + (k % 50 ? "" : "_" + k) } };
    if (n.children) m.children = n.children.map((c) => c + k * maxId);
    fs.writeSync(out, "," + JSON.stringify(m));
  }
const samples = [], deltas = [];
for (let k = 0; k < K; k++) for (let i = 0; i < p.samples.length; i++) {
  samples.push(p.samples[i] === root.id ? root.id : p.samples[i] + k * maxId);
  deltas.push(p.timeDeltas[i]);
}
fs.writeSync(out, "],\"startTime\":" + p.startTime + ",\"endTime\":" + (p.startTime + deltas.reduce((a, b) => a + b, 0)) +
  ",\"samples\":[" + samples.join(",") + "],\"timeDeltas\":[" + deltas.join(",") + "]}");
fs.closeSync(out);
JS
"$NODE" scale.js "$TARGET_MB" big.cpuprofile
size=$(stat -c %s big.cpuprofile)
cat > fold.js <<'JS'
const fs = require("fs");
const p = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const byId = new Map(), parent = new Map();
for (const n of p.nodes) { byId.set(n.id, n); for (const c of n.children || []) parent.set(c, n.id); }
const label = (n) => n.callFrame.functionName + (n.callFrame.url ? " " + n.callFrame.url + ":" + (n.callFrame.lineNumber + 1) + ":" + (n.callFrame.columnNumber + 1) : "");
const stackOf = new Map(), counts = new Map();
for (const s of p.samples) {
  let st = stackOf.get(s);
  if (st === undefined) {
    const parts = [];
    for (let id = s; parent.has(id); id = parent.get(id)) parts.push(label(byId.get(id)));
    st = parts.reverse().join(";");
    stackOf.set(s, st);
  }
  counts.set(st, (counts.get(st) || 0) + 1);
}
const out = [];
for (const [k, v] of counts) out.push(k + " " + v);
fs.writeFileSync(process.argv[3], out.join("\n") + "\n");
JS
measure() {   # prints "seconds maxrss_kb"
    /usr/bin/time -f '%e %M' -o t.txt "$@" > /dev/null 2> /dev/null
    cat t.txt
}
read -r ns_t ns_m < <(measure "$NODESCOPE" convert big.cpuprofile -o ns.folded)
read -r js_t js_m < <(measure "$NODE" --max-old-space-size=8192 fold.js big.cpuprofile js.folded)
a=$(awk '{s += $NF} END {print s}' ns.folded); b=$(awk '{s += $NF} END {print s}' js.folded)
[ "$a" = "$b" ] || echo "warning: sample totals differ: nodescope $a, node $b"
printf 'input: %.1f MB .cpuprofile, %s samples\n' "$(echo "$size / 1000000" | bc -l)" "$a"
printf 'nodescope convert -> folded: %6.2f s  peak %5d MB\n' "$ns_t" $((ns_m / 1024))
printf 'node JSON.parse + fold:      %6.2f s  peak %5d MB\n' "$js_t" $((js_m / 1024))
printf 'time ratio (node / nodescope): %.1fx   memory ratio: %.1fx\n' "$(echo "$js_t / $ns_t" | bc -l)" "$(echo "$js_m / $ns_m" | bc -l)"
# speedscope's renderer crashes (out of memory) on ~47 MB profiles here, so it gets its own,
# smaller profile (SPEEDSCOPE_MB), and nodescope is timed again on that one
SPEEDSCOPE_MB=${SPEEDSCOPE_MB:-10}
if [ -x /usr/bin/chromium ] && [ -d "$ROOT/tests/node_modules/speedscope" ]; then
    "$NODE" scale.js "$SPEEDSCOPE_MB" small.cpuprofile
    read -r nss_t nss_m < <(measure "$NODESCOPE" convert small.cpuprofile -o small.folded)
    printf '\ninput: %.1f MB .cpuprofile\n' "$(echo "$(stat -c %s small.cpuprofile) / 1000000" | bc -l)"
    printf 'nodescope convert -> folded:  %6.2f s  peak %5d MB\n' "$nss_t" $((nss_m / 1024))
    if read -r ss_t ss_m < <("$NODE" "$ROOT/bench/speedscope_import.mjs" small.cpuprofile 2>"$W/ss.err"); then
        printf 'speedscope import (chromium): %6.2f s  peak %5d MB (renderer)\n' "$ss_t" $((ss_m / 1024))
        printf 'time ratio (speedscope / nodescope): %.1fx   memory ratio: %.1fx\n' "$(echo "$ss_t / $nss_t" | bc -l)" "$(echo "$ss_m / $nss_m" | bc -l)"
    else
        echo "speedscope import failed: $(grep -m1 -i 'error\|crash' "$W/ss.err")"
    fi
else
    echo "speedscope: skipped (needs /usr/bin/chromium and 'npm ci' in tests/)"
fi
