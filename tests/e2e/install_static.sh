#!/bin/bash
# The static binary (make static: build/static/nodescope) alone, as it runs when copied into a
# container: a root directory holding only it, /proc bound in and an empty /tmp (unshare -m,
# chroot), reading a node that runs outside it, whose files it can reach only through
# /proc/PID/root (docs/install.md):
#  - `file` (or readelf) says it is static, and --version says what it has and lacks;
#  - record -p PID of tests/fixtures/live/inlined_shares.js names hot() and warm(), inlined into
#    loop() by TurboFan, under loop() in every sample of loop();
#  - core --pid PID stack --json of tests/fixtures/core/stack_truth.js (blocked reading a FIFO) is
#    the fixture's own `new Error().stack` (compare_stack.js, as core_js_stack.sh), and the text
#    output has the native frames named through CFI and the target's own symbols (libc's open,
#    node's uv__fs_work and uv_fs_open), the very lines the normal build prints;
#  - gcore PID in the empty root, then core FILE --root /proc/PID/root stack --json: the same truth.
# Skips unless root (unshare, mount, chroot) and without the static binary or a Node build.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
FIX=$TEST_ROOT/tests/fixtures
STATIC=$TEST_ROOT/build/static/nodescope
[ "$(id -u)" = 0 ] || skip "needs root (unshare -m, mount, chroot)"
for c in unshare chroot mount; do command -v $c > /dev/null || skip "no $c"; done
[ -x "$STATIC" ] || skip "no $STATIC (make static)"
v=
for m in 22 24 20 26 18 25; do [ -x "$(node_bin $m)" ] && { v=$m; break; }; done
[ -n "$v" ] || skip "no Node build (scripts/setup.sh)"
NODE=$(node_bin $v)
fail_context() { echo "node $v, static binary in an empty root"; }
test_dir install_static
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$dir"' EXIT

root=$dir/root
mkdir -p "$root/proc" "$root/tmp"
cp "$STATIC" "$root/nodescope"
[ "$(ls "$root" | tr '\n' ' ')" = "nodescope proc tmp " ] || fail "the root holds more than the binary"
if command -v file > /dev/null; then
    file "$root/nodescope" | grep -q "statically linked" || fail "not static: $(file "$root/nodescope")"
elif readelf -l "$root/nodescope" | grep -q INTERP; then fail "not static: it has a program interpreter"; fi
# ns ARGS: the static binary in the empty root, whose only view of the machine is /proc (a
# script, not a function: timeout runs it)
ns=$dir/ns
printf '#!/bin/sh\nexec unshare -m --propagation private sh -c '"'"'mount --bind /proc "$0/proc" && exec chroot "$0" /nodescope "$@"'"'"' "%s" "$@"\n' "$root" > "$ns"
chmod +x "$ns"
"$ns" --version > "$dir/version.txt" || fail "--version exited $?"
grep -q "^build: static" "$dir/version.txt" && grep -q "lacks libdebuginfod" "$dir/version.txt" ||
    { cat "$dir/version.txt"; fail "--version does not say what the static build has and lacks"; }
say "$(sed -n 2p "$dir/version.txt")"
# no shared library is ever opened, even where libdebuginfod is installed and DEBUGINFOD_URLS set
# (libdw's own client would dlopen it: the static link wraps dlopen)
if command -v strace > /dev/null; then
    DEBUGINFOD_URLS=http://127.0.0.1:9 strace -f -e trace=openat -o "$dir/strace.txt" "$STATIC" --version > /dev/null ||
        fail "--version with DEBUGINFOD_URLS exited $?"
    grep '\.so' "$dir/strace.txt" && fail "the static binary opened a shared library"
fi

