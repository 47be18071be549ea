#!/usr/bin/env bash
# .cpuprofile from real `node --cpu-prof` on every Node major (node_majors): read, write,
# read again keeps every sample, per-function self counts, positionTicks and the
# time range; collapse/flame read it; the hot function is the one the workload
# makes hot. Corrupt profiles give clear errors or repairs with warnings.
set -euo pipefail
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$TEST_TMP"
ROOT=$OLDPWD
FIX=$ROOT/tests/fixtures/cpuprofile
majors=()
for m in $(node_majors); do [ -x "$ROOT/tests/.cache/node/$m/bin/node" ] && majors+=("$m"); done
[ ${#majors[@]} -gt 0 ] || { echo "no Node builds in tests/.cache (run scripts/setup.sh)"; exit 77; }

compare='
const fs = require("fs");
const [a, b] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
const key = (n) => [n.callFrame.functionName, n.callFrame.url, n.callFrame.lineNumber, n.callFrame.columnNumber].join("|");
function summary(p) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = {}, ticks = {};
  for (const s of p.samples) { const k = key(byId.get(s)); self[k] = (self[k] || 0) + 1; }
  for (const n of p.nodes) for (const t of n.positionTicks || []) { const k = key(n) + "@" + t.line; ticks[k] = (ticks[k] || 0) + t.ticks; }
  // the last sample is the latest timestamp: V8 now and then writes a negative delta (one sample
  // stamped before the one ahead of it), and clamping deltas at 0 would overshoot by it
  let t = p.startTime, last = t;
  for (const d of p.timeDeltas) { t += d; if (t > last) last = t; }
  return { self, ticks, samples: p.samples.length, start: p.startTime, last };
}
const x = summary(a), y = summary(b);
const bad = [];
if (x.samples !== y.samples) bad.push("samples " + x.samples + " vs " + y.samples);
if (x.start !== y.start || Math.abs(x.last - y.last) > 1) bad.push("time range");
for (const k of new Set([...Object.keys(x.self), ...Object.keys(y.self)])) if (x.self[k] !== y.self[k]) bad.push("self " + k + ": " + x.self[k] + " vs " + y.self[k]);
for (const k of new Set([...Object.keys(x.ticks), ...Object.keys(y.ticks)])) if (x.ticks[k] !== y.ticks[k]) bad.push("ticks " + k);
if (bad.length) { console.error("FAIL: " + bad.slice(0, 10).join("\n")); process.exit(1); }
console.log("same: " + x.samples + " samples, " + Object.keys(x.self).length + " functions, " + Object.keys(x.ticks).length + " line tick entries");
'
for m in "${majors[@]}"; do
    node_bin=$ROOT/tests/.cache/node/$m/bin/node
    mkdir -p "n$m" && (cd "n$m" && "$node_bin" --cpu-prof --cpu-prof-name=prof.cpuprofile "$FIX/workload.js" 1000 > /dev/null)
    prof=n$m/prof.cpuprofile
    "$NODESCOPE" convert "$prof" -o "n$m/rt.cpuprofile"
    node -e "$compare" "$prof" "n$m/rt.cpuprofile"
    "$NODESCOPE" convert "n$m/rt.cpuprofile" -o "n$m/rt2.cpuprofile"
    cmp "n$m/rt.cpuprofile" "n$m/rt2.cpuprofile"
    # collapse keeps every sample; hot is the hottest JS function by self time
    "$NODESCOPE" collapse "$prof" -o "n$m/p.folded"
    total=$(awk '{s += $NF} END {print s}' "n$m/p.folded")
    want=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).samples.length)' "$prof")
    [ "$total" = "$want" ] || { echo "FAIL: node $m: folded total $total, samples $want"; exit 1; }
    hot=$(grep -E '(^|;)hot [^;]*$' "n$m/p.folded" | awk '{s += $NF} END {print s+0}')
    warm=$(grep -E '(^|;)warm [^;]*$' "n$m/p.folded" | awk '{s += $NF} END {print s+0}')
    [ "$hot" -gt "$warm" ] && [ "$warm" -gt 0 ] || { echo "FAIL: node $m: hot $hot, warm $warm"; exit 1; }
    "$NODESCOPE" flame "$prof" -o "n$m/p.svg" && grep -q 'JS' "n$m/p.svg"
    # top: hot first, then warm; its shares agree with the folded counts; --json and --by file
    "$NODESCOPE" top -n 3 "$prof" > "n$m/top.txt"
    sed -n 2p "n$m/top.txt" | grep -q ' hot .*workload.js:4$' || { cat "n$m/top.txt"; echo "FAIL: top row is not hot"; exit 1; }
    grep -q 'hot lines:' "n$m/top.txt" || { echo "FAIL: no hot lines from positionTicks"; exit 1; }
    "$NODESCOPE" top --json "$prof" > "n$m/top.json"
    node -e '
      const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const hot = t.rows.find((r) => r.name.startsWith("hot "));
      const want = 100 * Number(process.argv[2]) / Number(process.argv[3]);
      if (Math.abs(hot.selfPct - want) > 0.01) { console.error("FAIL: top says " + hot.selfPct + "%, folded " + want + "%"); process.exit(1); }
      // V8 itself sometimes lists a sample or two more in samples[] than in hitCount/positionTicks
      const ticks = hot.lines.reduce((s, l) => s + l.ticks, 0);
      if (ticks > hot.self || ticks < hot.self - 3) { console.error("FAIL: hot line ticks " + ticks + " vs self " + hot.self); process.exit(1); }
    ' "n$m/top.json" "$hot" "$want"
    "$NODESCOPE" top --by file -n 1 "$prof" | sed -n 2p | grep -q 'workload.js' || { echo "FAIL: --by file"; exit 1; }
    # the txt writer is top's table
    "$NODESCOPE" convert "$prof" -o "n$m/report.txt"
    "$NODESCOPE" top "$prof" | cmp -s - "n$m/report.txt" || { echo "FAIL: convert -o .txt differs from top"; exit 1; }
    echo "node $m: ok (hot $hot, warm $warm of $want samples)"
