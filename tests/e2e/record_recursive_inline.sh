#!/bin/bash
# A function TurboFan inlined into itself keeps its inlined frames: V8 records such an inlining
# with function id -1 ("the code's own function"), which the decoder took for a bad index and so
# dropped every inlined frame of that code (an express server's router recurses this way:
# next() -> handle() -> next(); its deeper frames were 4-8 points short of V8's --cpu-prof).
# `record` of tests/fixtures/live/recursive_inline.js on Node 18-24 (those in tests/.cache): of the
# main thread's samples under search(), which the program only calls under five middleware() and
# six handle() frames, 95% or more must show them all; the output is unchanged. Skips when perf
# events are not allowed here.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
dir=$TEST_TMP/record_recursive_inline; rm -rf "$dir"; mkdir -p "$dir"
printf "leak:libdw.so\n" > "$dir/lsan.supp"
export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL (node $v): $*"; exit 1; }
tested=0
for v in 18 20 22 24; do
    NODE=$HERE/../.cache/node/$v/bin/node
    [ -x "$NODE" ] || { echo "no Node $v: not tested"; continue; }
    w=$dir/$v; mkdir -p "$w"
    timeout 120 "$NODESCOPE" record -F 499 -o "$w/prof.folded" -- "$NODE" "$FIX/recursive_inline.js" 4 > "$w/out" 2> "$w/ns.err"
    rc=$?
    if [ $rc -ne 0 ] && grep -q perf_event "$w/ns.err"; then cat "$w/ns.err"; echo "skip: perf events not allowed"; exit 77; fi
    [ $rc -eq 0 ] || { cat "$w/ns.err"; fail "record exited $rc"; }
    [ "$(cat "$w/out")" = done ] || fail "the program's output changed: $(cat "$w/out")"
    awk '
        /^node \[main\];/ && index($0, ";search ") { n = $NF; under += n
                 m = gsub(/;middleware [^;]*recursive_inline\.js:/, "&"); h = gsub(/;handle [^;]*recursive_inline\.js:/, "&")
                 if (m == 5 && h == 6) whole += n; else shape[m " middleware, " h " handle"] += n }
        END { if (under < 200) { print "only " under " main-thread samples under search()"; exit 1 }
              printf "main thread: %d samples under search(), %.1f%% with all 5 middleware() and 6 handle() frames\n", under, 100 * whole / under
              if (whole < 0.95 * under) for (s in shape) print "  " shape[s] " with " s
              exit !(whole >= 0.95 * under) }' "$w/prof.folded" || fail "inlined frames left out"
    tested=$((tested + 1))
    echo "node $v ok"
done
[ $tested -gt 0 ] || { echo "skip: no Node 18-24"; exit 77; }
echo ok
