#!/bin/bash
# The node a distribution ships (issue 43): Debian 12's nodejs + libnode108 (18.20.4+dfsg), V8 in
# /usr/lib/x86_64-linux-gnu/libnode.so.108 (stripped of .symtab), /usr/bin/node 14 KB. Fetched by
# scripts/fetch-debian-node.sh (apt-get download, dpkg -x) into tests/.cache/debian-node/root and run
# as a container built from debian:12 runs it: in a mount namespace of its own (unshare -m) whose
# /usr is the packages' usr over the host's (overlayfs), so node finds libnode.so.108 and
# /usr/share/nodejs where Debian put them, and nodescope reads them through /proc/PID/root.
#  - record -p PID -d 2 on container_hot.js: hotFunction named in >= 90% of the main thread's samples,
#    none cut: from _start through Debian's libuv.so.1 (no frame pointers) to the JS;
#  - core --pid PID stack --json of stack_truth.js equals the program's own new Error().stack
#    (compare_stack.js), and so does `core FILE stack` of a `nodescope gcore` of it read with
#    --root (the namespace's root); its libnode frames are named from .dynsym, as gdb names them
#    (every libnode function name gdb's bt gives on the same core is in nodescope's frames); stack -v
#    says which build: "V8 10.2.154.26 from /usr/lib/x86_64-linux-gnu/libnode.so.108 (build id ...)";
#  - a kernel core (--abort-on-uncaught-exception) read with --root: stack equals new Error().stack,
#    exception prints the error thrown;
#  - record -p of inlined_shares.js: hot() and warm(), inlined into loop(), named under it (3:1);
#  - async --group finds async_world.js's 7 suspended getUser <- handle <- router;
#  - pending reads libuv's default loop (static in Debian's libuv.so.1);
#  - objects counts heap_objects.js's classes as the program made them (at most 2 over, as
#    core_objects), retainers finds a path to one of its PlainPoints;
#  - record -e gc counts GCs (uprobes in libnode.so.108); watch --on uncaught writes a core whose
#    `exception` is the error thrown; watch --on heap:99 learns the heap limit (node run in its
#    namespace);
#  - bad input: the core read without its libnode (--node only) or with another file in its place
#    says which library and exits 1.
# Skips when the packages cannot be fetched, or no mount namespace can be made here (not root).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
DEB=$TEST_ROOT/tests/.cache/debian-node/root
"$TEST_ROOT/scripts/fetch-debian-node.sh" > /dev/null 2>&1 || skip "Debian 12's nodejs and libnode108 could not be fetched"
FIX=$TEST_ROOT/tests/fixtures
test_dir distro_node
lsan_ignore_libdw
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done; [ -n "${KEEP_DIR:-}" ] || rm -rf "$dir"' EXIT

# in_ns CMD...: CMD in a new mount namespace whose /usr has Debian's packages over the host's; it
# replaces the shell it runs in (used in the background, or in a subshell): $! is CMD's pid
in_ns() {
    exec unshare -m sh -c 'mount -t overlay overlay -o "lowerdir=$0/usr:/usr" /usr && exec "$@"' "$DEB" "$@"
}
(in_ns /usr/bin/node -e 'process.exit(process.version === "v18.20.4" ? 0 : 1)' 2> /dev/null) ||
    skip "cannot run Debian's node in a mount namespace here (unshare -m and an overlay mount need root)"
# a process that keeps a namespace's root open for the cores read after their process is gone
in_ns sleep 600 & keeper=$!
disown "$keeper"
pids+=("$keeper")
sleep 0.2
ROOT=/proc/$keeper/root
[ -e "$ROOT/usr/lib/x86_64-linux-gnu/libnode.so.108" ] || fail "the namespace has no libnode.so.108"

