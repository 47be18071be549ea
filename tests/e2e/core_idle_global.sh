#!/bin/bash
# A path from the global object when no JavaScript frame is on the stack (an idle program waiting
# in epoll, as a hung server's core is): core --pid PID print globalThis.X finds the global object
# on the heap (the one with `process`, not a vm context's) on Node 18-26; and a path through it.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
test_dir core_idle_global
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail_context() { echo "node $v"; }
tested=0
for v in $(node_majors); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || { echo "no Node $v: not tested"; continue; }
    "$NODE" -e '
        globalThis.idleMarker = { planted: "idle-" + process.version, n: 42 };
        require("vm").runInNewContext("globalThis.idleMarker = { planted: \"wrong: a vm context\" }", {});
        setInterval(() => {}, 1000); console.log("ready")' > "$dir/out" & pid=$!
    for _ in $(seq 50); do grep -q ready "$dir/out" && break; sleep 0.1; done
    sleep 0.3
    got=$(timeout 60 "$NODESCOPE" core --pid "$pid" print --json globalThis.idleMarker 2> "$dir/err") || { cat "$dir/err"; fail "print exited $?"; }
    want=$("$NODE" -p 'JSON.stringify({ planted: "idle-" + process.version, n: 42 })')
    [ "$got" = "$want" ] || fail "got $got, want $want"
    got=$(timeout 60 "$NODESCOPE" core --pid "$pid" print globalThis.idleMarker.n 2> "$dir/err") || { cat "$dir/err"; fail "print of a path exited $?"; }
    [ "$got" = 42 ] || fail "idleMarker.n: $got"
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
    tested=$((tested + 1))
    echo "node $v ok"
done
[ $tested -gt 0 ] || skip "no Node 18-26"
echo ok
