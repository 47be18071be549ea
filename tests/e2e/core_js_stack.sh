#!/bin/bash
# core stack against the truth Node prints itself, on every Node major we have (18-26, node_majors):
#  - a gcore of stack_truth.js blocked in fs.readFileSync on a FIFO under nested calls, class
#    constructors (derived), a getter, a method, closures, an arrow, an anonymous function,
#    eval, an async function and recursion 1000 deep: every frame of the fixture file has the
#    name, line and column of the program's own `new Error().stack` (compare_stack.js), and -v
#    shows the argument values that were passed, exactly as many as were passed;
#  - a kernel core (ulimit -c, --abort-on-uncaught-exception) of throw_truth.js, the same check.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_js_stack
fail_context() { echo "node $v"; }
check_major() {
    w=$dir/$v
    core_gcore "$w" "$NODE" "$FIX/stack_truth.js" "$w/fifo" "$w/truth.json"
    timeout 60 "$NODESCOPE" core "$core" --node "$NODE" stack --json > "$w/ns.json" || fail "stack --json exited $?"
    node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/stack_truth.js" || fail "gcore stack differs from Error().stack"
    timeout 60 "$NODESCOPE" core "$core" --node "$NODE" stack -v > "$w/v.txt" || fail "stack -v exited $?"
    # arguments: values and exact counts (block(label, count) was given 2; the outermost recurse 1000)
    grep -A4 'js:     block at' "$w/v.txt" > "$w/block.txt"
    grep -q 'arg1: "pre-rexb"' "$w/block.txt" && grep -q 'arg2: 7' "$w/block.txt" || { cat "$w/block.txt"; fail "block's arguments"; }
    grep -q 'arg3' "$w/block.txt" && fail "block shows a third argument"
    grep -A3 'js:     recurse at' "$w/v.txt" | grep -c 'arg1: ' | grep -qx 1000 || fail "not 1000 recurse frames with arguments"
    grep -A3 'js:     recurse at' "$w/v.txt" | grep 'arg1: ' | tail -1 | grep -q 'arg1: 1000$' || fail "outermost recurse should have n = 1000"
    grep -A5 'js:     evalEntry at' "$w/v.txt" | tr '\n' ' ' | grep -q 'arg1: <Object: Object> *arg2: 42.5 *arg3: "rex"' || fail "evalEntry's arguments"
    grep -A4 'js:     arrow at' "$w/v.txt" | tr '\n' ' ' | grep -q 'arg1: "rex" *arg2: "b"' || fail "arrow's arguments"
    grep -A4 'js:     new Dog at' "$w/v.txt" | grep -q 'arg2: <Buffer 16 bytes>' || fail "Dog's Buffer argument"
    # `this` of a method called on a derived class instance is named by its own class
    grep -A2 'js:     run at' "$w/v.txt" | grep -q 'this: <Object: Dog>' || fail "run's this should be <Object: Dog>"
    grep -q 'native: uv_fs_open' "$w/v.txt" || fail "no native uv_fs_open frame"
    grep -q 'js:     openSync at node:fs:' "$w/v.txt" || fail "no openSync frame of node:fs"
    rm -f "$core"

    # kernel core at an uncaught exception
    (cd "$w" && ulimit -c unlimited && "$NODE" --abort-on-uncaught-exception "$FIX/throw_truth.js" "$w/truth2.json" >/dev/null 2>&1)
    kcore=$(ls "$w"/core "$w"/core.[0-9]* 2>/dev/null | head -1)
    if [ -z "$kcore" ]; then
        echo "node $v: no kernel core in the working directory (core_pattern: $(cat /proc/sys/kernel/core_pattern)): not tested"
    else
        echo "node $v: kernel core $(du -m "$kcore" | cut -f1) MB"
        timeout 60 "$NODESCOPE" core "$kcore" --node "$NODE" stack --json > "$w/k.json" || fail "kernel core: stack exited $?"
        node "$FIX/compare_stack.js" "$w/truth2.json" "$w/k.json" "$FIX/throw_truth.js" || fail "kernel core stack differs from Error().stack"
        rm -f "$kcore"
    fi
}
core_for_each_node check_major
echo ok
