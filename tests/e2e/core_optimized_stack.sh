#!/bin/bash
# core stack in optimized and baseline code, on Node 18/20/22/24: optimized_truth.js optimizes
# `hot` (TurboFan; Maglev too on Node 24: Node 22's build leaves Maglev out) with `mid` inlined into it,
# and blocks under them in `blocker`, compiled by Sparkplug (baseline). The core must show the
# tiers, the inlined frame V8 has no frame for, and every position as the program's own
# `new Error().stack` (compare_stack.js): optimized code through its source position and
# inlining tables, baseline code through its pc -> bytecode offset table.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
command -v gcore >/dev/null || { echo "skip: no gcore"; exit 77; }
dir=$TEST_TMP/core_optimized; rm -rf "$dir"; mkdir -p "$dir"
printf "leak:libdw.so\n" > "$dir/lsan.supp"; export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL (node $v, $tier): $*"; exit 1; }
tested=0
for v in 18 20 22 24; do
    NODE=$HERE/../.cache/node/$v/bin/node
    [ -x "$NODE" ] || { echo "no Node $v at $NODE (run scripts/setup.sh): not tested"; continue; }
    tiers=turbofan
    [ "$v" = 24 ] && tiers="turbofan maglev"
    for tier in $tiers; do
        w=$dir/$v-$tier; mkdir -p "$w"; mkfifo "$w/fifo"
        "$NODE" --allow-natives-syntax "$FIX/optimized_truth.js" "$w/fifo" "$w/truth.json" "$tier" & pid=$!
        for _ in $(seq 100); do [ -s "$w/truth.json" ] && break; sleep 0.1; done
        [ -s "$w/truth.json" ] || fail "fixture never got ready"
        sleep 0.3
        gcore -o "$w/core" "$pid" >/dev/null 2>&1 || { echo "skip: gcore failed (ptrace not permitted?)"; exit 77; }
        kill "$pid"; wait "$pid" 2>/dev/null; pid=
        core=$(ls "$w"/core.*)
        timeout 60 "$NODESCOPE" core "$core" --node "$NODE" stack --json > "$w/ns.json" || fail "stack --json exited $?"
        node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/optimized_truth.js" || fail "stack differs from Error().stack"
        timeout 60 "$NODESCOPE" core "$core" --node "$NODE" stack > "$w/s.txt" || fail "stack exited $?"
        grep -q "js:     blocker at .* \[baseline\]" "$w/s.txt" || { grep js: "$w/s.txt" | head; fail "blocker is not baseline"; }
        grep -q "js:     mid at .* \[$tier, inlined\]" "$w/s.txt" || { grep js: "$w/s.txt" | head; fail "mid is not inlined $tier code"; }
        grep -q "js:     hot at .* \[$tier\]" "$w/s.txt" || { grep js: "$w/s.txt" | head; fail "hot is not $tier"; }
        rm -f "$core"
        echo "node $v $tier ok"
        tested=$((tested + 1))
    done
done
[ $tested -gt 0 ] || { echo "skip: no Node builds (run scripts/setup.sh)"; exit 77; }
echo ok
