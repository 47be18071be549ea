#!/bin/bash
# aarch64 cores read on this x86-64 host (issue 44): for each official arm64 node present of 20, 22,
# 24, 26 (tests/.cache/node-arm64/MAJOR, scripts/fetch-arm64-node.sh), qemu-aarch64 runs
# crash_truth.js --heapsnapshot, which writes its truth (its `new Error().stack`, JSON.stringify of
# the planted values, the planted classes' counts, V8's own heap snapshot) and dies of an uncaught
# throw; qemu writes the guest's core (tests/lib/qemu_core.sh). Read with --node NODE --root
# /usr/aarch64-linux-gnu (the arm64 libc and libstdc++ of libc6-arm64-cross, libstdc++6-arm64-cross):
# - `stack --json`: the JS frames equal the program's own `new Error().stack` (compare_stack.js:
#   names, order, line:column; the fixture's frames and node's own below them);
# - `stack`: the native frames are named from node's and libc's symbols, from v8::base::OS::Abort
#   down through node::Start to libc's __libc_start_main and _start (the frame records, CFI from
#   the arm64 .eh_frame, return addresses signed by pointer authentication stripped), with no
#   `(no symbol)` on the main thread;
# - `objects`: the planted classes counted exactly as many as the program made;
# - `print --json globalThis.planted`: the program's JSON.stringify;
# - `exception --json`: the uncaught Error, its message, thrown in `dive`;
# - `async --json`: `waiter` suspended at its await of a promise that never settles;
# - `retainers --json` of the planted QemuTarget: the path globalThis.anchor.registry.items[3];
# - `heapsnapshot`: the planted classes' instance counts equal V8's own snapshot's, the planted
#   path is there, and nodes and edges are within the bounds measured per major (arm64_checks.js;
#   docs/arm64.md: within 2% of V8's but on 26);
# - with gdb-multiarch installed: each frame its `bt` names is, at its pc and in order, one of
#   `stack -a`'s (its 5: OS::Abort down to Builtins_CEntry, where it stops);
# - bad input (bad_input): a truncated core warns with its sizes (and exits 1 only with an error);
#   the x64 node or another arm64 major's is an error naming it, exit 1; without --node the
#   node is found at qemu's AT_EXECFN; without --root the JS stack is still the program's and a
#   warning says to give --root.
# Then optimized_truth.js, its core taken (SIGABRT to qemu) while it blocks in fs.readFileSync on a
# FIFO: `stack` equals its Error().stack through an API function's exit frame (`open`), baseline
# (`blocker`) and TurboFan code with an inlined function (`mid` in `hot`).
# Skips (77) without qemu-aarch64 (qemu-user), the arm64 libc, or any arm64 node.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/qemu_core.sh"
ROOT=/usr/aarch64-linux-gnu
command -v qemu-aarch64 > /dev/null || skip "no qemu-aarch64 (Debian: apt-get install qemu-user)"
[ -e $ROOT/lib/libc.so.6 ] || skip "no arm64 libc in $ROOT (scripts/setup.sh --arm64)"
test_dir core_arm64
lsan_ignore_libdw
export XDG_CACHE_HOME=$dir/cache   # retainers' graph cache: not in the user's home
trap 'rm -rf "$dir"' EXIT
fail_context() { echo "arm64 node ${v:-}"; }
# bad input on core $qcore of node $v: each answer with "error:" exits non-zero, and the message
# names the file and what to pass
errs_exit() {  # WHAT RC ERRFILE: "error:" only with a non-zero exit, and never a crash
    [ "$2" -le 1 ] || { cat "$3"; fail "$1: exit $2"; }
    grep -q 'error:' "$3" && [ "$2" -eq 0 ] && { cat "$3"; fail "$1: error: with exit 0"; }
    return 0
}
bad_input() {
    local rc other x64=$TEST_ROOT/tests/.cache/node/$v/bin/node
    # truncated (the first half): a warning with its sizes, then what can be read, or an error
    head -c $(($(stat -c %s "$qcore") / 2)) "$qcore" > "$w/half.core"
    for cmd in stack objects; do
        timeout 60 "$NODESCOPE" core "$w/half.core" --node "$NODE" --root $ROOT $cmd > /dev/null 2> "$w/err"; rc=$?
        errs_exit "a truncated core, $cmd" $rc "$w/err"
        grep -q "half.core: warning: core is truncated ([0-9]* of its [0-9]* bytes).*copy the whole core" "$w/err" ||
            { cat "$w/err"; fail "a truncated core, $cmd: no warning naming it"; }
    done
    rm -f "$w/half.core"
    # the wrong node: the x64 one of the same major, an arm64 one of another
    other=$TEST_ROOT/tests/.cache/node-arm64/$( [ "$v" = 22 ] && echo 24 || echo 22 )/bin/node
    for n in "$x64" "$other"; do
        [ -x "$n" ] || continue
        timeout 60 "$NODESCOPE" core "$qcore" --node "$n" --root $ROOT stack > /dev/null 2> "$w/err"; rc=$?
        [ $rc -eq 1 ] && grep -q "error: .*$n .*\(x86-64, the target is aarch64\|not the executable this core ran\|build ids differ\).*--node PATH" "$w/err" ||
            { cat "$w/err"; fail "--node $n (wrong node): exit $rc"; }
    done
    # no --node: qemu's AT_EXECFN is the host's path of the node it ran
    timeout 60 "$NODESCOPE" core "$qcore" --root $ROOT stack --json > "$w/ns.json" 2> "$w/err" || { cat "$w/err"; fail "no --node: exit $?"; }
    node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/crash_truth.js" > /dev/null || fail "no --node: stack differs"
    # no --root: libc is not found (said, with --root), the JS stack is still the program's
    timeout 60 "$NODESCOPE" core "$qcore" --node "$NODE" stack --json > "$w/ns.json" 2> "$w/err"; rc=$?
    errs_exit "no --root" $rc "$w/err"
    grep -q "warning: the dynamic linker's list: .* missing .*--root /usr/aarch64-linux-gnu" "$w/err" || { cat "$w/err"; fail "no --root: no warning"; }
    node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/crash_truth.js" > /dev/null || fail "no --root: stack differs"
}
tested=0
for v in $(node_majors 20 22 24 26); do
    NODE=$TEST_ROOT/tests/.cache/node-arm64/$v/bin/node
    [ -x "$NODE" ] || { echo "no arm64 Node $v at $NODE (scripts/fetch-arm64-node.sh): not tested"; continue; }
    w=$dir/$v
    qemu_core "$w" aarch64 "$NODE" --abort-on-uncaught-exception "$FIX/crash_truth.js" "$w" --heapsnapshot
    [ -s "$w/truth.json" ] || { cat "$w/err.txt"; fail "the fixture wrote no truth under qemu-aarch64"; }
    [ -n "$qcore" ] || skip "qemu-aarch64 wrote no core (ulimit -c unlimited refused?)"
    echo "arm64 node $v: qemu core $(du -m "$qcore" | cut -f1) MB"
    ns=("$NODESCOPE" core "$qcore" --node "$NODE" --root $ROOT)
    timeout 60 "${ns[@]}" stack --json > "$w/ns.json" 2> "$w/err" || { cat "$w/err"; fail "stack --json exited $?"; }
    node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/crash_truth.js" || fail "stack differs from Error().stack"
    timeout 60 "${ns[@]}" stack > "$w/stack.txt" 2>&1 || fail "stack exited $?"
    for f in 'native: v8::base::OS::Abort()' 'native: v8::internal::Runtime_Throw(' 'native: node::Start(' \
        'native: __libc_start_main.*(libc.so.6)' 'native: _start'; do
        grep -q "$f" "$w/stack.txt" || { cat "$w/stack.txt"; fail "no frame '$f'"; }
    done
    grep -q '(no symbol)' "$w/stack.txt" && { grep '(no symbol)' "$w/stack.txt" | head; fail "unnamed native frames"; }
    # one session, the answers apart: `type 0x2a00000000` prints "Smi 42" between them
    printf '%s\n' 'objects --json' 'type 0x2a00000000' 'print --json globalThis.planted' 'type 0x2a00000000' \
        'exception --json' 'type 0x2a00000000' 'async --json' 'type 0x2a00000000' 'instances QemuTarget' |
        timeout 120 "${ns[@]}" > "$w/all.txt" 2> "$w/err" || { cat "$w/err"; fail "objects/print/exception/async exited $?"; }
    awk -v d="$w/out" 'BEGIN { n = 0 } /^Smi 42$/ { n++; next } { print > (d "." n) }' "$w/all.txt"
    a=$(grep -o '^0x[0-9a-f]*' "$w/out.4" | head -1)
    [ -n "$a" ] || fail "instances QemuTarget: none"
    timeout 120 "${ns[@]}" retainers --json "$a" > "$w/ret.json" 2> "$w/err" || { cat "$w/err"; fail "retainers exited $?"; }
    timeout 120 "${ns[@]}" heapsnapshot --no-cache -o "$w/core.heapsnapshot" 2> "$w/err" || { cat "$w/err"; fail "heapsnapshot exited $?"; }
    node "$FIX/arm64_checks.js" answers "$v" "$w/truth.json" "$w/out.0" "$w/out.1" "$w/out.2" "$w/out.3" "$w/ret.json" \
        "$w/core.heapsnapshot" "$w/before.heapsnapshot" "$FIX/crash_truth.js" ||
        fail "objects, print, exception, async, retainers or heapsnapshot differ from the program's truth"
    rm -f "$w/core.heapsnapshot" "$w/before.heapsnapshot"
    # gdb-multiarch's frames (the native ones it can unwind: V8's code stops it) among ours, in order
    if command -v gdb-multiarch > /dev/null; then
        timeout 60 gdb-multiarch -batch -ex "set sysroot $ROOT" -ex bt "$NODE" "$qcore" > "$w/gdb.txt" 2>&1
        timeout 60 "${ns[@]}" stack -a > "$w/stack_a.txt" 2>&1 || fail "stack -a exited $?"
        node "$FIX/arm64_checks.js" gdb "$w/gdb.txt" "$w/stack_a.txt" || fail "gdb-multiarch's frames are not nodescope's"
    else
        echo "no gdb-multiarch: its frames not compared"
    fi
    bad_input
    # optimized code: optimized_truth.js (TurboFan, `mid` inlined into `hot`; `blocker` baseline)
    # blocks in fs.readFileSync's open of a FIFO; qemu writes the core when sent SIGABRT there
    rm -rf "$w" && mkdir -p "$w/core" && mkfifo "$w/fifo"
    (cd "$w" && ulimit -c unlimited && exec qemu-aarch64 -L $ROOT -E LD_LIBRARY_PATH=/lib "$NODE" --allow-natives-syntax \
        "$FIX/optimized_truth.js" "$w/fifo" "$w/truth.json" turbofan > "$w/out.txt" 2> "$w/err.txt") 2> /dev/null &
    qp=$!
    # blocked: a thread of qemu in the host's openat (x86-64: 257), the FIFO's open, after the truth
    for _ in $(seq 600); do
        [ -s "$w/truth.json" ] && cat /proc/$qp/task/*/syscall 2> /dev/null | grep -q '^257 ' && break
        kill -0 $qp 2> /dev/null || break
        sleep 0.1
    done
    kill -ABRT $qp 2> /dev/null
    wait $qp 2> /dev/null
    qcore=$(ls "$w"/qemu_*.core 2> /dev/null | head -1)
    [ -n "$qcore" ] && [ -s "$w/truth.json" ] || { cat "$w/err.txt"; fail "optimized_truth.js: no core or no truth"; }
    timeout 60 "$NODESCOPE" core "$qcore" --node "$NODE" --root $ROOT stack --json > "$w/ns.json" 2> "$w/err" ||
        { cat "$w/err"; fail "stack --json (optimized) exited $?"; }
    node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/optimized_truth.js" || fail "optimized stack differs from Error().stack"
    timeout 60 "$NODESCOPE" core "$qcore" --node "$NODE" --root $ROOT stack > "$w/stack.txt" 2>&1 || fail "stack (optimized) exited $?"
    for f in 'api: *open \[C++ callback' 'blocker at .*\[baseline\]' 'mid at .*\[turbofan, inlined\]' 'hot at .*\[turbofan\]'; do
        grep -q "$f" "$w/stack.txt" || { cat "$w/stack.txt"; fail "optimized: no frame '$f'"; }
    done
    rm -rf "$w"
    tested=$((tested + 1))
    echo "arm64 node $v ok"
done
[ $tested -gt 0 ] || skip "no arm64 Node builds (scripts/fetch-arm64-node.sh)"
echo ok
