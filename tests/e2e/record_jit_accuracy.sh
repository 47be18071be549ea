#!/usr/bin/env bash
# nodescope record on a workload that keeps compiling and dropping uniquely
# named functions (tests/fixtures/jit/churn.js). A JIT label is provably wrong
# when it names a generation whose logged time window does not hold the sample.
# Asserts: perf's own labels are often wrong (the problem is real), resolution
# by the map journal (record --perf) is below 0.5% wrong, and so are the names the
# live sampler (record's default) gives when it takes each sample; the program's exit status and output
# pass through; no V8 side files are left in the working directory.
set -euo pipefail
cd "$TEST_TMP"
perf record -q -o probe.data -- true 2>/dev/null || { echo "perf cannot record here"; exit 77; }
FIX=$OLDPWD/tests/fixtures/jit
SECONDS_RUN=${CHURN_SECONDS:-15}

"$NODESCOPE" record --perf -F 999 --keep rec -o churn.folded -- node --expose-gc "$FIX/churn.js" "$SECONDS_RUN" windows.txt > program.out
grep -q 'churn done true' program.out
ls isolate-*.log 2>/dev/null && { echo "FAIL: V8 log files left in the working directory"; exit 1; }
grep -q 'JS:[*^~+]gen[0-9]*_f' churn.folded

map=rec/$(grep -m1 -o 'perf-[0-9]*\.map' rec/perf.txt)
[ -s "$map" ] || { echo "FAIL: --keep did not keep the perf map"; exit 1; }
[ -e "/tmp/${map#rec/}" ] && { echo "FAIL: the perf map was left in /tmp"; exit 1; }
"$NODESCOPE" map update "$map" rec/perf.txt --ambiguous newest -o newest.txt
"$NODESCOPE" map update "$map" rec/perf.txt -o mark.txt
"$NODESCOPE" map update "$map" rec/perf.txt --map-journal rec/map-journal.txt -o journal.txt
for m in plain:rec/perf.txt newest:newest.txt mark:mark.txt journal:journal.txt; do
    node "$FIX/score.js" windows.txt "${m#*:}" "${m%%:*}"
done | tee scores.jsonl

node -e '
const s = Object.fromEntries(require("fs").readFileSync("scores.jsonl","utf8").trim().split("\n").map(l => { const o = JSON.parse(l); return [o.method, o]; }));
const fail = (m) => { console.error("FAIL: " + m); process.exit(1); };
if (s.journal.leafJitFrames < 200) fail("too few leaf JIT frames to judge: " + s.journal.leafJitFrames);
if (s.journal.wrongPct >= 0.5) fail("journal resolution " + s.journal.wrongPct + "% wrong (limit 0.5%)");
if (s.plain.wrongPct < 5 || s.plain.wrongPct <= s.journal.wrongPct) fail("plain perf only " + s.plain.wrongPct + "% wrong: the workload did not reuse code space");
if (s.mark.wrong + s.mark.ambiguous === 0) fail("mark policy saw no ambiguity");
console.log("ok: plain " + s.plain.wrongPct + "% wrong, newest " + s.newest.wrongPct + "%, mark " + s.mark.wrongPct + "% wrong + " + s.mark.ambiguousPct + "% ambiguous, journal " + s.journal.wrongPct + "%");
'

# The live sampler names each frame when it takes the sample: no journal needed, and just as right.
"$NODESCOPE" record -F 999 -o live.cpuprofile -- node --expose-gc "$FIX/churn.js" "${LIVE_SECONDS:-6}" live-windows.txt > live.out
grep -q 'churn done true' live.out
node "$FIX/score.js" live-windows.txt live.cpuprofile live | tee live.jsonl
node -e '
const s = JSON.parse(require("fs").readFileSync("live.jsonl", "utf8"));
if (s.leafJitFrames < 200) { console.error("FAIL: live: too few leaf JIT frames to judge: " + s.leafJitFrames); process.exit(1); }
if (s.wrongPct >= 0.5) { console.error("FAIL: live sampler " + s.wrongPct + "% wrong (limit 0.5%)"); process.exit(1); }
console.log("ok: live sampler " + s.wrongPct + "% wrong of " + s.leafJitFrames);
'

# exit status passes through, and output is still written
set +e
"$NODESCOPE" record -o exit.folded -- node -e 'const e = Date.now() + 1500; while (Date.now() < e); process.exit(3)'
rc=$?
set -e
[ $rc -eq 3 ] || { echo "FAIL: exit status $rc, expected 3"; exit 1; }
[ -s exit.folded ] || { echo "FAIL: no output after a failing program"; exit 1; }

# Ctrl-C (SIGINT to the process group, as a terminal sends it): the program stops,
# the profile is still written, and a planned stop is success (exit 0)
setsid "$NODESCOPE" record -o int.folded -- node -e 'const e = Date.now() + 60000; while (Date.now() < e);' > int.out 2>&1 &
pid=$!
sleep 3
pg=$(ps -o pgid= -p $pid | tr -d ' ')
[ "$pg" = "$pid" ] || { echo "FAIL: record is not its own process group"; exit 1; }
kill -INT -- "-$pg"
set +e
wait $pid
rc=$?
set -e
[ $rc -eq 0 ] || { cat int.out; echo "FAIL: Ctrl-C exit status $rc, expected 0"; exit 1; }
[ -s int.folded ] || { cat int.out; echo "FAIL: no profile after Ctrl-C"; exit 1; }
ls "${TMPDIR:-/tmp}" | grep -q nodescope-record && { echo "FAIL: temporary files left behind"; exit 1; }

# usage errors
set +e
"$NODESCOPE" record -o x.folded; rc=$?
set -e
[ $rc -eq 2 ] || { echo "FAIL: record without a program should be a usage error, got $rc"; exit 1; }
echo PASS