# record -p: the hot function by name
in_ns /usr/bin/node "$FIX/live/container_hot.js" > /dev/null 2>&1 & pid=$!
pids+=("$pid")
sleep 1
timeout 60 "$NODESCOPE" record -p "$pid" -F 199 -d 2 -o "$dir/prof.folded" 2> "$dir/record.err"; rc=$?
skip_unless_perf_events $rc "$dir/record.err"
[ $rc -eq 0 ] || { cat "$dir/record.err"; fail "record -p exited $rc"; }
awk -v file="$FIX/live/container_hot.js" '
    /^node \[main\];/ { n = $NF; total += n; if (index($0, ";hotFunction " file ":")) hot += n }
    END { if (total < 30) { print "only " total " main-thread samples"; exit 1 }
          printf "record -p: %d main-thread samples, %.1f%% in hotFunction\n", total, 100 * hot / total
          exit !(100 * hot / total >= 90) }' "$dir/prof.folded" ||
    { head -c 3000 "$dir/prof.folded"; fail "record -p: hotFunction not in 90% of the main thread's samples"; }
# through Debian's libuv.so.1 (no frame pointers: CFI from the callback's return into it): not cut
grep -q '(outer frames' "$dir/prof.folded" && { grep -o '(outer frames[^;]*' "$dir/prof.folded" | sort | uniq -c; fail "record -p: stacks cut"; }
grep -q '^node \[main\];_start;__libc_start_main[^;]*;__libc_start_call_main;node::Start(int, char\*\*);.*;uv_run;.*;node::Environment::CheckImmediate' "$dir/prof.folded" ||
    fail "record -p: no stack from _start through uv_run to CheckImmediate"
kill "$pid"
wait "$pid" 2> /dev/null

# record -p with inlined frames: inlined_shares.js's hot() and warm(), which TurboFan inlines into
# loop(), 3:1 of its time
in_ns /usr/bin/node "$FIX/live/inlined_shares.js" 600 > /dev/null 2>&1 & ip=$!
pids+=("$ip")
sleep 1
timeout 60 "$NODESCOPE" record -p "$ip" -F 199 -d 2 -o "$dir/inl.folded" 2> "$dir/inl.err" || { cat "$dir/inl.err"; fail "record -p (inlined) exited $?"; }
awk -v file="$FIX/live/inlined_shares.js" '
    /^node \[main\];/ { n = $NF; total += n; if (index($0, ";loop " file ":")) { l += n; if (index($0, ";hot " file ":")) h += n; else if (index($0, ";warm " file ":")) w += n } }
    END { printf "record -p, inlined: %d main-thread samples, %.1f%% under loop, hot %.1f%% and warm %.1f%% of them\n", total, 100 * l / (total ? total : 1), 100 * h / (l ? l : 1), 100 * w / (l ? l : 1)
          exit !(total >= 30 && l >= 0.9 * total && h + w >= 0.9 * l && h > w) }' "$dir/inl.folded" ||
    fail "record -p: the inlined hot() and warm() not under loop()"
kill "$ip"

# async --group: async_world.js's K suspended async functions awaiting the same thing
K=7
mkfifo "$dir/afifo"
in_ns /usr/bin/node "$FIX/core/async_world.js" "$dir/afifo" "$dir/atruth.json" $K & ap=$!
pids+=("$ap")
for _ in $(seq 300); do [ -s "$dir/atruth.json" ] && break; sleep 0.1; done
[ -s "$dir/atruth.json" ] || fail "async_world.js never got ready"
timeout 60 "$NODESCOPE" core --pid "$ap" async --group --json > "$dir/group.json" 2> "$dir/group.err" || { cat "$dir/group.err"; fail "async --group exited $?"; }
node -e 'const g = JSON.parse(require("fs").readFileSync(process.argv[1])).groups.find((x) => /^await never in getUser \(.* ← handle \(.* ← router \(/.test(x.text));
         process.exit(g && g.count === +process.argv[2] ? 0 : 1)' "$dir/group.json" $K || fail "async --group: $(head -c 600 "$dir/group.json")"
say "async --group: $K suspended getUser <- handle <- router, as the program made them"
pkill -P "$ap"; kill "$ap"   # (and its execFile child)

in_ns /usr/bin/node "$FIX/live/shares.js" "$dir/stop" > "$dir/shares.out" 2>&1 & pid=$!
pids+=("$pid")
sleep 1
# record -e gc: uprobes in libnode.so.108
timeout 60 "$NODESCOPE" record -p "$pid" -e gc -d 2 --count > "$dir/gc.txt" 2> "$dir/gc.err" ||
    { cat "$dir/gc.err"; fail "record -e gc exited $?"; }
