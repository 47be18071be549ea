#!/bin/bash
# Corrupt and partial cores never crash or hang `core stack`: a real Node 20 gcore, then
#  - truncated at several sizes, - large zeroed regions, - random bytes flipped all over,
#  - a frame-pointer loop written into a JS frame on the stack (saved fp = the frame itself).
# Each run must exit 0 (partial answer) or 1 (clear error) within seconds under ASan+UBSan.
# Also `core --pid`: the same stack from the live process, which must keep running after.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
NODE=${NODE20:-$HERE/../.cache/node/20/bin/node}
[ -x "$NODE" ] || { echo "skip: no Node 20 at $NODE (run scripts/setup.sh)"; exit 77; }
command -v gcore >/dev/null || { echo "skip: no gcore"; exit 77; }
dir=$TEST_TMP/core_corrupt; rm -rf "$dir"; mkdir -p "$dir"
printf "leak:libdw.so\n" > "$dir/lsan.supp"; export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
mkfifo "$dir/fifo"
"$NODE" "$FIX/stack_truth.js" "$dir/fifo" "$dir/truth.json" & pid=$!
cleanup() { kill "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$dir/truth.json" ] && break; sleep 0.1; done
[ -s "$dir/truth.json" ] || { echo "FAIL: fixture never got ready"; exit 1; }
sleep 0.3

# live: the same JS frames as the program's own stack, and the process still runs afterwards
timeout 60 "$NODESCOPE" core --pid "$pid" stack --json > "$dir/live.json" || { echo "FAIL: core --pid stack exited $?"; exit 1; }
node "$FIX/compare_stack.js" "$dir/truth.json" "$dir/live.json" "$FIX/stack_truth.js" || { echo "FAIL: live stack differs"; exit 1; }
kill -0 "$pid" || { echo "FAIL: the process died after core --pid"; exit 1; }
grep -q "State:.*[RS]" /proc/$pid/status || { echo "FAIL: the process was left stopped: $(grep State /proc/$pid/status)"; exit 1; }

gcore -o "$dir/core" "$pid" >/dev/null 2>&1 || { echo "skip: gcore failed (ptrace not permitted?)"; exit 77; }
core=$(ls "$dir"/core.*)
size=$(stat -c %s "$core")
run() {   # label, core file: exit 0 or 1, no sanitizer report, no hang
    local t0=$SECONDS rc
    timeout 60 "$NODESCOPE" core "$1" --node "$NODE" stack -v > "$dir/out" 2> "$dir/err"; rc=$?
    if [ $rc -gt 1 ]; then echo "FAIL: $2: exit $rc"; tail -20 "$dir/err"; exit 1; fi
    if [ $((SECONDS - t0)) -gt 20 ]; then echo "FAIL: $2: took $((SECONDS - t0)) s"; exit 1; fi
    echo "$2: exit $rc, $(grep -c '^js:' "$dir/out") JS frames; stderr: $(grep -v -e '^-*$' -e Suppress -e 'count *bytes' -e 'libdw' "$dir/err" | head -2 | tr '\n' ' ')"
}
run "$core" "intact"
# the wrong node, or none: a clear error naming the problem
other=$HERE/../.cache/node/22/bin/node
if [ -x "$other" ]; then
    "$NODESCOPE" core "$core" --node "$other" stack > /dev/null 2> "$dir/err"; rc=$?
    [ $rc -eq 1 ] && grep -q 'build ids differ' "$dir/err" || { echo "FAIL: a Node 22 binary for a Node 20 core: exit $rc"; cat "$dir/err"; exit 1; }
fi
"$NODESCOPE" core "$core" --node "$dir/missing-node" stack > /dev/null 2> "$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'missing-node' "$dir/err" || { echo "FAIL: a missing --node: exit $rc"; cat "$dir/err"; exit 1; }
grep -q '^js:     block at' "$dir/out" || { echo "FAIL: the intact core has no block frame"; exit 1; }

for pct in 1 10 50 90 99; do
    head -c $((size * pct / 100)) "$core" > "$dir/bad"
    run "$dir/bad" "truncated at $pct%"
done
rm -f "$dir/bad"

# a saved-fp loop in the middle of the JS stack: the frame at FP now says its caller is itself
fp=$(node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1]));const js=d.threads[0].frames.filter(f=>f.kind==="js");console.log(js[Math.floor(js.length/2)].fp)' "$dir/live.json")
off=$(readelf -lW "$core" | node -e '
const a = BigInt(process.argv[1]);
for (const l of require("fs").readFileSync(0, "utf8").split("\n")) {
  const f = l.trim().split(/\s+/);
  if (f[0] !== "LOAD") continue;
  const o = BigInt(f[1]), v = BigInt(f[2]), fs = BigInt(f[4]);
  if (a >= v && a < v + fs) { console.log(String(o + a - v)); break; }
}' "$fp")
if [ -n "$off" ]; then
    cp "$core" "$dir/loop"
    node -e 'const fs=require("fs");const b=Buffer.alloc(8);b.writeBigUInt64LE(BigInt(process.argv[2]));const fd=fs.openSync(process.argv[1],"r+");fs.writeSync(fd,b,0,8,Number(process.argv[3]));' "$dir/loop" "$fp" "$off"
    run "$dir/loop" "frame pointer loop at $fp"
    rm -f "$dir/loop"
else
    echo "note: frame $fp not found in the core's segments; loop case not run"
fi

# zeroed regions and flipped bytes, in place (the intact core is not needed any more)
node -e '
const fs = require("fs"), fd = fs.openSync(process.argv[1], "r+"), size = fs.fstatSync(fd).size;
let seed = 12345; const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const zero = Buffer.alloc(1 << 20);
for (let i = 1; i < 10; i++) fs.writeSync(fd, zero, 0, zero.length, Math.floor(size * i / 10));
const one = Buffer.alloc(1);
for (let i = 0; i < 20000; i++) { one[0] = Math.floor(rnd() * 256); fs.writeSync(fd, one, 0, 1, Math.floor(rnd() * size)); }
' "$core"
run "$core" "zeroed megabytes and 20000 random bytes"
echo ok
