#!/usr/bin/env bash
# Capabilities for a group, not for everyone (docs/security.md). As root, with three users made
# here (a member of a group made here, a user not in it, and the owner of a node process):
#  - make install-caps (DESTDIR, PREFIX, GROUP; CAPS_BIN: the test build) installs nodescope
#    root's, group GROUP, mode 0750, with cap_perfmon and cap_sys_ptrace;
#  - the user not in the group cannot run it (exit 126);
#  - the member reads the owner's process: core --pid stack and record -p name its JS function,
#    gcore writes its core, core --pid heapsnapshot its heap;
#  - NODESCOPE_GRAPH_STATS, which prints the heap graph's counts when root runs the same binary,
#    does nothing for the member;
#  - a path the member names is opened with the member's own rights: --root /proc/1/root and
#    /proc/OWNER/root, --node and convert's input reached through /proc/OWNER/cwd (a directory only
#    the owner can reach), -o into that directory and into one only the owner writes: each fails
#    with an 'error:' naming it and a non-zero exit, and nothing is written; --root / works;
#  - the owner's process is left running, untraced, with no copy left.
# The users, the group and the process are removed on every exit path. Skips (77) when not root,
# without useradd/groupadd/runuser/setcap, where file capabilities cannot apply (a nosuid /tmp),
# or where Yama's ptrace_scope is 3.
set -euo pipefail
. "$(dirname "$0")/../lib/test-lib.sh"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot make users"
for c in useradd userdel groupadd groupdel runuser setcap getcap; do
    command -v $c > /dev/null || skip "no $c"
done
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2> /dev/null || echo 0)
[ "$scope" -le 2 ] || skip "kernel.yama.ptrace_scope is $scope: no process may be read"
node=$(command -v node)

