#!/bin/bash
# Native frames named from separate debug files, as perf names them: libc (stripped to .dynsym by
# its package) gets its full symbol table from libc6-dbg's /usr/lib/debug/.build-id/xx/yyyy.debug.
# A node blocked on a FIFO under main has __libc_start_call_main (a static function: in no .dynsym,
# so without the debug file it reads libc.so.6+0x...) on its main thread: `core --pid stack` and a
# gcore of it both name it. Skipped (77) when libc's debug file is not installed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
NODE=$HERE/../.cache/node/20/bin/node
[ -x "$NODE" ] || NODE=$(command -v node)
[ -x "$NODE" ] || { echo "skip: no node"; exit 77; }
libc=$(ldd "$NODE" | awk '/libc\.so\.6/ { print $3 }')
[ -n "$libc" ] || { echo "skip: node is not linked with libc.so.6"; exit 77; }
id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
[ -n "$id" ] && [ -r "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] ||
    { echo "skip: no debug file for $libc (build id $id): install libc6-dbg"; exit 77; }
# the test means something only while the name is not in libc's own tables
nm -D "$libc" 2>/dev/null | grep -q " __libc_start_call_main$" && { echo "skip: __libc_start_call_main is in libc's .dynsym"; exit 77; }
dir=$TEST_TMP/core_debug_symbols; rm -rf "$dir"; mkdir -p "$dir"
mkfifo "$dir/fifo"
printf "leak:libdw.so\n" > "$dir/lsan.supp"; export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
"$NODE" "$HERE/../fixtures/core/block_on_fifo.js" "$dir/fifo" "$dir/ready" & pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for _ in $(seq 100); do [ -s "$dir/ready" ] && break; sleep 0.1; done
[ -s "$dir/ready" ] || fail "fixture never got ready"
sleep 0.3
timeout 60 "$NODESCOPE" core --pid "$pid" stack > "$dir/live.txt" || fail "core --pid stack exited $?"
grep -q '^native: __libc_start_call_main+0x[0-9a-f]* (libc.so.6)$' "$dir/live.txt" || { cat "$dir/live.txt"; fail "core --pid: no __libc_start_call_main frame"; }
grep -q 'libc.so.6+0x' "$dir/live.txt" && { cat "$dir/live.txt"; fail "core --pid: a libc frame left unnamed"; }
if command -v gcore >/dev/null && gcore -o "$dir/core" "$pid" >/dev/null 2>&1; then
    timeout 60 "$NODESCOPE" core "$(ls "$dir"/core.*)" stack > "$dir/core.txt" || fail "core stack exited $?"
    grep -q '^native: __libc_start_call_main+0x[0-9a-f]* (libc.so.6)$' "$dir/core.txt" || { cat "$dir/core.txt"; fail "gcore: no __libc_start_call_main frame"; }
else
    echo "no gcore: the core not tested"
fi
echo ok