grep -q '^total .* events counted' "$dir/gc.txt" || { tail -5 "$dir/gc.txt"; fail "record -e gc counted no GC"; }
say "record -e gc: $(grep '^total' "$dir/gc.txt")"
# watch --on heap:N learns V8's heap limit by running the process's node in its mount namespace
if [ -r /sys/bus/event_source/devices/uprobe/type ]; then
    mkdir -p "$dir/hcores"
    timeout 4 "$NODESCOPE" watch -p "$pid" --on heap:99 -o "$dir/hcores" 2> "$dir/heap.err"
    grep -q 'heap limit [0-9]* MB' "$dir/heap.err" || { cat "$dir/heap.err"; fail "watch --on heap: no heap limit learnt"; }
    say "watch --on heap: $(grep -o 'heap limit [0-9]* MB' "$dir/heap.err")"
fi
touch "$dir/stop"
wait "$pid" 2> /dev/null

# objects and retainers on a known heap (heap_objects.js: its counts and v8.getHeapSnapshot()'s)
mkfifo "$dir/hfifo"
in_ns /usr/bin/node --expose-gc "$FIX/core/heap_objects.js" "$dir/hfifo" "$dir/htruth.json" & hp=$!
pids+=("$hp")
for _ in $(seq 300); do [ -s "$dir/htruth.json" ] && break; sleep 0.1; done
[ -s "$dir/htruth.json" ] || fail "heap_objects.js never got ready"
timeout 120 "$NODESCOPE" core --pid "$hp" objects --json > "$dir/objects.json" 2> "$dir/objects.err" ||
    { cat "$dir/objects.err"; fail "core --pid objects exited $?"; }
node -e '
    const fs = require("fs"), t = JSON.parse(fs.readFileSync(process.argv[1])), d = JSON.parse(fs.readFileSync(process.argv[2]));
    const bad = [];
    for (const [c, want] of Object.entries(t.N)) {
        const g = d.find((x) => x.name === c), got = g ? g.count : 0;
        /* (a stale copy a scavenge left beyond the young generation top: at most 2 over, as core_objects) */
        if (got < want || got > want + 2) bad.push(`${c} ${got}, the program made ${want}`);
    }
    console.log("objects: " + Object.keys(t.N).map((c) => c + " " + ((d.find((x) => x.name === c) || {}).count || 0)).join(", "));
    if (bad.length) { console.error(bad.join("; ")); process.exit(1); }' "$dir/htruth.json" "$dir/objects.json" ||
    fail "core --pid objects: counts differ from the program's"
first=$(timeout 60 "$NODESCOPE" core --pid "$hp" instances PlainPoint --limit 1 2> /dev/null | grep -o '^0x[0-9a-f]*' | head -1)
[ -n "$first" ] || fail "instances PlainPoint: none"
timeout 60 "$NODESCOPE" core --pid "$hp" retainers "$first" > "$dir/ret.txt" 2> "$dir/ret.err" || { cat "$dir/ret.err"; fail "retainers exited $?"; }
grep -q '^path 1 ' "$dir/ret.txt" && grep -q 'PlainPoint' "$dir/ret.txt" || { cat "$dir/ret.txt"; fail "retainers: no path to a PlainPoint"; }
say "retainers of $first: $(grep -c '^path ' "$dir/ret.txt") paths"
kill "$hp"

# core --pid, gcore, core FILE: against new Error().stack
mkfifo "$dir/fifo"
in_ns /usr/bin/node "$FIX/core/stack_truth.js" "$dir/fifo" "$dir/truth.json" & pid=$!
pids+=("$pid")
for _ in $(seq 100); do [ -s "$dir/truth.json" ] && break; sleep 0.1; done
[ -s "$dir/truth.json" ] || fail "stack_truth.js never got ready"
sleep 0.3
timeout 60 "$NODESCOPE" core --pid "$pid" stack --json > "$dir/pid.json" 2> "$dir/pid.err" ||
    { cat "$dir/pid.err"; fail "core --pid stack exited $?"; }
