#!/bin/bash
# core --pid on a running node (every installed major): each attach stops the process only to copy
# registers and stacks, never leaves it stopped, and its stacks are right even when the pc is in a
# function's prologue or at its ret (the interrupted frame is never decoded from its caller's
# slots: a non-recursive program never shows a function twice). The program's output and exit
# status are unchanged.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup live_attach
fail_context() { echo "node $v"; }
ATTACHES=${ATTACHES:-8}
check_major() {
    w=$dir/$v; mkdir -p "$w"
    "$NODE" "$FIX/attach_target.js" "$w/stop" > "$w/out" 2> "$w/err" & pid=$!
    sleep 1
    for k in $(seq "$ATTACHES"); do
        timeout 60 "$NODESCOPE" core --pid "$pid" stack > "$w/s$k" 2> "$w/e$k" || { cat "$w/e$k"; fail "attach $k exited $?"; }
        state=$(sed 's/.*) //' "/proc/$pid/stat" | cut -c1)
        [ "$state" != t ] || fail "left in a tracing stop after attach $k"
        grep -q '^js:     loop at .*attach_target.js' "$w/s$k" || { cat "$w/s$k"; fail "attach $k: no loop frame"; }
        grep -q '^js:     main at .*attach_target.js' "$w/s$k" || { cat "$w/s$k"; fail "attach $k: no main frame"; }
        # frames of the file itself (not the eval'd function, whose location says "eval at <file>")
        dup=$(sed -n '/^thread 1 /q; s/^js:     \([^ ]*\) at [^ ]*attach_target.js.*/\1/p' "$w/s$k" | sort | uniq -d)
        [ -z "$dup" ] || { cat "$w/s$k"; fail "attach $k: $dup appears twice (a frame decoded from its caller's slots)"; }
        sleep 0.1
    done
    touch "$w/stop"
    wait "$pid"; rc=$?; pid=
    [ $rc -eq 0 ] || fail "the program exited $rc"
    [ "$(cat "$w/out")" = "done 5050" ] || fail "the program printed '$(cat "$w/out")'"
    [ ! -s "$w/err" ] || fail "the program wrote to stderr: $(cat "$w/err")"
}
core_for_each_node check_major
echo ok
