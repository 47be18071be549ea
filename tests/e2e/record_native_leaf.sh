#!/bin/bash
# A sample whose leaf is in code built without frame pointers (libc's memcmp) keeps its leaf's
# caller: the frame-pointer chain from such a leaf starts at the caller's caller, so without CFI
# `Buffer#compare`'s samples read `(anonymous) libc_leaf.js;memcmp`, node's Compare binding left
# out. `record` on Node 18-26 (those in tests/.cache): of the main thread's samples with a libc leaf,
# 90% or more must have a Compare function as the leaf's caller, and the program's output and
# exit status are unchanged. Skips when perf events are not allowed here.
set -u
. "$(dirname "$0")/../lib/record_each_node.sh"
leaf_caller_kept() {
    awk '
        /^node \[main\];/ { n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
                 if (f[k] !~ /libc\.so|^__mem|^mem/) next
                 leaf += n; if (f[k - 1] ~ /Compare/) kept += n; else other[f[k - 1]] += n }
        END { if (leaf < 100) { print "only " leaf " main-thread samples with a libc leaf"; exit 1 }
              printf "main thread: %d samples with a libc leaf, %.1f%% under a Compare function\n", leaf, 100 * kept / leaf
              if (kept < 0.9 * leaf) for (c in other) print "  caller: " c " (" other[c] ")"
              exit !(kept >= 0.9 * leaf) }' "$1"
}
record_each_node libc_leaf.js 2 leaf_caller_kept