# names of this run's own: another run beside it makes its own
group=nsc-g$$ member=nsc-m$$ other=nsc-n$$ owner=nsc-o$$
work=$(mktemp -d /tmp/nodescope-caps.XXXXXX)
made_users=() made_group= target= runner=
cleanup() {
    if [ -n "$target" ]; then kill "$target" 2> /dev/null || true; fi
    if [ -n "$runner" ]; then wait "$runner" 2> /dev/null || true; fi
    for u in "${made_users[@]}"; do userdel "$u" 2> /dev/null || true; done
    if [ -n "$made_group" ]; then groupdel "$group" 2> /dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
chmod 755 "$work"
findmnt -no OPTIONS -T "$work" 2> /dev/null | grep -qw nosuid && skip "$work is on a nosuid mount: file capabilities do not apply"

groupadd "$group" || skip "groupadd failed"
made_group=1
for u in "$member" "$other" "$owner"; do
    extra=()
    [ "$u" = "$member" ] && extra=(-G "$group")
    useradd -M -s /bin/sh "${extra[@]}" "$u" || skip "useradd $u failed"
    made_users+=("$u")
done
as() { local u=$1; shift; runuser -u "$u" -- "$@"; }
export ASAN_OPTIONS UBSAN_OPTIONS

# the install
make -s -C "$TEST_ROOT" install-caps DESTDIR="$work/dest" PREFIX=/usr GROUP="$group" CAPS_BIN="$NODESCOPE" \
    > "$work/install.out" 2>&1 || { rc=$?; cat "$work/install.out"; fail "make install-caps: exit $rc"; }
bin=$work/dest/usr/bin/nodescope
[ "$(stat -c '%U %G %a' "$bin")" = "root $group 750" ] || fail "installed as $(stat -c '%U %G %a' "$bin")"
caps=$(getcap "$bin")
[[ "$caps" == *cap_perfmon* && "$caps" == *cap_sys_ptrace* && "$caps" == *=ep ]] || fail "capabilities: '$caps'"
grep -q "usermod -aG $group" "$work/install.out" || { cat "$work/install.out"; fail "install-caps does not say how to add a user"; }
say "installed: $(stat -c '%U:%G %a' "$bin"), $caps"

# the owner's process, run from a directory only the owner can reach: $work/private (0700)/open (0777)
mkdir -p "$work/private/open" "$work/ownerdir" "$work/m"
chown "$owner" "$work/private" "$work/private/open" "$work/ownerdir"
chown "$member" "$work/m"
chmod 700 "$work/private" "$work/m"
chmod 777 "$work/private/open"
chmod 755 "$work/ownerdir"
open=$work/private/open
cat > "$open/target.js" << 'EOS'
function spinHot(ms) { const end = Date.now() + ms; let s = 0; while (Date.now() < end) for (let i = 0; i < 1000; i++) s += Math.sqrt(i); return s; }
require('fs').writeFileSync(process.argv[2], String(process.pid));
for (;;) spinHot(1000);
EOS
printf 'main;secret 1\n' > "$open/secret.folded"
printf 'not a node binary\n' > "$open/node"
chmod 644 "$open/target.js" "$open/secret.folded" "$open/node"
(cd "$open" && exec runuser -u "$owner" -- "$node" target.js "$open/pid") &
runner=$!
for _ in $(seq 600); do [ -s "$open/pid" ] && break; kill -0 $runner 2> /dev/null || break; sleep 0.05; done
[ -s "$open/pid" ] || fail "the owner's node process did not start"
target=$(cat "$open/pid")
cd "$work"

# not a member: cannot run it
set +e
as "$other" sh -c 'exec "$0" --version' "$bin" > "$work/other.err" 2>&1; rc=$?   # sh: 126 when exec is refused
set -e
[ $rc -eq 126 ] && grep -q "Permission denied" "$work/other.err" || { cat "$work/other.err"; fail "a user not in the group ran it: exit $rc"; }
say "not in the group: exit $rc, $(head -1 "$work/other.err")"

# a member: reads the owner's process
as "$member" "$bin" core --pid "$target" stack > "$work/m.stack" 2> "$work/m.err" ||
    { rc=$?; cat "$work/m.err"; fail "member: core --pid of another user's process: exit $rc"; }
grep -q spinHot "$work/m.stack" || { cat "$work/m.stack" "$work/m.err"; fail "member: core --pid stack does not name spinHot"; }
set +e
as "$member" "$bin" record -p "$target" -d 1 -o "$work/m/rec.folded" > /dev/null 2> "$work/m.err"; rc=$?
set -e
skip_unless_perf_events $rc "$work/m.err"
[ $rc -eq 0 ] && grep -q spinHot "$work/m/rec.folded" ||
    { cat "$work/m.err"; fail "member: record -p of another user's process: exit $rc, or spinHot not named"; }
as "$member" "$bin" gcore "$target" -o "$work/m/target.core" > /dev/null 2> "$work/m.err" ||
    { rc=$?; cat "$work/m.err"; fail "member: gcore of another user's process: exit $rc"; }
[ "$(stat -c %U "$work/m/target.core")" = "$member" ] || fail "the core is not the member's"
say "member: core --pid stack and record -p name spinHot; gcore wrote $(stat -c '%s bytes, owned by %U' "$work/m/target.core")"

# NODESCOPE_GRAPH_STATS: root running the same binary sees the graph's counts, the member not
NODESCOPE_GRAPH_STATS=1 "$bin" core --pid "$target" heapsnapshot -o "$work/root.heapsnapshot" 2> "$work/root.err" ||
    { rc=$?; cat "$work/root.err"; fail "root: core --pid heapsnapshot: exit $rc"; }
grep -q '^graph: [0-9]* nodes' "$work/root.err" || { cat "$work/root.err"; fail "root: NODESCOPE_GRAPH_STATS printed nothing"; }
as "$member" env NODESCOPE_GRAPH_STATS=1 "$bin" core --pid "$target" heapsnapshot -o "$work/m/x.heapsnapshot" \
    2> "$work/m.err" || { rc=$?; cat "$work/m.err"; fail "member: core --pid heapsnapshot: exit $rc"; }
[ -s "$work/m/x.heapsnapshot" ] || fail "member: no heap snapshot written"
! grep -q '^graph: ' "$work/m.err" || { cat "$work/m.err"; fail "member: NODESCOPE_GRAPH_STATS took effect"; }
say "NODESCOPE_GRAPH_STATS: root $(grep -m1 '^graph: ' "$work/root.err"), member nothing"

refused() {   # WHAT PATH CMD...: the member's CMD exits non-zero, an "error:" line naming PATH
    local what=$1 pattern=$2 rc
    shift 2
    set +e
    as "$member" "$@" > "$work/r.out" 2> "$work/r.err"
    rc=$?
    set -e
    [ $rc -ne 0 ] && grep "error:" "$work/r.err" | grep -qF -- "$pattern" ||
        { cat "$work/r.err"; fail "member: $what: exit $rc, or no error naming '$pattern'"; }
    say "refused, $what: $(grep -m1 'error:' "$work/r.err")"
}
refused "--root /proc/1/root" "--root /proc/1/root" "$bin" core "$work/m/target.core" --root /proc/1/root stack
refused "--root of the owner's process" "--root /proc/$target/root" \
    "$bin" core "$work/m/target.core" --root "/proc/$target/root" stack
refused "--node through the owner's cwd" "--node /proc/$target/cwd/node" \
    "$bin" core "$work/m/target.core" --node "/proc/$target/cwd/node" stack
refused "convert's input through the owner's cwd" "/proc/$target/cwd/secret.folded" \
    "$bin" convert "/proc/$target/cwd/secret.folded" -o "$work/m/secret.svg"
[ ! -e "$work/m/secret.svg" ] || fail "member: convert read a file only the owner can reach"
refused "-o into the owner's cwd" "/proc/$target/cwd/leak.core" "$bin" gcore "$target" -o "/proc/$target/cwd/leak.core"
refused "-o into a directory the member cannot write" "$work/ownerdir/x.heapsnapshot" \
    "$bin" core --pid "$target" heapsnapshot -o "$work/ownerdir/x.heapsnapshot"
[ -z "$(ls "$open" | grep -v '^\(target.js\|pid\|secret.folded\|node\)$')" ] || fail "written into the owner's directory: $(ls "$open")"
[ -z "$(ls "$work/ownerdir")" ] || fail "written into the owner's directory: $(ls "$work/ownerdir")"
# a root the member can read is taken
# (no --node: the member's gcore holds NT_AUXV, read from the copy's stack where /proc/COPY/auxv,
# mode 0400, cannot be opened, and the executable is found by it)
readelf -n "$work/m/target.core" | grep -q NT_AUXV || fail "member: the gcore'd core has no NT_AUXV note"
as "$member" "$bin" core "$work/m/target.core" --root / stack > "$work/m.stack" 2> "$work/m.err" ||
    { rc=$?; cat "$work/m.err"; fail "member: core FILE --root /: exit $rc"; }
grep -q spinHot "$work/m.stack" || { cat "$work/m.stack" "$work/m.err"; fail "member: core FILE --root / stack does not name spinHot"; }
say "member: core FILE --root / stack names spinHot"

left_clean "$target" "the member's reads"
echo ok
