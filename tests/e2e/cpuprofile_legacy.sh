#!/usr/bin/env bash
# The legacy .cpuprofile format (Chrome before 2016): a nested "head" tree with
# the call frame on each node (1-based lineNumber), startTime/endTime in seconds
# and absolute "timestamps" in µs. Checked stacks, counts, and the timeline
# written back as a current .cpuprofile.
set -euo pipefail
cd "$TEST_TMP"
cat > legacy.cpuprofile <<'JSON'
{"head":{"functionName":"(root)","url":"","lineNumber":0,"hitCount":0,"callUID":1,"children":[
 {"functionName":"main","url":"/app/a.js","lineNumber":3,"columnNumber":10,"hitCount":1,"id":2,"children":[
   {"functionName":"fib","url":"/app/a.js","lineNumber":10,"columnNumber":13,"hitCount":2,"id":3,"children":[]}]},
 {"functionName":"(program)","url":"","lineNumber":0,"hitCount":1,"id":4,"children":[]}],"id":1},
 "startTime":100.5,"endTime":100.6,"samples":[3,2,3,4],"timestamps":[100500100,100500200,100500300,100500450]}
JSON
"$NODESCOPE" collapse legacy.cpuprofile > got.folded
printf '%s\n' '(program) 1' 'main /app/a.js:3:10 1' 'main /app/a.js:3:10;fib /app/a.js:10:13 2' | diff - got.folded
"$NODESCOPE" convert legacy.cpuprofile -o new.cpuprofile
node -e '
const p = JSON.parse(require("fs").readFileSync("new.cpuprofile", "utf8"));
const fib = p.nodes.find((n) => n.callFrame.functionName === "fib");
const ok = p.startTime === 100500000 && p.timeDeltas.join() === "100,100,100,150" && fib.callFrame.lineNumber === 9 &&
  p.samples.filter((s) => s === fib.id).length === 2;
if (!ok) { console.error("FAIL: " + JSON.stringify({ start: p.startTime, d: p.timeDeltas, fib })); process.exit(1); }'
# a legacy tree nested deeper than the parser allows is an error, not a crash
{ printf '{"head":'; for i in $(seq 600); do printf '{"functionName":"f","children":['; done; } > deep.cpuprofile
set +e
"$NODESCOPE" collapse deep.cpuprofile > /dev/null 2> err; rc=$?
set -e
[ $rc -eq 1 ] && grep -q 'error' err || { cat err; echo "FAIL: deep legacy tree: rc $rc"; exit 1; }
echo ok
