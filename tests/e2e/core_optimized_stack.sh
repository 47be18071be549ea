#!/bin/bash
# core stack in optimized and baseline code, on Node 18-26: optimized_truth.js optimizes
# `hot` (TurboFan; Maglev too on Node 24: Node 22's build leaves Maglev out) with `mid` inlined into it,
# and blocks under them in `blocker`, compiled by Sparkplug (baseline). The core must show the
# tiers, the inlined frame V8 has no frame for, and every position as the program's own
# `new Error().stack` (compare_stack.js): optimized code through its source position and
# inlining tables, baseline code through its pc -> bytecode offset table.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_optimized
fail_context() { echo "node $v, $tier"; }
check_major() {
    tiers=turbofan
    [ "$v" = 24 ] && tiers="turbofan maglev"
    for tier in $tiers; do
        w=$dir/$v-$tier
        core_gcore "$w" "$NODE" --allow-natives-syntax "$FIX/optimized_truth.js" "$w/fifo" "$w/truth.json" "$tier"
        timeout 60 "$NODESCOPE" core "$core" --node "$NODE" stack --json > "$w/ns.json" || fail "stack --json exited $?"
        node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/optimized_truth.js" || fail "stack differs from Error().stack"
        timeout 60 "$NODESCOPE" core "$core" --node "$NODE" stack > "$w/s.txt" || fail "stack exited $?"
        grep -q "js:     blocker at .* \[baseline\]" "$w/s.txt" || { grep js: "$w/s.txt" | head; fail "blocker is not baseline"; }
        grep -q "js:     mid at .* \[$tier, inlined\]" "$w/s.txt" || { grep js: "$w/s.txt" | head; fail "mid is not inlined $tier code"; }
        grep -q "js:     hot at .* \[$tier\]" "$w/s.txt" || { grep js: "$w/s.txt" | head; fail "hot is not $tier"; }
        rm -f "$core"
        echo "node $v $tier ok"
    done
}
core_for_each_node check_major
echo ok
