#!/bin/bash
# A V8 newer than nodescope's table of layout facts (src/v8/layout.c) is loud, not silently wrong:
# with the newest major's own entry hidden (NODESCOPE_V8_FACTS_HIDE=V8 major.minor), `core --pid
# PID stack` on that node warns once, naming its V8 version and the version whose facts it took,
# and still answers (exit 0: what the metadata gives works); without the hiding it says nothing.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
test_dir v8_unknown
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
v=$(node_majors | awk '{ print $NF }')
NODE=$(node_bin "$v")
[ -x "$NODE" ] || skip "no Node $v (run scripts/setup.sh)"
fail_context() { echo "node $v"; }
v8=$("$NODE" -p 'process.versions.v8.split(".").slice(0, 2).join(".")')
"$NODE" -e 'function waitHere() { setInterval(() => {}, 1000); } waitHere(); console.log("ready")' > "$dir/out" & pid=$!
for _ in $(seq 50); do grep -q ready "$dir/out" && break; sleep 0.1; done
NODESCOPE_V8_FACTS_HIDE=$v8 timeout 60 "$NODESCOPE" core --pid "$pid" stack > "$dir/hidden.txt" 2> "$dir/hidden.err" ||
    { cat "$dir/hidden.err"; fail "stack with V8 $v8's facts hidden exited $?"; }
[ "$(grep -c "warning: V8 $v8 is newer than nodescope knows" "$dir/hidden.err")" = 1 ] ||
    { cat "$dir/hidden.err"; fail "no single warning naming V8 $v8"; }
grep -q '^native: ' "$dir/hidden.txt" || fail "no stack with the facts hidden"
timeout 60 "$NODESCOPE" core --pid "$pid" stack > /dev/null 2> "$dir/known.err" || fail "stack exited $?"
grep -q 'newer than nodescope knows' "$dir/known.err" && fail "V8 $v8 is in the table, yet: $(cat "$dir/known.err")"
say "node $v (V8 $v8): warned once with its facts hidden, silent with them"
echo ok
