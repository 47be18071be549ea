#!/usr/bin/env bash
# Without root, where the kernel allows it (perf_event_paranoid <= 2, Yama ptrace_scope <= 1):
# as an unprivileged user (nodescope-user, created with useradd when missing), nodescope
#  - records its own node process with record -p (its JS function named);
#  - prints its own process's stack with core --pid stack;
#  - refuses another user's process (root's) with a message naming the cause and a hint with
#    the fix (setcap), for record -p and core --pid, exit 1, the process left running.
# Skips (77) only when no unprivileged user can be had (not root, no useradd/runuser/setpriv).
set -euo pipefail
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
if command -v runuser > /dev/null; then as_user() { runuser -u "$user" -- "$@"; }
elif command -v setpriv > /dev/null; then as_user() { setpriv --reuid="$user" --regid="$user" --init-groups -- "$@"; }
else echo "no runuser or setpriv"; exit 77; fi
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2> /dev/null || echo 0)
[ "$paranoid" -le 2 ] && [ "$scope" -le 1 ] || { echo "perf_event_paranoid $paranoid, ptrace_scope $scope: not allowed here"; exit 77; }
# the user must reach the binaries and the fixtures
as_user test -x "$NODESCOPE" && as_user test -r "$FIX/spin.js" || { echo "$user cannot reach the build"; exit 77; }
work=$(mktemp -d /tmp/nodescope-nonroot.XXXXXX)
chmod 777 "$work"
node "$FIX/spin.js" 20000 & other=$!
trap 'kill $other 2> /dev/null || true; rm -rf "$work"' EXIT
export ASAN_OPTIONS UBSAN_OPTIONS

# own process: record -p (ptrace_scope 1: the user's shell starts node and nodescope is not its
# ancestor, so only scope 0 allows it; record -- CMD is the way then)
cat > "$work/own.sh" <<EOS
set -e
cd "$work"
node "$FIX/spin.js" 4000 & p=\$!
sleep 0.5
rc=0
if [ "$scope" -eq 0 ]; then
    "$NODESCOPE" record -p \$p -d 1 -o own.folded 2> own.err || rc=1
    "$NODESCOPE" core --pid \$p stack > stack.txt 2> stack.err || rc=1
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
kill -0 $other || fail "root's process did not survive"
grep -q '^State:.*[RS]' /proc/$other/status || fail "root's process left $(grep State /proc/$other/status)"
cat "$work/r.err"
echo ok
