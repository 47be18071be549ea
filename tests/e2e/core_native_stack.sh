#!/bin/bash
# core stack on a real gcore of Node 20 blocked in readFileSync on a FIFO: the main thread's
# native stack must pass through libuv's open (uv_fs_open) and node's startup (node::Start),
# i.e. core reading, unwinding and symbolization all work end to end.
set -u
NODE=${NODE20:-$(dirname "$0")/../.cache/node/20/bin/node}
[ -x "$NODE" ] || { echo "skip: no Node 20 at $NODE (run scripts/setup.sh)"; exit 77; }
command -v gcore >/dev/null || { echo "skip: no gcore"; exit 77; }
dir=$TEST_TMP/core_native_stack; rm -rf "$dir"; mkdir -p "$dir"
mkfifo "$dir/fifo"
# libdw (target/unwind via libdwfl) keeps one 16-byte allocation on some cores: not ours.
printf "leak:libdw.so\n" > "$dir/lsan.supp"; export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
"$NODE" "$(dirname "$0")/../fixtures/core/block_on_fifo.js" "$dir/fifo" "$dir/ready" &
pid=$!
cleanup() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$dir/ready" ] && break; sleep 0.1; done
[ -s "$dir/ready" ] || { echo "FAIL: fixture never got ready"; exit 1; }
sleep 0.3
gcore -o "$dir/core" "$pid" >/dev/null 2>&1 || { echo "skip: gcore failed (ptrace not permitted?)"; exit 77; }
core=$(ls "$dir"/core.* | head -1)
out=$(timeout 30 "$NODESCOPE" core "$core" --node "$NODE" stack) || { echo "FAIL: core stack exited $?"; exit 1; }
grep -q 'native: uv_fs_open' <<<"$out" || { echo "FAIL: no uv_fs_open frame"; echo "$out" | head -40; exit 1; }
grep -Eq 'node::Start|_ZN4node5Start' <<<"$out" || { echo "FAIL: no node::Start frame"; echo "$out" | head -40; exit 1; }
# fs.openSync calls the fs binding's `open` (an API function: a FunctionTemplate's C++ callback,
# node::fs::Open) through V8's BuiltinExitFrame: the frame names the function, between the C++ and
# its JS caller (as V8's --cpu-prof files the callback's time under "open")
grep -A1 '^api: *open ' <<<"$out" | grep -q '^js: *openSync ' ||
    { echo "FAIL: no 'api: open' frame under openSync"; echo "$out" | head -40; exit 1; }
# Usage errors exit 2; a file that is not a core is an error (exit 1), never a crash.
"$NODESCOPE" core >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: no-arg usage should exit 2"; exit 1; }
"$NODESCOPE" core --help | grep -q 'usage: nodescope core' || { echo "FAIL: --help"; exit 1; }
echo garbage > "$dir/notcore"
timeout 10 "$NODESCOPE" core "$dir/notcore" --node "$NODE" stack >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || { echo "FAIL: non-core should exit 1, got $rc"; exit 1; }
head -c 100000 "$core" > "$dir/truncated"
timeout 10 "$NODESCOPE" core "$dir/truncated" --node "$NODE" stack >/dev/null 2>&1; rc=$?
[ $rc -le 1 ] || { echo "FAIL: truncated core should exit 0 or 1 without crashing, got $rc"; exit 1; }
echo ok
