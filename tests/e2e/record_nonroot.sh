#!/usr/bin/env bash
# Without root, where the kernel allows it (perf_event_paranoid <= 2, Yama ptrace_scope <= 1):
# as an unprivileged user (nodescope-user, created with useradd when missing), nodescope
#  - records its own node process with record -p (its JS function named);
#  - prints its own process's stack with core --pid stack, and watches its heap (watch --heap);
#  - refuses another user's process (root's) with a message naming the cause and a hint with
#    the fix (setcap), for record -p, core --pid and watch --heap, exit 1, the process left running;
#  - with a copy of the binary given the capabilities the docs' setcap line gives
#    (setcap cap_perfmon,cap_sys_ptrace+ep), records root's process, prints its stack and watches
#    its heap, the process left running, not stopped, not traced, without a copy (skipped where
#    /tmp is mounted nosuid: file capabilities do not apply there);
#  - with Yama (kernel.yama.ptrace_scope, when the kernel has it): at 1 and at 2 its own process
#    that nodescope did not start is refused, the message naming the setting and the fix, and the
#    capable copy records it; the setting is put back on every exit path.
# Skips (77) only when no unprivileged user can be had (not root, no useradd/runuser/setpriv).
set -euo pipefail
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$TEST_TMP"
ROOT=$OLDPWD
FIX="$ROOT/tests/fixtures/tree"
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "not root: cannot run as another user"; exit 77; }
user=nodescope-user
if ! id "$user" > /dev/null 2>&1; then
    command -v useradd > /dev/null || { echo "no useradd"; exit 77; }
    useradd -M -s /bin/sh "$user" || { echo "useradd failed"; exit 77; }
fi
if command -v runuser > /dev/null; then as_user_cmd=(runuser -u "$user" --)
elif command -v setpriv > /dev/null; then as_user_cmd=(setpriv --reuid="$user" --regid="$user" --init-groups --)
else echo "no runuser or setpriv"; exit 77; fi
as_user() { "${as_user_cmd[@]}" "$@"; }
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2> /dev/null || echo 0)
[ "$paranoid" -le 2 ] && [ "$scope" -le 1 ] || { echo "perf_event_paranoid $paranoid, ptrace_scope $scope: not allowed here"; exit 77; }
# the user must reach the binaries and the fixtures
as_user test -x "$NODESCOPE" && as_user test -r "$FIX/spin.js" || { echo "$user cannot reach the build"; exit 77; }
work=$(mktemp -d /tmp/nodescope-nonroot.XXXXXX)
chmod 777 "$work"
node "$FIX/spin.js" 30000 & other=$!
yama=/proc/sys/kernel/yama/ptrace_scope
yama_saved=
restore_yama() { if [ -n "$yama_saved" ]; then echo "$yama_saved" > "$yama" || true; yama_saved=; fi; }
trap 'restore_yama; kill $other 2> /dev/null || true; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP
export ASAN_OPTIONS UBSAN_OPTIONS

three_censuses() {   # a watch --heap --json report of 3 censuses of a heap with JS objects; how copied ($2)
    node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        if (r.censuses.length !== 3 || r.read !== "snapshot" || !r.censuses.every(c => c.js_objects > 1000)) process.exit(1);
        console.log(`copy: ${r.copy}${r.copy_why ? " (" + r.copy_why + ")" : ""}`);
        if (process.argv[2] && r.copy !== process.argv[2]) process.exit(1)' "$1" "${2:-}"
}

# own process: record -p (ptrace_scope 1: the user's shell starts node and nodescope is not its
# ancestor, so only scope 0 allows it; record -- CMD is the way then)
cat > "$work/own.sh" <<EOS
set -e
cd "$work"
node "$FIX/spin.js" 60000 & p=\$!
sleep 0.5
rc=0
if [ "$scope" -eq 0 ]; then
    "$NODESCOPE" record -p \$p -d 1 -o own.folded 2> own.err || rc=1
    "$NODESCOPE" core --pid \$p stack > stack.txt 2> stack.err || rc=1
    "$NODESCOPE" watch -p \$p --heap --every 1s --censuses 3 --json > watch.json 2> watch.err || rc=1