done

# pprof: an independent decoder (npm pprof-format) sees every sample and hot's self count
[ -d "$ROOT/tests/node_modules/pprof-format" ] || { echo "pprof-format missing: run scripts/setup.sh"; exit 1; }
p20=n${majors[0]}/prof.cpuprofile
"$NODESCOPE" convert "$p20" -o p.pb.gz
hot20=$(grep -E '(^|;)hot [^;]*$' "n${majors[0]}/p.folded" | awk '{s += $NF} END {print s+0}')
node -e '
const { Profile } = require(process.argv[1] + "/tests/node_modules/pprof-format");
const p = Profile.decode(require("zlib").gunzipSync(require("fs").readFileSync("p.pb.gz")));
const st = p.stringTable.strings, fn = new Map(p.function.map((f) => [Number(f.id), f])), loc = new Map(p.location.map((l) => [Number(l.id), l]));
let total = 0, hot = 0;
for (const s of p.sample) {
  total += Number(s.value[0]);
  const f = fn.get(Number(loc.get(Number(s.locationId[0])).line[0].functionId));
  if (st[Number(f.name)] === "hot" && st[Number(f.filename)].endsWith("workload.js")) hot += Number(s.value[0]);
}
const want = JSON.parse(require("fs").readFileSync(process.argv[2])).samples.length;
if (total !== want || hot !== Number(process.argv[3])) { console.error(`FAIL: pprof total ${total} (want ${want}), hot ${hot} (want ${process.argv[3]})`); process.exit(1); }
console.log("pprof ok: " + total + " samples, hot " + hot);' "$ROOT" "$p20" "$hot20"

# merge: sums (and averages) every sample
p20=n${majors[0]}/prof.cpuprofile
"$NODESCOPE" merge "$p20" "$p20" -o merged.cpuprofile
"$NODESCOPE" merge --avg "$p20" "$p20" "$p20" -o avg.folded
n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).samples.length)' "$p20")
m=$(node -e 'console.log(JSON.parse(require("fs").readFileSync("merged.cpuprofile")).samples.length)')
a=$(awk '{s += $NF} END {printf "%.0f", s}' avg.folded)
[ "$m" -eq $((2 * n)) ] && [ "$a" -eq "$n" ] || { echo "FAIL: merge $m (want $((2 * n))), avg $a (want $n)"; exit 1; }

# corrupt and hostile profiles
prof=n${majors[0]}/prof.cpuprofile
head -c 2000 "$prof" > trunc.cpuprofile
set +e
"$NODESCOPE" collapse trunc.cpuprofile > /dev/null 2> err; rc=$?
[ $rc -eq 1 ] && grep -q 'trunc.cpuprofile:1: error' err || { cat err; echo "FAIL: truncated: rc $rc"; exit 1; }
printf '{"nodes":[{"id":"x","callFrame":{}}]}' > types.cpuprofile
"$NODESCOPE" collapse types.cpuprofile > /dev/null 2> err; rc=$?
[ $rc -eq 1 ] && grep -q "'id' should be a number" err || { cat err; echo "FAIL: wrong types: rc $rc"; exit 1; }
node -e 'let s="";for(let i=0;i<100000;i++)s+="[";require("fs").writeFileSync("deep.cpuprofile","{\"nodes\":"+s)'
timeout 10 "$NODESCOPE" collapse deep.cpuprofile > /dev/null 2> err; rc=$?
[ $rc -eq 1 ] || { echo "FAIL: deep nesting: rc $rc"; exit 1; }
set -e
# dangling children, a cycle, samples of missing nodes, negative deltas: repaired with warnings
cat > broken.cpuprofile <<'JSON'
{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,99]},
{"id":2,"callFrame":{"functionName":"a","url":"x.js","lineNumber":0,"columnNumber":9},"children":[3]},
{"id":3,"callFrame":{"functionName":"b","url":"x.js","lineNumber":4,"columnNumber":9},"children":[]},
{"id":4,"callFrame":{"functionName":"c","url":"x.js","lineNumber":8,"columnNumber":9},"children":[5]},
{"id":5,"callFrame":{"functionName":"d","url":"x.js","lineNumber":9,"columnNumber":9},"children":[4]}],
"startTime":100,"endTime":200,"samples":[3,3,2,77,5],"timeDeltas":[10,-5,10,10,10]}
JSON
timeout 10 "$NODESCOPE" collapse broken.cpuprofile > out.folded 2> err
grep -q 'missing nodes' err && grep -q 'cycle' err && grep -q 'negative timeDeltas' err || { cat err; echo "FAIL: warnings"; exit 1; }
grep -qx 'a x.js:1:10;b x.js:5:10 2' out.folded && grep -qx 'a x.js:1:10 1' out.folded || { cat out.folded; echo "FAIL: repaired profile"; exit 1; }
echo PASS
