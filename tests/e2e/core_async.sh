#!/bin/bash
# core async, stack --async and pending against the truth Node prints itself, on every Node major
# we have (one process and one gcore per major serve all three):
# a gcore of async_world.js (K requests three async calls deep at an await of a never-settling
# promise, a chain through Promise.all, an async generator in for-await, blocked in readFileSync
# inside an awaited chain) checked by async_compare.js: every group and count, every position
# (V8's `new Error().stack` at each await), and `stack --async` equal to Error().stack's async frames;
# `pending --json` and `async --group` on the live process (--pid: socket addresses from /proc), and
# `pending --json` on the core, checked
# by async_pending_compare.js: timers, immediate, server, sockets, child, fs request in flight.
# The ASan+UBSan build reads the Node 20 and 22 cores, the release build the others.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_async
fail_context() { echo "node $v"; }
K=7
check_major() {
    w=$dir/$v
    # core_gcore, with a look at the live process before the gcore
    mkdir -p "$w"; mkfifo "$w/fifo"
    "$NODE" "$FIX/async_world.js" "$w/fifo" "$w/truth.json" $K & pid=$!
    for _ in $(seq 100); do [ -s "$w/truth.json" ] && break; sleep 0.1; done
    [ -s "$w/truth.json" ] || fail "fixture never got ready"
    sleep 0.3
    timeout 60 "$NODESCOPE_RELEASE" core --pid "$pid" pending --json > "$w/pending_pid.json" || fail "pending --pid exited $?"
    timeout 60 "$NODESCOPE_RELEASE" core --pid "$pid" async --group --json > "$w/group_pid.json" || fail "async --pid exited $?"
    gcore -o "$w/core" "$pid" >/dev/null 2>&1 || skip "gcore failed (ptrace not permitted?)"
    pkill -P "$pid"; kill "$pid"; wait "$pid" 2>/dev/null; pid=   # (and its execFile child, sleep 1000)
    core=$(ls "$w"/core.*)
    node "$FIX/async_pending_compare.js" "$w/truth.json" "$w/pending_pid.json" pid || fail "pending --pid differs from the truth"
    node -e 'const g = JSON.parse(require("fs").readFileSync(process.argv[1])).groups.find((x) => /^await never in getUser \(.* ← handle \(.* ← router \(/.test(x.text));
             process.exit(g && g.count === +process.argv[2] ? 0 : 1)' "$w/group_pid.json" $K || fail "async --group --pid: $(cat "$w/group_pid.json")"
    # one session (the prompt reads commands from stdin) for every command, as core_objects.sh
    # does: opening a core of up to 1.4 GB is the slow part; the ASan+UBSan build on Node 20 and 22
    bin=$NODESCOPE; [ "$v" = 20 ] || [ "$v" = 22 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}
    sep='type 0x2a00000000'
    printf '%s\n' 'async --group --json' "$sep" 'async --json' "$sep" 'stack --async --json' "$sep" 'pending --json' \
        "$sep" 'async --group' "$sep" 'stack --async' "$sep" 'pending' |
        timeout 120 "$bin" core "$core" --node "$NODE" > "$w/all.txt" || fail "the session exited $?"
    awk -v d="$w/out" 'BEGIN { n = 0 } /^Smi 42$/ { n++; next } { print > (d "." n) }' < "$w/all.txt"
    node "$FIX/async_compare.js" "$w/truth.json" "$w/out.0" "$w/out.1" "$w/out.2" "$FIX/async_world.js" ||
        fail "async differs from the program's own truth"
    node "$FIX/async_pending_compare.js" "$w/truth.json" "$w/out.3" core || fail "pending differs from the truth"
    grep -q "^ *$K × await never in getUser (" "$w/out.4" || { cat "$w/out.4"; fail "text async --group"; }
    grep -q '^    at async outerSpin (' "$w/out.5" || fail "text stack --async"
    grep -q '^  ref   due in .* after 600000 ms  onSlow (' "$w/out.6" || { cat "$w/out.6"; fail "text pending"; }
    rm -f "$core"
}
core_for_each_node check_major
echo ok
