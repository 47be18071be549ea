#!/bin/bash
# pending's microtask queue (V8's C++ ring buffer, found from the main native context) on Node
# 18-24 with --pid: a microtask queued K queueMicrotask callbacks and one promise reaction and
# blocks; pending must count K + 1 waiting and name each task's function in order (later1 K times,
# then later2), in text and JSON.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
test_dir core_microtasks
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail_context() { echo "node $v"; }
tested=0
for v in $(node_majors); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || { echo "no Node $v: not tested"; continue; }
    rm -f "$dir/fifo" "$dir/truth.json"; mkfifo "$dir/fifo"
    k=$((3 + v % 5))
    "$NODE" "$FIX/microtasks.js" "$dir/fifo" "$dir/truth.json" "$k" & pid=$!
    for _ in $(seq 100); do [ -s "$dir/truth.json" ] && break; sleep 0.1; done
    bin=$NODESCOPE; [ "$v" = 20 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}
    timeout 60 "$bin" core --pid "$pid" pending > "$dir/text" 2> "$dir/err" || { cat "$dir/err"; fail "pending exited $?"; }
    grep -q "^microtask queue: $((k + 1)) waiting$" "$dir/text" || { cat "$dir/text"; fail "want $((k + 1)) microtasks waiting"; }
    [ "$(grep -c '^  CallableTask later1 (.*microtasks.js:[0-9]*:[0-9]*)$' "$dir/text")" = "$k" ] &&
        grep -q '^  PromiseFulfillReactionJobTask later2 ' "$dir/text" || { cat "$dir/text"; fail "the tasks' functions"; }
    timeout 60 "$bin" core --pid "$pid" pending --json > "$dir/json" 2> "$dir/err" || fail "pending --json exited $?"
    node -e '
      const j = JSON.parse(require("fs").readFileSync(process.argv[1])), k = Number(process.argv[2]);
      const m = j.microtasks, names = m && m.tasks.map((t) => t.function && t.function.name);
      const want = Array(k).fill("later1").concat(["later2"]);
      if (!m || m.size !== k + 1 || m.capacity < m.size || JSON.stringify(names) !== JSON.stringify(want)) {
        console.error(JSON.stringify(m)); process.exit(1); }' "$dir/json" "$k" || fail "pending --json microtasks"
    echo x > "$dir/fifo"; wait "$pid"; rc=$?; pid=
    [ $rc = 0 ] || fail "the program exited $rc after the attach"
    tested=$((tested + 1))
    echo "node $v ok"
done
[ $tested -gt 0 ] || skip "no Node 18-26"
echo ok