else
    "$NODESCOPE" record -d 1 -o own.folded -- node "$FIX/spin.js" 3000 2> own.err || rc=1
    "$NODESCOPE" core --pid \$p stack > stack.txt 2> stack.err || true
fi
kill \$p || true
exit \$rc
EOS
as_user sh "$work/own.sh" || { cat "$work/own.err" "$work/stack.err" 2> /dev/null; fail "own process: exit $?"; }
grep -q spinHot "$work/own.folded" || { cat "$work/own.err"; fail "record -p of its own process: spinHot not named"; }
if [ "$scope" -eq 0 ]; then
    grep -q 'spinHot' "$work/stack.txt" || { cat "$work/stack.err"; fail "core --pid stack of its own process"; }
    three_censuses "$work/watch.json" tracked || { cat "$work/watch.err"; fail "watch --heap of its own process"; }
fi

# another user's process: refused with the cause and the fix
set +e
as_user "$NODESCOPE" record -p $other -d 1 -o "$work/other.folded" > "$work/r.err" 2>&1; rc=$?
set -e
[ $rc -eq 1 ] || { cat "$work/r.err"; fail "record -p of root's process: exit $rc"; }
grep -q "error: process $other belongs to uid 0" "$work/r.err" && grep -q "hint:.*setcap cap_perfmon,cap_sys_ptrace+ep" "$work/r.err" ||
    { cat "$work/r.err"; fail "record -p of root's process: the message lacks the cause or the fix"; }
set +e
as_user "$NODESCOPE" core --pid $other stack > "$work/c.err" 2>&1; rc=$?
set -e
[ $rc -eq 1 ] || { cat "$work/c.err"; fail "core --pid of root's process: exit $rc"; }
grep -q "error:" "$work/c.err" && grep -q "hint:.*uid 0" "$work/c.err" || { cat "$work/c.err"; fail "core --pid of root's process: no cause"; }
set +e
as_user "$NODESCOPE" watch -p $other --heap -d 1 > "$work/w.err" 2>&1; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "error:" "$work/w.err" && grep -q "hint:.*uid 0" "$work/w.err" ||
    { cat "$work/w.err"; fail "watch --heap of root's process: exit $rc, or no cause"; }
kill -0 $other || fail "root's process did not survive"
grep -q '^State:.*[RS]' /proc/$other/status || fail "root's process left $(grep State /proc/$other/status)"
cat "$work/r.err"

untouched() {   # running, not stopped, not traced
    local st tr
    st=$(sed -n 's/^State:\t\(.\).*/\1/p' "/proc/$1/status" 2> /dev/null)
    tr=$(sed -n 's/^TracerPid:\t//p' "/proc/$1/status" 2> /dev/null)
    [ -n "$st" ] && [ "$st" != T ] && [ "$st" != t ] && [ "$st" != Z ] && [ "$tr" = 0 ]
}

# the capabilities of the docs' setcap line, on a copy of the binary
capped=
if ! command -v setcap > /dev/null; then
    echo "no setcap (libcap2-bin): file capabilities not tested"
elif findmnt -no OPTIONS -T "$work" 2> /dev/null | grep -qw nosuid; then
    echo "$work is on a nosuid mount: file capabilities not tested"