# record -p: hot() and warm() inlined into loop(), named under it
"$NODE" "$FIX/live/inlined_shares.js" 120 > /dev/null & pid=$!
for _ in $(seq 50); do grep -q inlined_shares "/proc/$pid/cmdline" 2> /dev/null && break; sleep 0.1; done
sleep 1   # loop() optimized, hot() and warm() inlined into it
timeout 60 "$ns" record -p "$pid" -d 2 -o /tmp/rec.folded 2> "$dir/rec.err" || { cat "$dir/rec.err"; fail "record -p exited $?"; }
kill "$pid"; wait "$pid" 2> /dev/null; pid=
read -r loop hot warm < <(awk '/;loop [^;]*inlined_shares\.js/ { l += $NF
    if ($0 ~ /;loop [^;]*inlined_shares\.js[^;]*;hot [^;]*inlined_shares\.js/) h += $NF
    if ($0 ~ /;loop [^;]*inlined_shares\.js[^;]*;warm [^;]*inlined_shares\.js/) w += $NF }
    END { print l + 0, h + 0, w + 0 }' "$root/tmp/rec.folded")
say "record -p: $loop samples in loop(): hot() $hot, warm() $warm"
[ "$loop" -ge 10 ] && [ "$hot" -gt 0 ] && [ "$warm" -gt 0 ] && [ $(((hot + warm) * 100)) -ge $((loop * 95)) ] ||
    { head -c 3000 "$root/tmp/rec.folded"; cat "$dir/rec.err"; fail "hot() and warm() not named under loop() ($hot + $warm of $loop)"; }

# core --pid: the JavaScript stack as the program printed it, native frames as the normal build names them
w=$dir/stack
mkdir -p "$w"
mkfifo "$w/fifo"
"$NODE" "$FIX/core/stack_truth.js" "$w/fifo" "$w/truth.json" & pid=$!
for _ in $(seq 100); do [ -s "$w/truth.json" ] && break; sleep 0.1; done
[ -s "$w/truth.json" ] || fail "stack_truth.js never got ready"
sleep 0.3   # let it reach the blocking read
timeout 60 "$ns" core --pid "$pid" stack --json > "$w/pid.json" 2> "$w/pid.err" || { cat "$w/pid.err"; fail "core --pid stack --json exited $?"; }
node "$FIX/core/compare_stack.js" "$w/truth.json" "$w/pid.json" "$FIX/core/stack_truth.js" || fail "core --pid stack differs from Error().stack"
timeout 60 "$ns" core --pid "$pid" stack > "$w/pid.txt" 2> "$w/pid.err" || { cat "$w/pid.err"; fail "core --pid stack exited $?"; }
# libc's open (the FIFO's) has no frame pointer: the frames below it come from its CFI; uv__fs_work is static
# in node, named from node's .symtab, read through /proc/PID/root (the root has no other way)
grep -A2 -m1 '^native: .*(libc\.so\.6)$' "$w/pid.txt" | tr '\n' ' ' | grep -q ' native: uv__fs_work+.* native: uv_fs_open+' ||
    { head -20 "$w/pid.txt"; fail "no libc (open) -> uv__fs_work -> uv_fs_open frames"; }
if [ -x "${NODESCOPE_RELEASE:-}" ]; then
    timeout 60 "$NODESCOPE_RELEASE" core --pid "$pid" stack > "$w/release.txt" 2> /dev/null || fail "the normal build's core --pid stack exited $?"
    diff "$w/release.txt" "$w/pid.txt" > "$w/diff.txt" || { head -20 "$w/diff.txt"; fail "the static binary's stack differs from the normal build's"; }
    say "core --pid stack: $(grep -c '^native:' "$w/pid.txt") native and $(grep -c '^js:' "$w/pid.txt") JS frames, as the normal build prints them"
fi

# gcore in the empty root, read back with --root /proc/PID/root
timeout 60 "$ns" gcore "$pid" -o /tmp/node.core > /dev/null 2> "$w/gcore.err" || { cat "$w/gcore.err"; fail "gcore exited $?"; }
timeout 60 "$ns" core /tmp/node.core --root "/proc/$pid/root" stack --json > "$w/core.json" 2> "$w/core.err" || { cat "$w/core.err"; fail "core FILE --root stack exited $?"; }
node "$FIX/core/compare_stack.js" "$w/truth.json" "$w/core.json" "$FIX/core/stack_truth.js" || fail "core FILE --root stack differs from Error().stack"
say "gcore and core --root: $(du -m "$root/tmp/node.core" | cut -f1) MB core, stack as Error().stack"
kill "$pid"; wait "$pid" 2> /dev/null; pid=
echo ok
