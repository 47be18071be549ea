#!/bin/bash
# Cores written by qemu-user (issue 44): qemu-x86_64 runs the official x64 node 24 and 22 on
# crash_truth.js, which writes its truth and dies of an uncaught throw (--abort-on-uncaught-
# exception); qemu writes qemu_node_TIME_PID.core in the working directory, with NT_PRSTATUS,
# NT_PRPSINFO and NT_AUXV but no NT_FILE: its files are named from the dynamic linker's list in
# memory (target/link_map.c). Then, with --node and without (AT_EXECFN names the executable):
# `stack` names node's native frames (v8::base::OS::Abort, node::Start, libc's __libc_start_main)
# and its JS frames equal the program's own `new Error().stack` (compare_stack.js); `objects`
# counts the planted classes exactly as many as the program made; `print --json globalThis.planted`
# is the program's JSON.stringify. Skips without qemu-x86_64 (Debian: qemu-user).
# How qemu is run and its core found: tests/lib/qemu_core.sh.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
. "$HERE/../lib/qemu_core.sh"
command -v qemu-x86_64 > /dev/null || skip "no qemu-x86_64 (Debian: apt-get install qemu-user)"
test_dir core_qemu
lsan_ignore_libdw
trap 'rm -rf "$dir"' EXIT
fail_context() { echo "node $v"; }
check_major() {
    w=$dir/$v
    qemu_core "$w" x86_64 "$NODE" --abort-on-uncaught-exception "$FIX/crash_truth.js" "$w"
    [ -s "$w/truth.json" ] || fail "the fixture wrote no truth under qemu-x86_64"
    [ -n "$qcore" ] || skip "qemu-x86_64 wrote no core (ulimit -c unlimited refused?)"
    readelf -n "$qcore" 2>/dev/null | grep -q NT_FILE && fail "qemu's core has an NT_FILE note: not the case tested"
    echo "node $v: qemu core $(du -m "$qcore" | cut -f1) MB"
    for given in yes no; do
        node_opt=(); [ $given = yes ] && node_opt=(--node "$NODE")
        timeout 60 "$NODESCOPE" core "$qcore" "${node_opt[@]}" stack --json > "$w/ns.json" 2> "$w/err" || { cat "$w/err"; fail "stack --json (--node: $given) exited $?"; }
        node "$FIX/compare_stack.js" "$w/truth.json" "$w/ns.json" "$FIX/crash_truth.js" || fail "stack (--node: $given) differs from Error().stack"
    done
    timeout 60 "$NODESCOPE" core "$qcore" --node "$NODE" stack > "$w/stack.txt" 2>&1 || fail "stack exited $?"
    for f in 'native: v8::base::OS::Abort()' 'native: node::Start(' 'native: __libc_start_main.*(libc.so.6)'; do
        grep -q "$f" "$w/stack.txt" || { head -20 "$w/stack.txt"; fail "no frame '$f'"; }
    done
    grep -q '(no symbol)' "$w/stack.txt" && { grep '(no symbol)' "$w/stack.txt" | head; fail "unnamed native frames"; }
    printf '%s\n' 'objects --json' 'type 0x2a00000000' 'print --json globalThis.planted' |
        timeout 120 "$NODESCOPE" core "$qcore" --node "$NODE" > "$w/all.txt" 2> "$w/err" || { cat "$w/err"; fail "objects/print exited $?"; }
    awk -v d="$w/out" 'BEGIN { n = 0 } /^Smi 42$/ { n++; next } { print > (d "." n) }' "$w/all.txt"
    node -e '
      const fs = require("fs");
      const t = JSON.parse(fs.readFileSync(process.argv[1])), objs = JSON.parse(fs.readFileSync(process.argv[2]));
      let bad = 0;
      for (const [c, want] of Object.entries(t.counts)) {
        const g = objs.find((g) => g.name === c), got = g ? g.count : 0;
        if (got !== want) { console.log(`objects: ${c} ${got}, the program made ${want}`); bad++; }
      }
      const printed = JSON.stringify(JSON.parse(fs.readFileSync(process.argv[3], "utf8")));
      if (printed !== t.planted) { console.log(`print --json: ${printed}\n  JSON.stringify: ${t.planted}`); bad++; }
      process.exit(bad ? 1 : 0);' "$w/truth.json" "$w/out.0" "$w/out.1" || fail "objects or print differ from the program's truth"
    rm -rf "$w"
}
core_for_each_node check_major "$(node_majors 24 22)"
echo ok
