#!/bin/bash
# refs, retainers, dominators and heapsnapshot on Node 18-26: retain_chains.js plants one
# leaked object per way of keeping it alive (a global, a module's exports, a Map, an array, a
# closure context, a class's static field, a pending setTimeout, an event listener), counts them
# in V8's own heap snapshot, and blocks. `retainers` must find each planted path with every edge
# named; the .heapsnapshot written from the core must count the planted classes as V8 did and hold
# the planted chains (retain_check.js; memlab's parser loads it when @memlab/core is installed).
# Node 20 runs the ASan+UBSan build.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_retain
export XDG_CACHE_HOME=$dir/cache   # the graph cache goes there, not into the user's home
fail_context() { echo "node $v"; }
classes="LeakGlobal LeakExports LeakMapValue LeakArrayItem LeakClosure LeakStatic LeakTimer LeakListener"
check_major() {
    w=$dir/$v
    core_gcore "$w" "$NODE" --expose-gc "$FIX/retain_chains.js" "$w/fifo" "$w/truth.json"
    bin=$NODESCOPE; [ "$v" = 20 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}
    ns() { timeout 120 "$bin" core "$core" --node "$NODE" "$@"; }
    for c in $classes; do echo "instances $c"; done | ns > "$w/inst.txt" || fail "instances exited $?"
    # the planted instance of a class: a core can also hold a dead copy (one a scavenge left, on
    # Node 18 in about 1 core in 6), which no root reaches or only a stale word in native memory
    # does; then the one with a path from the global object or a module is taken
    pick() {
        local all a
        all=$(grep "<Object: $1>" "$w/inst.txt" | cut -d' ' -f1)
        if [ "$(echo "$all" | wc -w)" -gt 1 ]; then
            for a in $all; do echo "retainers $a" | ns | grep -Eq '^path 1 \(.*from (global|module)' && { echo "$a"; return; }; done
        fi
        echo "$all" | head -n 1
    }
    # one session for the queries (the graph is built once, or read from the cache pick() wrote)
    set -- $classes
    for c in $classes; do
        a=$(pick "$c")
        [ -n "$a" ] || fail "no instance of $c"
        echo "retainers --json $a"
    done > "$w/cmds"
    a_map=$(pick LeakMapValue)
    # heapsnapshot frees the graph's edges and paths: the session's next query loads it again
    printf '%s\n' "refs $a_map" "dominators --top 5 --json" "heapsnapshot -o $w/core.heapsnapshot" "retainers $a_map" >> "$w/cmds"
    ns < "$w/cmds" > "$w/out.txt" || fail "the session exited $?"
    # split the JSON documents (one per retainers) by their first line
    awk -v d="$w" -v list="$classes" 'BEGIN { n = split(list, c, " "); k = 0 }
        /^\{"target"/ { k++; f = d "/ret." c[k] ".json" } k && k <= n { print > f }
        /^\]\}$/ { if (k == n) k = n + 1 }' "$w/out.txt"
    node "$FIX/retain_check.js" "$w/truth.json" "$w" || fail "retain_check.js"
    grep -q 'value of "s17"' "$w/out.txt" || fail "refs: no 'value of \"s17\"' holder"
    grep -q 'value of "s17" *-> LeakMapValue' "$w/out.txt" || fail "retainers after heapsnapshot: no path"
    grep -q '^  {"address": "0x[0-9a-f]*", "name": .*, "size": [0-9]*, "retained": [0-9]*}' "$w/out.txt" || fail "dominators --json: no retained sizes"
    # objects --retained: per constructor, as `objects` counts them; a planted class retains at
    # least one instance's own bytes, and Maps retain more than their own bytes (their tables)
    ns objects --retained --json > "$w/retained.json" || fail "objects --retained exited $?"
    "$NODE" -e '
        const g = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")), by = {};
        for (const x of g) by[x.name] = x;
        for (const c of process.argv[2].split(" "))
            if (!by[c] || by[c].retained < by[c].size / by[c].count) throw new Error(c + ": " + JSON.stringify(by[c]));
        if (!by.Map || by.Map.retained <= by.Map.size) throw new Error("Map: " + JSON.stringify(by.Map));
    ' "$w/retained.json" "$classes" || fail "objects --retained"
    ns objects -v --retained 2>/dev/null; [ $? -eq 2 ] || fail "objects -v --retained is a usage error"
    # the second process reads the graph from the cache (in XDG_CACHE_HOME, never beside the core)
    ls "$XDG_CACHE_HOME"/nodescope/graph-*.bin >/dev/null 2>&1 || fail "no graph cache in $XDG_CACHE_HOME/nodescope"
    ls "$w" | grep -q 'graph' && fail "a cache file beside the core"
    ns retainers --json "$a_map" > "$w/again.json" || fail "retainers from the cache exited $?"
    cmp -s "$w/again.json" "$w/ret.LeakMapValue.json" || fail "retainers from the cache differs: $(diff "$w/ret.LeakMapValue.json" "$w/again.json" | head -5)"
    ns heapsnapshot -o "$w/core.heapsnapshot" 2>/dev/null; [ $? -eq 1 ] || fail "heapsnapshot overwrote a file without --force"
    # the cache's housekeeping: --no-cache writes nothing; the next save removes a file of another
    # version and a temporary file left for hours, and keeps within the size budget (here: only
    # the file just written)
    cdir=$XDG_CACHE_HOME/nodescope
    mine=$(ls -t "$cdir"/graph-*.bin | head -1)
    rm -f "$mine"
    ns retainers --no-cache "$a_map" > /dev/null || fail "retainers --no-cache exited $?"
    [ -e "$mine" ] && fail "--no-cache wrote the cache"
    echo junk > "$cdir/graph-0123456789abcdef.bin"
    echo junk > "$cdir/graph-0123456789abcdef.bin.tmp123456"
    touch -d '2 hours ago' "$cdir/graph-0123456789abcdef.bin.tmp123456"
    NODESCOPE_GRAPH_CACHE_MAX=1 ns retainers "$a_map" > /dev/null || fail "retainers exited $?"
    [ -e "$mine" ] || fail "no cache written"
    [ "$(ls "$cdir" | wc -l)" = 1 ] || fail "the cache's housekeeping left: $(ls "$cdir" | tr '\n' ' ')"
    ns retainers 2>/dev/null; [ $? -eq 2 ] || fail "retainers without an address is a usage error"
}
core_for_each_node check_major
echo ok