node "$FIX/core/compare_stack.js" "$dir/truth.json" "$dir/pid.json" "$FIX/core/stack_truth.js" ||
    fail "core --pid stack differs from new Error().stack"
# pending: libuv's default loop, in Debian's libuv.so.1 (static there: found from uv_default_loop's code)
timeout 60 "$NODESCOPE" core --pid "$pid" pending > "$dir/pending.txt" 2> "$dir/pending.err" || { cat "$dir/pending.err"; fail "pending exited $?"; }
grep -q '^event loop: ' "$dir/pending.txt" && ! grep -q 'default_loop_struct' "$dir/pending.err" ||
    { cat "$dir/pending.txt" "$dir/pending.err"; fail "pending: libuv's default loop not read"; }
timeout 60 "$NODESCOPE" gcore "$pid" -o "$dir/core" 2> "$dir/gcore.err" || { cat "$dir/gcore.err"; fail "gcore exited $?"; }
timeout 60 "$NODESCOPE" core "$dir/core" --root "$ROOT" stack --json > "$dir/core.json" 2> "$dir/core.err" ||
    { cat "$dir/core.err"; fail "core FILE --root stack exited $?"; }
node "$FIX/core/compare_stack.js" "$dir/truth.json" "$dir/core.json" "$FIX/core/stack_truth.js" ||
    fail "core FILE stack differs from new Error().stack"
timeout 60 "$NODESCOPE" core "$dir/core" --root "$ROOT" stack > "$dir/core.txt" 2>&1 || fail "core stack exited $?"
[ "$(timeout 60 "$NODESCOPE" core "$dir/core" --root "$ROOT" print process.version 2>&1)" = "'v18.20.4'" ] ||
    fail "print process.version is not 'v18.20.4'"
timeout 60 "$NODESCOPE" core "$dir/core" --root "$ROOT" stack -v 2>&1 > /dev/null | grep -q \
    "V8 10.2.154.26 from /usr/lib/x86_64-linux-gnu/libnode.so.108 (build id $(file -L "$DEB/usr/lib/x86_64-linux-gnu/libnode.so.108" | sed -n 's/.*BuildID\[sha1\]=\([0-9a-f]*\).*/\1/p'))" ||
    fail "stack -v does not say V8 was read from libnode.so.108 and its build id"
grep -q '^native: node::Start(int, char\*\*)+0x[0-9a-f]* (libnode.so.108)$' "$dir/core.txt" ||
    { cat "$dir/core.txt" | grep native; fail "libnode's node::Start not named"; }
kill "$pid"
wait "$pid" 2> /dev/null

# native frames as gdb names them: every libnode function in gdb's backtrace is among nodescope's
if command -v gdb > /dev/null; then
    timeout 120 gdb -batch -nx -ex "set sysroot $ROOT" -ex "set debuginfod enabled off" -ex bt \
        "$ROOT/usr/bin/node" "$dir/core" > "$dir/gdb.txt" 2> /dev/null
    grep 'libnode.so.108' "$dir/gdb.txt" | sed -n 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([^ ]*\) .*/\2/p' | grep -v '^??$' |
        sed 's/(.*//' | sort -u > "$dir/gdb.names"
    [ -s "$dir/gdb.names" ] || { head -30 "$dir/gdb.txt"; fail "gdb named no libnode frame"; }
    grep '^native: ' "$dir/core.txt" | sed 's/^native: //; s/(.*//; s/+0x.*//' | sort -u > "$dir/ns.names"
    missing=$(comm -23 "$dir/gdb.names" "$dir/ns.names")
    [ -z "$missing" ] || { cat "$dir/gdb.txt"; fail "libnode frames gdb names and nodescope does not: $missing"; }
    say "native frames: the $(wc -l < "$dir/gdb.names") libnode functions gdb names are named"
fi

# bad input: libnode missing, libnode of another build
timeout 60 "$NODESCOPE" core "$dir/core" --node "$DEB/usr/bin/node" stack > /dev/null 2> "$dir/nolib.err" &&
    fail "a core read without its libnode exited 0"
grep -q 'error: no V8 postmortem metadata .*/usr/lib/x86_64-linux-gnu/libnode.so.108' "$dir/nolib.err" ||
    { cat "$dir/nolib.err"; fail "no message naming the missing libnode.so.108"; }
