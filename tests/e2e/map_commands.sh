#!/usr/bin/env bash
# nodescope map find/tidy/update/stats on a real V8 perf map with address reuse,
# checked against brute-force answers computed in JavaScript from the same file.
set -euo pipefail
cd "$TEST_TMP"
FIX=$OLDPWD/tests/fixtures/jit
node --perf-basic-prof --expose-gc "$FIX/churn.js" 2 windows.txt > /dev/null &
pid=$!
wait $pid
map=/tmp/perf-$pid.map
cp "$map" churn.map
rm -f "$map" isolate-*-$pid-v8.log

# tidy: exactly the entries no later entry overlaps, sorted by address
"$NODESCOPE" map tidy churn.map -o tidy.map
node -e '
const fs = require("fs");
const e = fs.readFileSync("churn.map","utf8").split("\n").filter(Boolean).map(l => { const [a,s,...n] = l.split(" "); return {a: BigInt("0x"+a), s: BigInt("0x"+s), n: n.join(" "), l}; });
const keep = [];
for (let i = 0; i < e.length; i++) {
  let over = false;
  for (let j = i + 1; j < e.length && !over; j++) over = e[j].a < e[i].a + e[i].s && e[i].a < e[j].a + e[j].s;
  if (!over) keep.push(e[i]);
}
keep.sort((x, y) => x.a < y.a ? -1 : x.a > y.a ? 1 : 0);
const want = keep.map(k => k.a.toString(16) + " " + k.s.toString(16) + " " + k.n).join("\n") + "\n";
const got = fs.readFileSync("tidy.map","utf8");
if (got !== want) { console.error("FAIL: tidy differs from brute force"); process.exit(1); }
if (keep.length === e.length) { console.error("FAIL: no reuse in the map, test proves nothing"); process.exit(1); }
console.log("tidy ok:", keep.length, "of", e.length);
'
# find: all covering entries in file order, newest marked
addr=$(awk '/gen1_f0/{print $1; exit}' churn.map)
"$NODESCOPE" map find churn.map "$addr" > find.txt
want=$(node -e '
const a = BigInt("0x'"$addr"'");
const lines = require("fs").readFileSync("churn.map","utf8").split("\n");
let n = 0; lines.forEach((l) => { const [s, z] = l.split(" "); if (z && BigInt("0x"+s) <= a && a < BigInt("0x"+s) + BigInt("0x"+z)) n++; });
console.log(n);')
got=$(grep -c '^churn.map:' find.txt)
[ "$got" = "$want" ] || { echo "FAIL: find listed $got entries, expected $want"; cat find.txt; exit 1; }
if [ "$want" -gt 1 ]; then tail -2 find.txt | head -1 | grep -q 'newest' || { echo "FAIL: newest not marked"; exit 1; }; fi

# stats: counts entries and overlaps
"$NODESCOPE" map stats churn.map > stats.txt
grep -q "^entries: *$(grep -c . churn.map)" stats.txt
grep -q "^overlapped by later: *$(( $(grep -c . churn.map) - $(grep -c . tidy.map) ))" stats.txt

# update: non-frame lines byte for byte; a frame line gets the map's name
printf 'node 123 1.000000: 1 cpu-clock:\n\t%s JS:*stale+0x3 (/tmp/perf-123.map)\n\t  abc libc_fn+0x1 (/usr/lib/libc.so.6)\n\n' "$addr" > stacks.txt
"$NODESCOPE" map update churn.map stacks.txt --ambiguous newest -o updated.txt
newest=$(grep newest find.txt | sed 's/^[^ ]* [^ ]* [^ ]* //; s/   <- newest$//' || true)
[ -n "$newest" ] || newest=$(sed -n 1p find.txt | cut -d' ' -f4-)
sed -n 1p updated.txt | cmp - <(sed -n 1p stacks.txt)
sed -n 3p updated.txt | cmp - <(sed -n 3p stacks.txt)
grep -qF "	$addr $newest (/tmp/perf-123.map)" updated.txt || { echo "FAIL: frame not renamed to '$newest'"; cat updated.txt; exit 1; }

# bad input: binary map, missing file, bad address
set +e
head -c 2000 /dev/urandom > garbage.map; printf '\0' >> garbage.map
"$NODESCOPE" map stats garbage.map 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q 'garbage.map' err.txt || { echo "FAIL: binary map: rc $rc"; cat err.txt; exit 1; }
"$NODESCOPE" map find churn.map xyz 2> err.txt; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: bad address rc $rc"; exit 1; }
"$NODESCOPE" map tidy nonexistent.map 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q nonexistent.map err.txt || { echo "FAIL: missing map rc $rc"; exit 1; }
echo PASS
