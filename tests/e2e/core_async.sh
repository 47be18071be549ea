#!/bin/bash
# core async and stack --async against the truth Node prints itself, on every Node major we have:
# a gcore of async_world.js (K requests three async calls deep at an await of a never-settling
# promise, a chain through Promise.all, an async generator in for-await, blocked in readFileSync
# inside an awaited chain) checked by async_compare.js: every group and count, every position
# (V8's `new Error().stack` at each await), and `stack --async` equal to Error().stack's async frames.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_async
fail() { echo "FAIL (node $v): $*"; exit 1; }
K=7
check_major() {
    w=$dir/$v
    core_gcore "$w" "$NODE" "$FIX/async_world.js" "$w/fifo" "$w/truth.json" $K
    # the sanitized build for the JSON documents checked in detail, the release build for the rest
    # (each run walks a heap of up to 1.4 GB of core)
    ns() { timeout 60 "$NODESCOPE" core "$core" --node "$NODE" "$@"; }
    rel() { timeout 60 "$NODESCOPE_RELEASE" core "$core" --node "$NODE" "$@"; }
    rel async --group --json > "$w/group.json" || fail "async --group --json exited $?"
    ns async --json > "$w/list.json" || fail "async --json exited $?"
    ns stack --async --json > "$w/stack.json" || fail "stack --async --json exited $?"
    node "$FIX/async_compare.js" "$w/truth.json" "$w/group.json" "$w/list.json" "$w/stack.json" "$FIX/async_world.js" ||
        fail "async differs from the program's own truth"
    rel async --group > "$w/group.txt" || fail "async --group exited $?"
    grep -q "^ *$K × await in getUser (" "$w/group.txt" || { cat "$w/group.txt"; fail "text --group"; }
    rel stack --async > "$w/stack.txt" || fail "stack --async exited $?"
    grep -q '^    at async outerSpin (' "$w/stack.txt" || fail "text stack --async"
    rm -f "$core"
}
core_for_each_node check_major
echo ok
