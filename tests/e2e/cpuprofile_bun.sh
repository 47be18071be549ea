#!/usr/bin/env bash
# Bun before oven-sh/bun#29241 keyed nodes on the sampled line. Build such a
# profile from a real `node --cpu-prof` one (every node with positionTicks split
# into one node per sampled line, children under the first, samples moved to the
# split of their line, no positionTicks left) and check nodescope repairs it: the
# same node count as the original after merging, and the same self and total per
# function (name + url).
set -euo pipefail
cd "$TEST_TMP"
ROOT=$OLDPWD
node_bin=$ROOT/tests/.cache/node/22/bin/node
[ -x "$node_bin" ] || node_bin=$ROOT/tests/.cache/node/20/bin/node
[ -x "$node_bin" ] || { echo "no Node build in tests/.cache"; exit 77; }
# functions over several lines, so samples land on several lines of each
cat > work.js <<'JS'
'use strict';
function hot(n) {
  if (n < 2) {
    let s = 0;
    for (let i = 0; i < 2000; i++) s += i * i;
    for (let i = 0; i < 2000; i++) s -= Math.sqrt(i);
    return s;
  }
  return hot(n - 1) + hot(n - 2);
}
function warm(i) {
  let s = 0;
  for (let k = 0; k < 1e5; k++) s += Math.sqrt(k + i);
  for (let k = 0; k < 1e5; k++) s -= k % 7;
  return s;
}
const end = Date.now() + 1000;
let t = 0;
while (Date.now() < end) { t += hot(13); t += warm(t); }
JS
"$node_bin" --cpu-prof --cpu-prof-name=orig.cpuprofile work.js > /dev/null

node -e '
const fs = require("fs");
const p = JSON.parse(fs.readFileSync("orig.cpuprofile", "utf8"));
let next = Math.max(...p.nodes.map((n) => n.id)) + 1;
const out = [], splitOf = new Map();   // node id -> [{line, id, left}]
for (const n of p.nodes) {
  const ticks = n.positionTicks || [];
  delete n.positionTicks;
  if (!ticks.length) { out.push(n); continue; }
  const parts = ticks.map((t, i) => {
    const m = i === 0 ? n : { id: next++, callFrame: { ...n.callFrame }, hitCount: 0, children: [] };
    m.callFrame.lineNumber = t.line - 1;
    m.callFrame.columnNumber = 4;
    m.hitCount = t.ticks;
    out.push(m);
    return { id: m.id, left: t.ticks };
  });
  splitOf.set(n.id, parts);
}
// new split nodes hang under the same parent as their first part
for (const n of out) for (const c of [...(n.children || [])]) {
  const parts = splitOf.get(c);
  if (parts) for (const x of parts.slice(1)) n.children.push(x.id);
}
p.samples = p.samples.map((s) => {
  const parts = splitOf.get(s);
  if (!parts) return s;
  const x = parts.find((q) => q.left > 0) || parts[0];
  x.left--;
  return x.id;
});
p.nodes = out;
fs.writeFileSync("bun.cpuprofile", JSON.stringify(p));
const extra = [...splitOf.values()].reduce((a, v) => a + v.length - 1, 0);
if (extra < 5) { console.error("FAIL: only " + extra + " extra nodes: the workload does not fragment"); process.exit(1); }
console.log("fragmented: " + out.length + " nodes from " + (out.length - extra));
'
"$NODESCOPE" convert -v orig.cpuprofile -o orig.folded 2> orig.err
"$NODESCOPE" convert -v bun.cpuprofile -o bun.folded 2> bun.err || { cat bun.err; exit 1; }
grep -q 'repaired a profile keyed on sampled positions' bun.err || { cat bun.err; echo "FAIL: no repair reported"; exit 1; }
! grep -q 'repaired' orig.err || { echo "FAIL: a real node profile was 'repaired'"; exit 1; }
n_orig=$(grep -o '[0-9]* after merging' orig.err | cut -d' ' -f1)
n_bun=$(grep -o '[0-9]* after merging' bun.err | cut -d' ' -f1)
# The repair can only recover functions by (name, url): two functions of one name in one
# file under the same parent (anonymous ones in node's internals, caught by sampling
# under load) become one. So the expectation is the original's call paths keyed that way.
n_want=$(node -e '
const p = JSON.parse(require("fs").readFileSync("orig.cpuprofile", "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n])), parent = new Map();
for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
const path = (n) => { const k = []; for (let x = n; x && parent.has(x.id); x = byId.get(parent.get(x.id))) k.push((x.callFrame.functionName || "(anonymous)") + " " + x.callFrame.url); return k.reverse().join(";"); };
console.log(new Set(p.nodes.filter((n) => parent.has(n.id)).map(path)).size);')
[ -n "$n_orig" ] && [ "$n_bun" = "$n_want" ] && [ "$n_orig" -ge "$n_want" ] ||
    { echo "FAIL: $n_bun nodes after repair, want $n_want (original $n_orig)"; exit 1; }
# self and total per function, labels without line:column (the repaired definition line is a guess)
per_function() {
    sed -E 's/ ([^ ;]*):[0-9]+:[0-9]+(;| )/ \1\2/g' "$1" | awk '{
        w = $NF; $NF = ""; n = split($0, f, ";"); sub(/ $/, "", f[n]); self[f[n]] += w
        delete seen; for (i = 1; i <= n; i++) { g = f[i]; sub(/ $/, "", g); if (!(g in seen)) { seen[g] = 1; total[g] += w } }
    } END { for (k in total) printf "%s\t%d\t%d\n", k, self[k], total[k] }' | sort
}
per_function orig.folded > orig.fn
per_function bun.folded > bun.fn
diff orig.fn bun.fn || { echo "FAIL: per-function self/total differ after repair"; exit 1; }
grep -q $'^hot ' orig.fn
# the repaired profile keeps per-line hits: top lists hot lines
"$NODESCOPE" top -n 1 bun.cpuprofile | grep -q 'hot lines:' || { echo "FAIL: no positionTicks after repair"; exit 1; }
echo "ok: $n_bun nodes, $(wc -l < orig.fn) functions agree"
