#!/bin/bash
# A function TurboFan inlined into itself keeps its inlined frames: V8 records such an inlining
# with function id -1 ("the code's own function"), which the decoder took for a bad index and so
# dropped every inlined frame of that code (an express server's router recurses this way:
# next() -> handle() -> next(); its deeper frames were 4-8 points short of V8's --cpu-prof).
# `record` of tests/fixtures/live/recursive_inline.js on Node 18-26 (those in tests/.cache): of the
# main thread's samples under search(), which the program only calls under five middleware() and
# six handle() frames, 95% or more must show them all; the output is unchanged. Skips when perf
# events are not allowed here.
set -u
. "$(dirname "$0")/../lib/record_each_node.sh"
chain_whole() {
    awk '
        /^node \[main\];/ && index($0, ";search ") { n = $NF; under += n
                 m = gsub(/;middleware [^;]*recursive_inline\.js:/, "&"); h = gsub(/;handle [^;]*recursive_inline\.js:/, "&")
                 if (m == 5 && h == 6) whole += n; else shape[m " middleware, " h " handle"] += n }
        END { if (under < 200) { print "only " under " main-thread samples under search()"; exit 1 }
              printf "main thread: %d samples under search(), %.1f%% with all 5 middleware() and 6 handle() frames\n", under, 100 * whole / under
              if (whole < 0.95 * under) for (s in shape) print "  " shape[s] " with " s
              exit !(whole >= 0.95 * under) }' "$1"
}
record_each_node recursive_inline.js 4 chain_whole
