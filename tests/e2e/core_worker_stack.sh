#!/bin/bash
# core stack --all-threads with two JavaScript threads, on Node 18-26: worker_truth.js
# blocks a worker_threads Worker in a message handler and the main thread in a timer callback,
# each on its own FIFO. Both threads' stacks must equal what each printed with
# `new Error().stack` (compare_stack.js), node's frames included (the MessagePort dispatch:
# V8 names a method under a symbol key and an anonymous method in its own way).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_worker
fail_context() { echo "node $v"; }
check_major() {
    w=$dir/$v
    mkdir -p "$w" && mkfifo "$w/fifo2"
    core_gcore "$w" "$NODE" "$FIX/worker_truth.js" "$w/fifo" "$w/truth.json"
    timeout 60 "$NODESCOPE" core "$core" --node "$NODE" stack --all-threads --json > "$w/ns.json" || fail "stack --all-threads --json exited $?"
    node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/worker_truth.js" stack || fail "main thread differs from its Error().stack"
    node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/worker_truth.js" worker || fail "worker thread differs from its Error().stack"
    # two different threads
    node -e '
      const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
      const has = (name) => d.threads.findIndex((t) => t.frames.some((f) => f.name === name));
      const a = has("mainBlocks"), b = has("workerHandler");
      if (a < 0 || b < 0 || a === b) { console.log("threads", a, b); process.exit(1); }' "$w/ns.json" || fail "the two stacks are not on two threads"
    rm -f "$core"
}
core_for_each_node check_major
echo ok
