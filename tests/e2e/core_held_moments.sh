#!/bin/bash
# Why is it alive, whenever the core was taken: held_moments.js plants 50 objects in each of
# seven ways (a global, a script's top-level `let`, a CommonJS module's exports, an ES module's
# export, a Map, a closure, an event listener) and is cored right after building them (young
# objects, no GC since), after 1.5 s of churn (scavenges have moved them), and after gc(). On
# each, `retainers` of every planted object must start at the global object, a module or a script
# scope, name the planted edges, never go through V8's caches, never say "unreachable"
# (held_check.js). After gc(), the .heapsnapshot written from the core is compared edge by edge
# with V8's own snapshot of the same heap: every edge V8 has into or out of a planted object must
# be there (held_compare.js). Right after building, `functions -v` gives a closure and a
# SharedFunctionInfo that `closure` and `source` take, and a path may start at an address.
# Node 18-24 and 26 (25: see the end); Node 20 runs the ASan+UBSan build.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_held_moments
export XDG_CACHE_HOME=$dir/cache
fail() { echo "FAIL (node $v, $moment): $*"; exit 1; }
check_major() {
    bin=$NODESCOPE; [ "$v" = 20 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}
    for moment in built idle gc; do
        w=$dir/$v-$moment
        snap=; [ "$moment" = gc ] && snap=$w/v8.heapsnapshot
        core_gcore "$w" "$NODE" --expose-gc "$FIX/held_moments.js" "$w/fifo" "$w/truth.json" "$moment" $snap
        ns() { timeout 300 "$bin" core "$core" --node "$NODE" "$@"; }
        classes=$("$NODE" -p 'require(process.argv[1]).classes.join(" ")' "$w/truth.json")
        for c in $classes; do echo "instances $c --limit 1000"; done | ns > "$w/inst.txt" || fail "instances exited $?"
        grep -o '^0x[0-9a-f]*' "$w/inst.txt" | sed 's/^/retainers --max-paths 1 /' | ns > "$w/ret.txt" || fail "retainers exited $?"
        node "$FIX/held_check.js" "$w/truth.json" "$w/ret.txt" || fail "held_check.js"
        if [ "$moment" = built ]; then
            # every address a command prints is one the next takes: functions' closure and SFI,
            # and paths from an address
            line=$(ns functions -v | grep ' onData at ') || fail "functions -v: no onData"
            set -- $line
            ns closure "$2" | grep -q '^    sess = HeldByClosure' || fail "closure of functions' closure $2"
            ns closure "$3" | grep -q '^    sess = HeldByClosure' || fail "closure of functions' SharedFunctionInfo $3"
            ns source "$3" | grep -q 'function onData' || fail "source of the SharedFunctionInfo $3"
            g=$(ns retainers globalThis | head -1 | cut -d' ' -f1)
            [ "$(ns print "$g.heldGlobal[3].tag")" = "'global-3'" ] || fail "print $g.heldGlobal[3].tag: $(ns print "$g.heldGlobal[3].tag" 2>&1)"
        fi
        if [ -n "$snap" ]; then
            ns heapsnapshot -o "$w/ours.heapsnapshot" 2>/dev/null || fail "heapsnapshot exited $?"
            node "$FIX/held_compare.js" "$snap" "$w/ours.heapsnapshot" "${classes// /,}" || fail "held_compare.js: edges missing"
        fi
        rm -f "$core" "$w"/*.heapsnapshot
    done
}
# Node 25 left out: V8 14.1's own snapshot of the gc moment has 2.5% fewer edges than nodescope's
# (242516 and 248553; Node 26's, 0.65% more), over held_compare.js's 2% bound, every planted
# edge present; which edges V8 14.1 leaves out is not known yet
core_for_each_node check_major "$(node_majors 18 20 22 24 26)"
