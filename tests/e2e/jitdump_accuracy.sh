#!/usr/bin/env bash
# JIT names from V8's jitdump (node --perf-prof), read directly: no perf inject,
# no .so files. The churn workload reuses code addresses; a label is provably
# wrong when it names a generation whose window does not hold the sample.
set -euo pipefail
cd "$TEST_TMP"
perf record -q -o probe.data -- true 2>/dev/null || { echo "perf cannot record here"; exit 77; }
FIX=$OLDPWD/tests/fixtures/jit
perf record -q -k CLOCK_MONOTONIC -g -F 999 -o perf.data -- \
    node --perf-prof --interpreted-frames-native-stack --expose-gc "$FIX/churn.js" "${CHURN_SECONDS:-8}" windows.txt > /dev/null
perf script -i perf.data > perf.txt 2> /dev/null
dump=$(ls jit-*.dump)
"$NODESCOPE" map update "$dump" perf.txt -o named.txt
node "$FIX/score.js" windows.txt named.txt jitdump | tee score.json
node -e '
const s = JSON.parse(require("fs").readFileSync("score.json", "utf8"));
if (s.leafJitFrames < 200) { console.error("FAIL: too few leaf JIT frames: " + s.leafJitFrames); process.exit(1); }
if (s.wrongPct >= 0.5) { console.error("FAIL: " + s.wrongPct + "% wrong (limit 0.5%)"); process.exit(1); }'
# collapse and flame take the dump as --perf-map too
"$NODESCOPE" collapse --perf-map "$dump" --stats perf.txt -o out.folded 2> stats.txt
grep -q 'by time (jitdump)' stats.txt || { cat stats.txt; exit 1; }
grep -q 'JS:[*^~+]gen[0-9]*_f' out.folded
# --jitdump FILE names the same thing explicitly and must resolve identically
"$NODESCOPE" collapse --jitdump "$dump" perf.txt -o out2.folded 2> /dev/null
cmp -s out.folded out2.folded || { echo "FAIL: --jitdump differs from --perf-map DUMP"; exit 1; }
# a truncated dump still gives the records before the cut, with a warning
head -c $(( $(stat -c %s "$dump") / 2 )) "$dump" > half.dump
"$NODESCOPE" map stats half.dump > half.txt 2> half.err
grep -q 'truncated' half.err && grep -q '^entries:' half.txt
echo PASS
