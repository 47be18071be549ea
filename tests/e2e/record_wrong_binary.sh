#!/bin/bash
# A recording that names no JavaScript says so and fails. The node binary a process runs was
# replaced on disk while it ran (an upgrade: its mappings say "node (deleted)", the path now holds
# another Node major), and /proc/PID/map_files, the way to the inode still mapped, is denied (it
# needs CAP_SYS_ADMIN: a non-root user's case; here a tmpfs over it in nodescope's own mount
# namespace). nodescope can only read the new file: it must warn naming it (build ids differ),
# `record -p` must say that its samples in JIT code name no JavaScript function, with that cause,
# and exit non-zero; `core --pid stack` and `top -p` too (top's --json has the counts). Without the
# mask, map_files gives the right binary.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
CACHE=$HERE/../.cache/node
[ "$(id -u)" = 0 ] || { echo "skip: needs root (a mount namespace for nodescope)"; exit 77; }
[ -x "$CACHE/22/bin/node" ] && [ -x "$CACHE/20/bin/node" ] || { echo "skip: needs Node 20 and 22 (run scripts/setup.sh)"; exit 77; }
dir=$TEST_TMP/record_wrong_binary; rm -rf "$dir"; mkdir -p "$dir/bin"
printf "leak:libdw.so\n" > "$dir/lsan.supp"
export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cp "$CACHE/22/bin/node" "$dir/bin/node"
"$dir/bin/node" "$FIX/container_hot.js" & pid=$!
sleep 1.5
cp "$CACHE/20/bin/node" "$dir/bin/node.new" && mv "$dir/bin/node.new" "$dir/bin/node"   # the upgrade
grep -q "bin/node (deleted)" "/proc/$pid/maps" || fail "the mapping does not say (deleted)"
masked() { unshare --mount --propagation private sh -c 'mount -t tmpfs none "/proc/$0/map_files" && exec "$@"' "$pid" "$@"; }

masked timeout 60 "$NODESCOPE" record -p "$pid" -d 2 -o "$dir/bad.folded" 2> "$dir/bad.err"; rc=$?
cat "$dir/bad.err"
[ $rc -ne 0 ] || fail "record -p of the wrong binary exited 0"
grep -q "warning: $dir/bin/node: build id .* differs" "$dir/bad.err" || fail "no warning naming the binary whose build id differs"
grep -q "error: none of the [0-9]* samples in V8's JIT code names a JavaScript function: $dir/bin/node has build id" "$dir/bad.err" ||
    fail "no error saying the samples in JIT code name no function, with the cause"

masked timeout 60 "$NODESCOPE" core --pid "$pid" stack > "$dir/stack.txt" 2> "$dir/stack.err"; rc=$?
cat "$dir/stack.err"
[ $rc -ne 0 ] || fail "core --pid stack of the wrong binary exited 0"
grep -q "error: .*$dir/bin/node has build id" "$dir/stack.err" || fail "core --pid: no error with the cause"

# top's JSON report carries the counts
masked timeout 60 "$NODESCOPE" top -p "$pid" --once -d 1 --json > "$dir/top.json" 2> "$dir/top.err"; rc=$?
[ $rc -ne 0 ] || fail "top -p of the wrong binary exited 0"
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (!(r.jitSamples > 0 && r.jitUnnamed === r.jitSamples)) { console.log(r); process.exit(1); }' "$dir/top.json" ||
    fail "top --json: jitSamples/jitUnnamed missing or wrong"

# the same process, map_files allowed: the inode still mapped is read, and all is well
timeout 60 "$NODESCOPE" record -p "$pid" -d 2 -o "$dir/good.folded" 2> "$dir/good.err" || { cat "$dir/good.err"; fail "record -p through map_files exited $?"; }
grep -q "warning" "$dir/good.err" && { cat "$dir/good.err"; fail "record -p through map_files warned"; }
grep -q ";hotFunction " "$dir/good.folded" || fail "record -p through map_files: no hotFunction"
timeout 60 "$NODESCOPE" top -p "$pid" --once -d 1 --json > "$dir/top.json" || fail "top -p through map_files exited $?"
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (!(r.jitSamples > 0 && r.jitUnnamed === 0)) { console.log(r); process.exit(1); }' "$dir/top.json" ||
    fail "top --json through map_files: jitSamples/jitUnnamed"
echo ok
