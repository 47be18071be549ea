#!/bin/bash
# Stacks the sampler cannot follow to their root, said so, not filled with wrong frames: V8's
# parser recursing hundreds of native frames deep (fixtures/live/deep_parse.js), its depth changing
# from one function to the next. Beyond a sample's stack copy the stack is read as it is by then,
# and a saved-rbp chain through words written since led to "0x298ecce0 ([heap]+0x1b7ce0)" frames
# (6% of the samples) and to a function's first byte named as no function ("0x1274dc0
# (node+0xe74dc0)": live_remap failed so in CI, and here in 1 run of 49). Now such a stack is cut at the first
# return address that cannot be one, under "(outer frames changed before they were read)" (or
# "... lost: the frame chain broke"), and one of over 512 frames under "(outer frames left out:
# ...)"; the closing message's "cut short" count is the number of samples under those frames.
# Node 20 and 24. Skips when perf events are not allowed here.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
test_dir record_deep_stack
lsan_ignore_libdw
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
ran=0
for v in $(node_majors 20 24 26); do
    fail_context() { echo "node $v"; }
    NODE=$(node_bin $v)
    [ -x "$NODE" ] || continue
    ran=1
    out=$dir/r$v.folded
    timeout 120 "$NODESCOPE" record -F 499 -o "$out" -- "$NODE" "$FIX/deep_parse.js" 3 > "$dir/out" 2> "$dir/err"
    rc=$?
    skip_unless_perf_events $rc "$dir/err"
    [ $rc -eq 0 ] && [ "$(cat "$dir/out")" = ok ] || { cat "$dir/err"; fail "record exited $rc or the program's output changed"; }
    grep -v "functions parsed" "$dir/err"
    said=$(sed -n "s/.*; \([0-9]*\) cut short.*/\1/p" "$dir/err")
    awk -v said="${said:-0}" '
        { n = $NF; total += n; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
          if (f[2] ~ /^\(outer frames /) { cut += n; why[f[2]] += n }
          for (i = 2; i <= k; i++) {
              if (f[i] ~ /^0x[0-9a-f]+ \((\[heap\]|\[stack\]|\[anon[^)]*\])\+0x[0-9a-f]+\)$/) { data += n; print "in data: " f[i] }
              if (f[i] ~ /^0x[0-9a-f]+ \(node\+0x[0-9a-f]+\)$/) { innode += n; print "in node, no symbol: " f[i] }
              if (f[i] ~ /^\(outer frames / && i > 2) { misplaced += n; print "cut mark not at the root: " line }
          } }
        END { printf "%d samples, %d cut short (the message said %d):", total, cut, said
              for (w in why) printf " %d %s;", why[w], w
              printf "\n%d with a frame in data, %d in node without a symbol\n", data, innode
              if (total < 300) { print "too few samples"; exit 1 }
              if (data > 0 || innode > 0 || misplaced > 0 || cut != said) exit 1
              if (!why["(outer frames left out: a stack of over 512 native frames)"]) { print "no stack over 512 frames"; exit 1 } }' "$out" ||
        fail "stacks the sampler could not follow are not cut and said so"
done
[ $ran -eq 1 ] || skip "no Node 20 or 24"
echo ok
