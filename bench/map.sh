#!/usr/bin/env bash
# Benchmark: `nodescope map tidy` against the approach of the seed gist's
# symbols.js (compare every entry with every earlier one, O(N^2)), written out
# below in the gist's style, on synthetic perf maps with heavy address reuse.
# Prints seconds and ratios. Not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
NS=${NODESCOPE:-build/nodescope}
W=bench/.cache/map; mkdir -p "$W"
gen() {  # N entries reusing a 64 MB code space
  node -e '
    const n = +process.argv[1]; let s = 1, out = [];
    const r = () => (s = (s * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < n; i++) out.push((0x7f0000000000 + (r() % (64 << 20))).toString(16) + " " + (16 + r() % 4000).toString(16) + " JS:*fn" + i + " /app/x.js:" + i + ":1");
    require("fs").writeFileSync(process.argv[2], out.join("\n") + "\n");' "$1" "$2"
}
cat > "$W/gist-tidy.js" <<'JS'
// The seed gist's tidy: mark every entry that intersects a later one, O(N^2).
const fs = require('fs');
const entries = fs.readFileSync(process.argv[2], 'utf8').split(/\r?\n/).filter(Boolean).map((line) => {
  const c = line.split(' ');
  return { start: parseInt(c[0], 16), size: parseInt(c[1], 16), name: c.slice(2).join(' ') };
});
const intersect = (a, b) => (a.start > b.start ? intersect(b, a) : a.start + a.size > b.start);
const outdated = new WeakSet();
entries.forEach((entry, i) => { for (let j = 0; j < i; j++) if (intersect(entry, entries[j])) outdated.add(entries[j]); });
const fresh = entries.filter((e) => !outdated.has(e));
fs.writeFileSync(process.argv[3], fresh.map((e) => `${e.start.toString(16)} ${e.size.toString(16)} ${e.name}`).join('\n'));
JS
t() { local s; s=$(date +%s.%N); "$@" > /dev/null; echo "$(date +%s.%N) - $s" | bc; }
printf '%-10s %12s %12s %10s\n' entries nodescope_s gist_js_s ratio
for n in 10000 30000; do
  gen $n "$W/m$n.map"
  a=$(t "$NS" map tidy "$W/m$n.map" -o "$W/ns$n.map")
  b=$(t node "$W/gist-tidy.js" "$W/m$n.map" "$W/gist$n.map")
  [ "$(sort "$W/ns$n.map" | md5sum)" = "$(sort "$W/gist$n.map" | md5sum)" ] || echo "  (outputs differ!)"
  printf '%-10s %12.3f %12.3f %9.0fx\n' $n "$a" "$b" "$(echo "$b / $a" | bc -l)"
done
n=1000000
gen $n "$W/m$n.map"
a=$(t "$NS" map tidy "$W/m$n.map" -o "$W/ns$n.map")
printf '%-10s %12.3f %12s  (gist: O(N^2), about %.0f s extrapolated)\n' $n "$a" - "$(echo "$b * ($n / 30000)^2" | bc -l)"
