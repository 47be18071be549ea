#!/usr/bin/env bash
# Trace-event files with Profile/ProfileChunk events. Node writes them (from V8's
# own CPU profiler) with --trace-event-categories disabled-by-default-v8.cpu_profiler;
# started together with --cpu-prof, the first profile in the trace is the same
# session as the .cpuprofile, so both must give the same stacks and counts (V8
# names the script by path in one and by file:// URL in the other). The bare-array
# form reads the same; per-sample "lines" become hot lines.
set -euo pipefail
cd "$TEST_TMP"
ROOT=$OLDPWD
node_bin=$ROOT/tests/.cache/node/22/bin/node
[ -x "$node_bin" ] || node_bin=$ROOT/tests/.cache/node/20/bin/node
[ -x "$node_bin" ] || { echo "no Node build in tests/.cache"; exit 77; }
"$node_bin" --cpu-prof --cpu-prof-name=p.cpuprofile --trace-event-categories disabled-by-default-v8.cpu_profiler \
    "$ROOT/tests/fixtures/cpuprofile/workload.js" 800 > /dev/null
[ -s node_trace.1.log ] && grep -q '"ProfileChunk"' node_trace.1.log || { echo "node wrote no ProfileChunk events"; exit 77; }
"$NODESCOPE" convert p.cpuprofile -o p.folded
"$NODESCOPE" convert node_trace.1.log -o t.folded 2> t.err || { cat t.err; exit 1; }
sed 's#file://##g' p.folded | sort > p.sorted
sort t.folded > t.sorted
diff -q p.sorted t.sorted > /dev/null || { diff p.sorted t.sorted | head -5 | cut -c1-200; echo "FAIL: trace and .cpuprofile differ"; exit 1; }
# the bare array form
node -e 'const fs = require("fs"); fs.writeFileSync("bare.json", JSON.stringify(JSON.parse(fs.readFileSync("node_trace.1.log")).traceEvents))'
"$NODESCOPE" collapse bare.json 2> /dev/null | sort > b.sorted
cmp -s t.sorted b.sorted || { echo "FAIL: bare trace-event array reads differently"; exit 1; }
"$NODESCOPE" top -n 1 node_trace.1.log 2> /dev/null | grep -q 'hot lines: 4 ' || { echo "FAIL: no hot lines from the chunks' lines"; exit 1; }
# the trace converts to a .cpuprofile that reads back the same
"$NODESCOPE" convert node_trace.1.log -o t.cpuprofile 2> /dev/null
"$NODESCOPE" collapse t.cpuprofile | sort | cmp -s - t.sorted || { echo "FAIL: trace -> cpuprofile round trip"; exit 1; }
echo "ok: $(awk '{s += $NF} END {print s}' t.folded) samples agree"
