#!/usr/bin/env bash
# Bad input to collapse: a clear error naming the file (and line), exit 1, never a crash.
set -u
cd "$TEST_TMP"
fail=0
expect_error() {  # file, pattern in the message
    local f=$1 pat=$2 rc
    "$NODESCOPE" collapse "$f" > out.txt 2> err.txt; rc=$?
    if [ $rc -ne 1 ]; then echo "FAIL: $f: exit $rc, expected 1"; cat err.txt; fail=1; return; fi
    if ! grep -q "^nodescope: $f:[0-9: ]*error: .*$pat" err.txt; then echo "FAIL: $f: message: $(cat err.txt)"; fail=1; fi
}
: > empty.txt
expect_error empty.txt "empty"
head -c 100000 /dev/urandom > garbage.bin
expect_error garbage.bin "binary"
printf 'node 1 1.0: 1 cycles:\n\tab\x00\x01\x02 (x)\n' > nul.txt
"$NODESCOPE" collapse nul.txt >/dev/null 2>&1; rc=$?
[ $rc -le 1 ] || { echo "FAIL: NUL bytes: exit $rc"; fail=1; }
printf 'this is not\na profile at all\n' > words.txt
expect_error words.txt "unrecognised input"
# perf script cut off in the middle of a sample: the complete part is still read, no crash
head -c 30000 "$TESTDATA/perf/node_default.txt" > trunc.txt
"$NODESCOPE" collapse trunc.txt > trunc.folded 2> err.txt || { echo "FAIL: truncated perf: exit $?"; cat err.txt; fail=1; }
[ -s trunc.folded ] || { echo "FAIL: truncated perf: no output"; fail=1; }
# ... and forced as the wrong format
"$NODESCOPE" collapse --format dtrace "$TESTDATA/perf/node_default.txt" > /dev/null 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q "node_default.txt.*error" err.txt || { echo "FAIL: perf forced as dtrace: exit $rc: $(cat err.txt)"; fail=1; }
# A 1.1 GB line from a pipe: refused with the line number, memory bounded, quickly
start=$SECONDS
{ printf 'node 1 1.0: 1 cycles:\n'; head -c 1100000000 /dev/zero | tr '\0' a; printf '\n'; } |
    "$NODESCOPE_RELEASE" collapse --format perf - > /dev/null 2> err.txt; rc=${PIPESTATUS[1]}
[ $rc -eq 1 ] && grep -q '<stdin>:2: error: line longer than' err.txt || { echo "FAIL: 1 GB line: exit $rc: $(cat err.txt)"; fail=1; }
{ head -c 1100000000 /dev/zero | tr '\0' a; } | "$NODESCOPE_RELEASE" collapse - > /dev/null 2> err.txt; rc=${PIPESTATUS[1]}
[ $rc -eq 1 ] && grep -q '<stdin>.*error' err.txt || { echo "FAIL: 1 GB line, detected: exit $rc: $(cat err.txt)"; fail=1; }
echo "1 GB lines took $((SECONDS - start)) s"
# DTrace input cut before its count
printf '\n\n\n              node`main+0x1b\n              node`_start+0x83\n' > dt.txt
"$NODESCOPE" collapse --format dtrace dt.txt > /dev/null 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q 'dt.txt:5: error: no DTrace stacks' err.txt || { echo "FAIL: dtrace without count: $rc $(cat err.txt)"; fail=1; }
# Line numbers in warnings are file line numbers in the parallel reader too
for i in $(seq 20); do cat "$TESTDATA/perf/node_default.txt"; done > big.txt
sed -i '12345s/.*/garbage line here/' big.txt
printf 'node 1/2 9.5: 7 page-faults: \n\t98930 memset+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n' >> big.txt
for t in 1 3; do
    NODESCOPE_PERF_THREADS=$t "$NODESCOPE" collapse big.txt > /dev/null 2> err.txt
    grep -q 'big.txt:12345: warning: ignored 1 unrecognised line' err.txt &&
        grep -q "big.txt:$(grep -n page-faults big.txt | cut -d: -f1): warning: several event types" err.txt ||
        { echo "FAIL: line numbers with $t threads: $(cat err.txt)"; fail=1; }
done
# A sample far larger than the parallel reader's blocks (30,000 frames) folds the same in every mode
{ echo "node 1/1 1.5: 5 cpu-clock:ppp: "; for i in $(seq 30000); do printf '\t%x fn%d+0x1 (/usr/bin/x)\n' $i $((i % 7)); done
  echo; cat "$TESTDATA/perf/node_default.txt"; } > deep.txt
NODESCOPE_PERF_THREADS=1 "$NODESCOPE" collapse deep.txt > deep1.folded
grep -q '^node \[main\];fn5;fn4;.* 5$' deep1.folded || { echo "FAIL: deep sample missing"; fail=1; }
NODESCOPE_PERF_THREADS=3 "$NODESCOPE" collapse deep.txt | cmp -s - deep1.folded || { echo "FAIL: deep sample, 3 threads differ"; fail=1; }
# Callchain lines without indentation (older perf) and no blank lines between samples: the
# parallel reader's blocks end before an event line, never inside a sample
for i in $(seq 40); do cat "$TESTDATA/perf/node_default.txt"; done | sed -e 's/^[[:space:]]*//' | grep -v '^$' > flat.txt
NODESCOPE_PERF_THREADS=1 "$NODESCOPE" collapse flat.txt > flat1.folded
[ -s flat1.folded ] || { echo "FAIL: unindented input folded to nothing"; fail=1; }
NODESCOPE_PERF_THREADS=3 "$NODESCOPE" collapse flat.txt | cmp -s - flat1.folded || { echo "FAIL: unindented input, 3 threads differ"; fail=1; }
# The split reader (regular files: chunks read with pread at their own offsets) starts where the
# descriptor is, not at the file's start: standard input partly read by another program first
n=$(grep -n '^$' big.txt | sed -n 40p | cut -d: -f1)
tail -n +$((n + 1)) big.txt > rest.txt
NODESCOPE_PERF_THREADS=1 "$NODESCOPE" collapse rest.txt > rest1.folded 2>/dev/null
{ head -n "$n" > /dev/null; NODESCOPE_PERF_THREADS=3 "$NODESCOPE" collapse -; } < big.txt 2>/dev/null | cmp -s - rest1.folded ||
    { echo "FAIL: standard input read from its offset, 3 threads differ"; fail=1; }
# A write that fails (a full disk) while the folded output (over 1 MiB: written on the writing
# thread) is being written: an error naming the output, exit 1, no crash or hang
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "node 1 %d.0: 1 cpu-clock:\n\t%x handler_%d_with_a_long_name+0x1 (/usr/bin/node)\n\t%x caller_%d_also_with_a_long_name+0x2 (/usr/bin/node)\n\n", i, 4096 + i, i, 8192 + i, i }' > wide.txt
if [ -w /dev/full ]; then
    "$NODESCOPE" collapse --no-resolve wide.txt > wide.folded 2>/dev/null
    if [ "$(stat -c %s wide.folded)" -gt 1100000 ]; then
        "$NODESCOPE" collapse --no-resolve wide.txt > /dev/full 2> err.txt; rc=$?
        [ $rc -eq 1 ] && grep -q '<stdout>: error: could not write folded output' err.txt ||
            { echo "FAIL: output to a full disk: exit $rc: $(cat err.txt)"; fail=1; }
    else
        echo "FAIL: wide.txt's folded output is under 1 MiB ($(stat -c %s wide.folded) bytes): the writing thread is not tested"; fail=1
    fi
fi
exit $fail
