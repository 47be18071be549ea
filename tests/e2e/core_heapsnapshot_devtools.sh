#!/bin/bash
# The .heapsnapshot written from a core loads in Chromium's own DevTools reader (the Memory
# panel's heap snapshot worker, bundled in Chromium) and its constructor counts there equal
# v8.getHeapSnapshot()'s of the same heap, for retain_chains.js's planted classes, on each Node
# major (retain_devtools.js; one browser for all). The same bytes whether the object graph was
# built or read from the graph cache. Skips (77) without Chromium or playwright-core.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || skip "no Chromium"
node -e "require.resolve('playwright-core')" 2>/dev/null || (cd "$HERE/.." && node -e "require.resolve('playwright-core')" 2>/dev/null) ||
    skip "playwright-core is not installed (tests/package.json)"
. "$HERE/../lib/core_fixture.sh"
core_setup core_heapsnapshot_devtools
export XDG_CACHE_HOME=$dir/cache
fail_context() { echo "node ${v:-}"; }
pairs=()
write_snapshot() {
    w=$dir/$v
    core_gcore "$w" "$NODE" --expose-gc "$FIX/retain_chains.js" "$w/fifo" "$w/truth.json"
    timeout 120 "${NODESCOPE_RELEASE:-$NODESCOPE}" core "$core" --node "$NODE" heapsnapshot --no-cache -o "$w/core.heapsnapshot" ||
        fail "heapsnapshot exited $?"
    # the same bytes from a graph built and saved, then from the graph read back from the cache
    # (which roots "(GC roots)" holds once differed between the two)
    for k in 1 2; do
        timeout 120 "${NODESCOPE_RELEASE:-$NODESCOPE}" core "$core" --node "$NODE" heapsnapshot -o "$w/cached$k.heapsnapshot" ||
            fail "heapsnapshot ($k) exited $?"
        cmp -s "$w/core.heapsnapshot" "$w/cached$k.heapsnapshot" || fail "the snapshot differs the time $k with the graph cache"
        rm -f "$w/cached$k.heapsnapshot"
    done
    rm -f "$core" "$w/truth.json.heapsnapshot"
    pairs+=("$w/core.heapsnapshot" "$w/truth.json")
}
core_for_each_node write_snapshot
v=all
timeout 300 node "$FIX/retain_devtools.js" "${pairs[@]}"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "retain_devtools.js exited $rc"
echo ok