mkdir -p "$dir/fake/usr/bin" "$dir/fake/usr/lib/x86_64-linux-gnu"
ln -s "$DEB/usr/bin/node" "$dir/fake/usr/bin/node"
for f in "$ROOT"/usr/lib/x86_64-linux-gnu/lib*.so*; do ln -s "$f" "$dir/fake/usr/lib/x86_64-linux-gnu/"; done
rm "$dir/fake/usr/lib/x86_64-linux-gnu/libnode.so.108"
ln -s "$(readlink -f "$ROOT/usr/lib/x86_64-linux-gnu/libz.so.1")" "$dir/fake/usr/lib/x86_64-linux-gnu/libnode.so.108"
timeout 60 "$NODESCOPE" core "$dir/core" --root "$dir/fake" stack > /dev/null 2> "$dir/badlib.err" &&
    fail "a core read with another libnode exited 0"
grep -q 'libnode.so.108: build id [0-9a-f]* differs' "$dir/badlib.err" && grep -q 'error: no V8 postmortem metadata' "$dir/badlib.err" ||
    { cat "$dir/badlib.err"; fail "another build of libnode.so.108 not refused by name"; }
rm -f "$dir/core"

# a kernel core at an uncaught exception (--abort-on-uncaught-exception), read with --root
mkdir -p "$dir/k"
{ (cd "$dir/k" && ulimit -c unlimited && in_ns /usr/bin/node --abort-on-uncaught-exception "$FIX/core/throw_truth.js" \
    "$dir/k/truth.json" > /dev/null 2>&1); } 2> /dev/null
kcore=$(ls "$dir"/k/core "$dir"/k/core.[0-9]* 2> /dev/null | head -1)
if [ -z "$kcore" ]; then
    say "no kernel core in the working directory (core_pattern: $(cat /proc/sys/kernel/core_pattern)): not tested"
else
    timeout 60 "$NODESCOPE" core "$kcore" --root "$ROOT" stack --json > "$dir/k.json" 2> "$dir/k.err" ||
        { cat "$dir/k.err"; fail "kernel core: stack exited $?"; }
    node "$FIX/core/compare_stack.js" "$dir/k/truth.json" "$dir/k.json" "$FIX/core/throw_truth.js" ||
        fail "kernel core: stack differs from new Error().stack"
    timeout 60 "$NODESCOPE" core "$kcore" --root "$ROOT" exception > "$dir/k.exc" 2>&1 || { cat "$dir/k.exc"; fail "kernel core: exception exited $?"; }
    grep -q '^Error: boom: {"half": "json"$' "$dir/k.exc" || { cat "$dir/k.exc"; fail "kernel core: exception has not the error thrown"; }
    say "kernel core: $(head -1 "$dir/k.exc")"
    rm -f "$kcore"
fi

# watch --on uncaught: the probes in libnode.so.108
[ -r /sys/bus/event_source/devices/uprobe/type ] || { say "no uprobe perf events: watch not tested"; echo ok; exit 0; }
mkdir -p "$dir/cores"
in_ns /usr/bin/node "$FIX/watch/throw_async.js" throw "$dir/throw.pid" > /dev/null 2> "$dir/throw.err" & pid=$!
pids+=("$pid")
for _ in $(seq 100); do [ -s "$dir/throw.pid" ] && break; sleep 0.05; done
timeout 120 "$NODESCOPE" watch -p "$pid" --on uncaught -o "$dir/cores" 2> "$dir/watch.err" ||
    { cat "$dir/watch.err"; fail "watch --on uncaught exited $?"; }
wait "$pid" 2> /dev/null
core=$dir/cores/core.$pid.uncaught.1
[ -s "$core" ] || { cat "$dir/watch.err"; fail "watch wrote no core"; }
timeout 60 "$NODESCOPE" core "$core" --root "$ROOT" exception > "$dir/exc" 2>&1 || { cat "$dir/exc"; fail "core exception exited $?"; }
grep -q "watched failure: level3 gave up" "$dir/exc" || fail "exception: no message: $(cat "$dir/exc")"
say "watch --on uncaught: $(head -1 "$dir/exc")"
echo ok
