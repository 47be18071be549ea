#!/bin/bash
# Separate debug files of a stripped binary, each way nodescope looks (target/debug.c), on a C
# program blocked in read() under a static function (tests/fixtures/live/blocked_static.c):
#   - .gnu_debuglink to DIR/NAME.debug: named, and not when the debug file's CRC differs;
#   - MiniDebugInfo (.gnu_debugdata, xz, as Fedora builds it): named (skipped without liblzma);
#   - stripped with neither: left as prog+0x..., as before.
# `core --pid stack` of a process that is not node prints its native stack, and an error (no V8).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
for c in gcc objcopy strip nm xz; do command -v $c >/dev/null || { echo "skip: no $c"; exit 77; }; done
dir=$TEST_TMP/core_debug_files; rm -rf "$dir"; mkdir -p "$dir"
printf "leak:libdw.so\n" > "$dir/lsan.supp"; export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$dir"
gcc -O1 -g -fno-omit-frame-pointer -o prog "$HERE/../fixtures/live/blocked_static.c" || fail "gcc"

# stack_of NAME: runs ./NAME blocked on a pipe, prints its main thread's frames
stack_of() {
    rm -f "fifo_$1"; mkfifo "fifo_$1"
    ./"$1" < "fifo_$1" & local p=$!
    pids+=("$p")
    exec {w}> "fifo_$1"   # the writer keeps read() blocked
    sleep 0.3
    timeout 60 "$NODESCOPE" core --pid "$p" stack 2> "$1.err"
    kill "$p"; exec {w}>&-
}
named() { grep -q "^native: blocked_in_static_function+0x[0-9a-f]* ($1)$" "$1.txt"; }

cp prog plain && strip plain
stack_of plain > plain.txt
named plain && fail "a stripped binary without debug files named its static function"
grep -q "^native: 0x[0-9a-f]* (plain+0x" plain.txt || { cat plain.txt; fail "stripped: no plain+0x frame"; }

cp prog linked && objcopy --only-keep-debug linked linked.debug && strip linked && objcopy --add-gnu-debuglink=linked.debug linked
stack_of linked > linked.txt
named linked || { cat linked.txt linked.err; fail ".gnu_debuglink: static function not named"; }
echo "garbage" >> linked.debug   # its CRC no longer matches the link's
stack_of linked > linked2.txt
mv linked2.txt linked.txt
named linked && fail ".gnu_debuglink: a debug file with the wrong CRC was used"

if [ -e /usr/lib/x86_64-linux-gnu/liblzma.so.5 ] || ldconfig -p | grep -q liblzma.so.5; then
    cp prog mini
    nm -D mini --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms
    nm mini --format=posix --defined-only | awk '$2 == "T" || $2 == "t" || $2 == "D" { print $1 }' | sort > funcsyms
    comm -13 dynsyms funcsyms > keep
    objcopy --only-keep-debug mini mini.dbg && objcopy -S --remove-section .gdb_index --remove-section .comment \
        --keep-symbols=keep mini.dbg && xz -f mini.dbg && strip mini && objcopy --add-section .gnu_debugdata=mini.dbg.xz mini
    stack_of mini > mini.txt
    named mini || { cat mini.txt mini.err; fail "MiniDebugInfo: static function not named"; }
else
    echo "no liblzma: MiniDebugInfo not tested"
fi
echo ok