else
    cp "$NODESCOPE" "$work/nodescope-cap"
    chmod 755 "$work/nodescope-cap"
    setcap cap_perfmon,cap_sys_ptrace+ep "$work/nodescope-cap" || fail "setcap failed"
    capped=$work/nodescope-cap
    timeout 120 "${as_user_cmd[@]}" "$capped" record -p $other -d 1 -o "$work/cap.folded" 2> "$work/cap.err" ||
        { cat "$work/cap.err"; fail "record -p of root's process with the capabilities: exit $?"; }
    grep -q spinHot "$work/cap.folded" || { cat "$work/cap.err"; fail "record -p with the capabilities: spinHot not named"; }
    timeout 120 "${as_user_cmd[@]}" "$capped" core --pid $other stack > "$work/cap.txt" 2> "$work/cap.err" ||
        { cat "$work/cap.err"; fail "core --pid of root's process with the capabilities: exit $?"; }
    grep -q spinHot "$work/cap.txt" || { cat "$work/cap.txt" "$work/cap.err"; fail "core --pid stack with the capabilities: no spinHot"; }
    timeout 120 "${as_user_cmd[@]}" "$capped" watch -p $other --heap --every 1s --censuses 3 --json > "$work/capw.json" 2> "$work/cap.err" ||
        { cat "$work/cap.err"; fail "watch --heap of root's process with the capabilities: exit $?"; }
    three_censuses "$work/capw.json" || { cat "$work/cap.err"; fail "watch --heap with the capabilities: not 3 censuses"; }
    untouched $other || fail "root's process left stopped or traced after the capable copy's attaches"
    left_clean $other "the capable copy's watch"
    echo "with cap_perfmon,cap_sys_ptrace+ep: root's process recorded, its stack printed and its heap watched"
fi

# Yama: the user's own process, started by its shell, not by nodescope
if [ ! -e "$yama" ]; then
    echo "no Yama on this kernel ($yama missing): ptrace_scope not tested"
elif [ ! -w "$yama" ]; then
    echo "$yama not writable here: ptrace_scope not tested"
else
    yama_saved=$(cat "$yama")
    for s in 1 2; do
        echo "$s" > "$yama" || { echo "cannot set ptrace_scope $s: not tested"; break; }
        cat > "$work/yama.sh" <<EOS
cd "$work"
node "$FIX/spin.js" 3000 & p=\$!
sleep 0.5
"$NODESCOPE" record -p \$p -d 1 -o y.folded > y.rec 2>&1; echo "record \$?" > y.rc
"$NODESCOPE" core --pid \$p stack > y.core 2>&1; echo "core \$?" >> y.rc
if [ -n "$capped" ]; then "$capped" record -p \$p -d 1 -o ycap.folded > ycap.err 2>&1; echo "capped \$?" >> y.rc; fi
kill \$p
EOS
        timeout 120 "${as_user_cmd[@]}" sh "$work/yama.sh" || true
        grep -q "^record 1$" "$work/y.rc" || { cat "$work/y.rc" "$work/y.rec"; restore_yama; fail "ptrace_scope $s: record -p of an own process not refused"; }
        grep -q "error: kernel.yama.ptrace_scope is $s" "$work/y.rec" && grep -q "hint:.*setcap cap_perfmon,cap_sys_ptrace+ep" "$work/y.rec" ||
            { cat "$work/y.rec"; restore_yama; fail "ptrace_scope $s: record's refusal lacks the setting or the fix"; }
        grep -q "^core 1$" "$work/y.rc" && grep -q "kernel.yama.ptrace_scope is $s" "$work/y.core" ||
            { cat "$work/y.rc" "$work/y.core"; restore_yama; fail "ptrace_scope $s: core --pid's refusal lacks the setting"; }
        if [ -n "$capped" ]; then
            grep -q "^capped 0$" "$work/y.rc" && grep -q spinHot "$work/ycap.folded" ||
                { cat "$work/y.rc" "$work/ycap.err"; restore_yama; fail "ptrace_scope $s: the capable copy did not record"; }
        fi
        echo "ptrace_scope $s: refused as expected$([ -n "$capped" ] && echo ", recorded with the capabilities"): $(grep error: "$work/y.rec")"
    done
    restore_yama
fi
echo ok
