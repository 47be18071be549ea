#!/bin/bash
# A call from JS into C++ through V8's API (a FunctionTemplate's callback: node's bindings) is filed
# under the API function, named as JS names it (Function.prototype.name, the name V8's --cpu-prof
# gives the callback's node), between its JS caller and the C++ it runs. The fixture spends its
# time in zlib's deflate under the zlib handle's writeSync, called from interpreted code at first
# and optimized code later; on Node 20 and 22 the optimized calls go through an exit frame that
# does not say which function it called (learned from the calls that do). `record` on Node 18-26:
# 90% or more of the main thread's samples in deflate must have the writeSync frame above them.
# (V8's own profile of this fixture files the time under processChunkSync instead: its profiler
# names only the callbacks of API functions that existed when it started, and the zlib binding is
# made later; node's bootstrap bindings -- fs `read`, stream `writev`, Buffer's `compare` -- it
# names as here.)
set -u
. "$(dirname "$0")/../lib/record_each_node.sh"
api_frame_named() {
    local v name
    v=$(basename "$(dirname "$1")")
    name=$("$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../.cache/node/$v/bin/node" -p "new (require('zlib').Deflate)()._handle.writeSync.name")
    awk -v api="$name" '
        /^node \[main\];/ { n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
                 c = 0; for (i = 1; i <= k; i++) if (f[i] ~ /^(deflate|deflate_[a-z]+|longest_match|fill_window|compress_block)$/) { c = i; break }
                 if (!c) next
                 in_deflate += n; named = 0; for (i = 1; i < c; i++) if (f[i] == api) named = 1
                 if (named) kept += n; else for (i = c - 1; i > 0; i--) if (f[i] ~ / (node:|\/)/) { other[f[i]] += n; break } }
        END { if (in_deflate < 100) { print "only " in_deflate " main-thread samples in deflate"; exit 1 }
              printf "main thread: %d samples in deflate, %.1f%% under the API function %s\n", in_deflate, 100 * kept / in_deflate, api
              if (kept < 0.9 * in_deflate) for (c in other) print "  not named, under " c " (" other[c] ")"
              exit !(kept >= 0.9 * in_deflate) }' "$1"
}
record_each_node api_callback.js 2 api_frame_named
# Attached to a process whose calls are all optimized already (`record -p` after 1.5 s of its CPU
# time): no call from interpreted code to learn from on Node 18-22; the API function is found among
# the methods of the call's holder (the zlib handle) instead. The recording lasts until the program
# exits (its last 2.5 s of CPU time), not for a time of the wall clock: beside a CPU hog, 1.5 s of
# wall time held 90 samples in deflate.
here=$(cd "$(dirname "$0")" && pwd)
dir=$TEST_TMP/record_api_callback_p; rm -rf "$dir"; mkdir -p "$dir"
trap 'kill $pid 2> /dev/null; rm -rf "$dir"' EXIT
for v in $(node_majors); do
    node=$here/../.cache/node/$v/bin/node
    [ -x "$node" ] || continue
    "$node" "$here/../fixtures/live/api_callback.js" 4 > "$dir/out" & pid=$!
    warm=$((3 * $(getconf CLK_TCK) / 2))
    while [ "$(cpu_ticks "$pid")" -lt "$warm" ]; do sleep 0.1; done
    timeout 120 "$NODESCOPE" record -p "$pid" -F 499 -o "$dir/$v.folded" 2> "$dir/ns.err" ||
        { cat "$dir/ns.err"; echo "FAIL (node $v): record -p exited $?"; exit 1; }
    wait "$pid"
    [ "$(cat "$dir/out")" = done ] || { echo "FAIL (node $v, -p): the program's output changed"; exit 1; }
    mkdir -p "$dir/$v" && mv "$dir/$v.folded" "$dir/$v/prof.folded"
    api_frame_named "$dir/$v/prof.folded" || { echo "FAIL (node $v): record -p of a warm process (above)"; exit 1; }
    echo "node $v, record -p: ok"
done
