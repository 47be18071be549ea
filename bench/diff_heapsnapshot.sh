#!/bin/bash
# core A diff-objects B on two V8 .heapsnapshot files against what people do without it: load
# both with JSON.parse in node and count the objects by constructor (the least a script, memlab
# or DevTools' comparison view does). The program (N objects, default 1,000,000, then N/10 more)
# writes both snapshots (Node 20); then ROUNDS (3) pairs, alternating: wall time, CPU and peak
# RSS of each, medians, and the ratios.
#   [N=1000000] [ROUNDS=3] bench/diff_heapsnapshot.sh
set -u
cd "$(dirname "$0")/.."
NS=${NODESCOPE:-build/nodescope}
NODE=${NODE:-tests/.cache/node/20/bin/node}
N=${N:-1000000}
tmp=$(mktemp -d /tmp/diff-hs-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/prog.js" << 'JS'
const v8 = require('v8');
class Rec { constructor(i) { this.i = i; this.s = 'r' + i; } }
const keep = globalThis.keep = [], n = +process.argv[2];
for (let i = 0; i < n; i++) keep.push(new Rec(i));
v8.writeHeapSnapshot(process.argv[3]);
for (let i = 0; i < n / 10; i++) keep.push(new Rec(i));
v8.writeHeapSnapshot(process.argv[4]);
JS
cat > "$tmp/parse.js" << 'JS'
const fs = require('fs');
for (const f of process.argv.slice(2)) {
  const s = JSON.parse(fs.readFileSync(f, 'utf8')), nf = s.snapshot.meta.node_fields.length, m = new Map();
  for (let k = 0; k < s.nodes.length; k += nf) if (s.nodes[k] === 3) m.set(s.strings[s.nodes[k + 1]], (m.get(s.strings[s.nodes[k + 1]]) || 0) + 1);
}
JS
"$NODE" "$tmp/prog.js" "$N" "$tmp/a.heapsnapshot" "$tmp/b.heapsnapshot" || exit 1
echo "snapshots: $(stat -c %s "$tmp/a.heapsnapshot" "$tmp/b.heapsnapshot" | awk '{ printf "%.0f MB ", $1 / 1e6 }')"
for r in $(seq "${ROUNDS:-3}"); do
    /usr/bin/time -f "ns %e %U %S %M" "$NS" core "$tmp/a.heapsnapshot" diff-objects -n 1 "$tmp/b.heapsnapshot" > /dev/null 2>> "$tmp/times" || exit 1
    /usr/bin/time -f "js %e %U %S %M" "$NODE" --max-old-space-size=8000 "$tmp/parse.js" "$tmp/a.heapsnapshot" "$tmp/b.heapsnapshot" 2>> "$tmp/times" || exit 1
done
node -e '
    const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(l => l.split(" "));
    const med = a => { a = a.slice().sort((x, y) => x - y); const m = a.length >> 1; return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2; };
    const of = (who) => { const r = rows.filter(x => x[0] === who);
        return { wall: med(r.map(x => +x[1])), cpu: med(r.map(x => +x[2] + +x[3])), rss: med(r.map(x => +x[4] / 1024)),
                 lo: Math.min(...r.map(x => +x[1])), hi: Math.max(...r.map(x => +x[1])) }; };
    const ns = of("ns"), js = of("js");
    for (const [n, x] of [["nodescope diff-objects", ns], ["node JSON.parse + count", js]])
        console.log(`${n.padEnd(24)} wall ${x.wall.toFixed(2)} s [${x.lo.toFixed(2)}-${x.hi.toFixed(2)}], CPU ${x.cpu.toFixed(2)} s, peak RSS ${x.rss.toFixed(0)} MB`);
    console.log(`ratio (node / nodescope): wall ${(js.wall / ns.wall).toFixed(2)}, CPU ${(js.cpu / ns.cpu).toFixed(2)}, RSS ${(js.rss / ns.rss).toFixed(1)}`);
' "$tmp/times"
