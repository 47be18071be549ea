#!/bin/bash
# A sample whose leaf is in code built without frame pointers (libc's memcmp) keeps its leaf's
# caller: the frame-pointer chain from such a leaf starts at the caller's caller, so without CFI
# `Buffer#compare`'s samples read `(anonymous) libc_leaf.js;memcmp`, node's Compare binding left
# out. `record` on Node 18-24 (those in tests/.cache): of the main thread's samples with a libc leaf,
# 90% or more must have a Compare function as the leaf's caller, and the program's output and
# exit status are unchanged. Skips when perf events are not allowed here.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
dir=$TEST_TMP/record_native_leaf; rm -rf "$dir"; mkdir -p "$dir"
printf "leak:libdw.so\n" > "$dir/lsan.supp"
export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL (node $v): $*"; exit 1; }
tested=0
for v in 18 20 22 24; do
    NODE=$HERE/../.cache/node/$v/bin/node
    [ -x "$NODE" ] || { echo "no Node $v: not tested"; continue; }
    w=$dir/$v; mkdir -p "$w"
    timeout 120 "$NODESCOPE" record -F 499 -o "$w/prof.folded" -- "$NODE" "$FIX/libc_leaf.js" 2 > "$w/out" 2> "$w/ns.err"
    rc=$?
    if [ $rc -ne 0 ] && grep -q perf_event "$w/ns.err"; then cat "$w/ns.err"; echo "skip: perf events not allowed"; exit 77; fi
    [ $rc -eq 0 ] || { cat "$w/ns.err"; fail "record exited $rc"; }
    [ "$(cat "$w/out")" = done ] || fail "the program's output changed: $(cat "$w/out")"
    awk '
        /^node \[main\];/ { n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
                 if (f[k] !~ /libc\.so|^__mem|^mem/) next
                 leaf += n; if (f[k - 1] ~ /Compare/) kept += n; else other[f[k - 1]] += n }
        END { if (leaf < 100) { print "only " leaf " main-thread samples with a libc leaf"; exit 1 }
              printf "main thread: %d samples with a libc leaf, %.1f%% under a Compare function\n", leaf, 100 * kept / leaf
              if (kept < 0.9 * leaf) for (c in other) print "  caller: " c " (" other[c] ")"
              exit !(kept >= 0.9 * leaf) }' "$w/prof.folded" || fail "the libc leaf's caller was left out"
    tested=$((tested + 1))
    echo "node $v ok"
done
[ $tested -gt 0 ] || { echo "skip: no Node 18-24"; exit 77; }
echo ok
