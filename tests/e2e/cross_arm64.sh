#!/bin/bash
# nodescope for arm64 (issues 44, 46): `make CROSS=aarch64-linux-gnu- CROSS_GOALS=static` makes
# build/aarch64/build/static/nodescope, an aarch64 binary with no runtime dependency (file(1):
# "ARM aarch64 ... statically linked"), which runs under qemu-aarch64 as it would on a Graviton
# machine: its --version says a static build; reading gcore'd cores of the official x64 node 24
# and 22 (stack_truth.js, heap_objects.js), `stack`, `stack --json`, `objects --json` and `print`
# print byte for byte what the host's own binary prints, and so on an aarch64 core of the official
# arm64 node 22 (written by qemu-aarch64), read where it was made. `make npm` then packs
# @nodescope/linux-arm64 beside linux-x64, listed in the launcher's optionalDependencies.
# Skips without Debian's gcc-aarch64-linux-gnu, qemu-user and the :arm64 static libraries
# (scripts/setup.sh --arm64).
set -u
. "$(dirname "$0")/../lib/core_fixture.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
command -v aarch64-linux-gnu-gcc > /dev/null || skip "no aarch64-linux-gnu-gcc (scripts/setup.sh --arm64)"
command -v qemu-aarch64 > /dev/null || skip "no qemu-aarch64 (Debian: qemu-user)"
[ -e /usr/lib/aarch64-linux-gnu/libdw.a ] && [ -e /usr/lib/aarch64-linux-gnu/libbz2.a ] ||
    skip "no arm64 static libraries (scripts/setup.sh --arm64)"
core_setup cross_arm64
cd "$TEST_ROOT"
make CROSS=aarch64-linux-gnu- CROSS_GOALS=static -j2 > "$dir/make.log" 2>&1 || { tail -20 "$dir/make.log"; fail "the cross build failed"; }
a64=$TEST_ROOT/build/aarch64/build/static/nodescope
file "$a64" | grep -q 'ARM aarch64.*statically linked' || fail "not a static aarch64 binary: $(file "$a64")"
qemu-aarch64 "$a64" --version > "$dir/version" 2>&1 || { cat "$dir/version"; fail "--version under qemu-aarch64 exited $?"; }
grep -q '^build: static' "$dir/version" || fail "--version: $(cat "$dir/version")"
say "$(du -k "$a64" | cut -f1) KiB, $(sed -n 2p "$dir/version" | cut -c1-60)..."
host=$NODESCOPE_RELEASE
same() {   # WHAT ARGS...: the aarch64 binary's output (stdout and exit status) is the host's
    local what=$1 rc1 rc2; shift
    "$host" "$@" > "$dir/host.out" 2> /dev/null; rc1=$?
    qemu-aarch64 "$a64" "$@" > "$dir/a64.out" 2> "$dir/a64.err"; rc2=$?
    [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s "$dir/host.out" "$dir/a64.out" ||
        { cat "$dir/a64.err"; diff "$dir/host.out" "$dir/a64.out" | head; fail "$what: exit $rc1 here, $rc2 under qemu-aarch64, or the outputs differ"; }
}
fail_context() { echo "node $v"; }
tested=0
for v in $(node_majors 24 22); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || continue
    w=$dir/$v
    core_gcore "$w/s" "$NODE" "$FIX/stack_truth.js" "$w/s/fifo" "$w/s/truth.json"
    same "stack" core "$core" --node "$NODE" stack
    same "stack --json" core "$core" --node "$NODE" stack --json
    core_gcore "$w/o" "$NODE" --expose-gc "$FIX/heap_objects.js" "$w/o/fifo" "$w/o/truth.json"
    same "objects --json" core "$core" --node "$NODE" objects --json
    same "print" core "$core" --node "$NODE" print globalThis.keep
    say "node $v: stack, stack --json, objects --json, print: the same under qemu-aarch64"
    tested=$((tested + 1))
done
[ $tested -gt 0 ] || skip "no Node 24 or 22"
# the binary a Graviton user installs reads the core where it was made: an aarch64 core of the
# official arm64 node 22 (qemu-aarch64, crash_truth.js), read by both binaries with the arm64 node
# and Debian's arm64 libc (--root): the same stack, stack --json, objects --json and print --json
. "$HERE/../lib/qemu_core.sh"
v=22
A64_NODE=$TEST_ROOT/tests/.cache/node-arm64/$v/bin/node
if [ -x "$A64_NODE" ] && [ -d /usr/aarch64-linux-gnu/lib ]; then
    w=$dir/a64-$v
    qemu_core "$w" aarch64 "$A64_NODE" --abort-on-uncaught-exception "$HERE/../fixtures/core/crash_truth.js" "$w"
    [ -n "$qcore" ] || fail "qemu-aarch64 wrote no core"
    ro=(--node "$A64_NODE" --root /usr/aarch64-linux-gnu)
    same "stack of an aarch64 core" core "$qcore" "${ro[@]}" stack
    same "stack --json of an aarch64 core" core "$qcore" "${ro[@]}" stack --json
    same "objects --json of an aarch64 core" core "$qcore" "${ro[@]}" objects --json
    same "print --json of an aarch64 core" core "$qcore" "${ro[@]}" print --json globalThis.planted
    rm -f "$qcore"
    say "arm64 node $v's aarch64 core: stack, stack --json, objects --json, print --json: the same under qemu-aarch64"
else
    say "no arm64 node $v or /usr/aarch64-linux-gnu (libc6-arm64-cross): its aarch64 core not tested"
fi
make npm > "$dir/npm.log" 2>&1 || { cat "$dir/npm.log"; fail "make npm"; }
[ -s build/npm/nodescope-linux-arm64-"$(sed -n 1p "$dir/version" | cut -d' ' -f2)".tgz ] || { cat "$dir/npm.log"; fail "make npm packed no arm64 package"; }
tar -xOzf build/npm/nodescope-"$(sed -n 1p "$dir/version" | cut -d' ' -f2)".tgz package/package.json | grep -q '"@nodescope/linux-arm64"' ||
    fail "the launcher does not list @nodescope/linux-arm64"
echo ok
