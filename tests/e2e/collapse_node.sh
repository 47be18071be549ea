#!/usr/bin/env bash
# Records examples/busy.js with perf and V8's perf map, collapses it, and checks the
# program's known hot JS functions: parseRecords (about half), sortNumbers, fib.
set -u
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
cd "$TEST_TMP"
if ! perf record -g -F 499 -o perf.data -- node --perf-basic-prof "$OLDPWD/examples/busy.js" 2 >rec.log 2>&1; then
    cat rec.log; echo "perf record does not work here"; exit 77
fi
perf script -i perf.data > perf.txt 2>/dev/null
rm -f perf.data
NODESCOPE_PERF_THREADS=1 "$NODESCOPE" collapse perf.txt > out.folded || { echo "FAIL: collapse exited $?"; exit 1; }
[ -s out.folded ] || { echo "FAIL: empty output"; exit 1; }

# Shares of samples whose stack contains each function (weights are periods).
read -r total parse sort fib js < <(awk '{w=$NF; t+=w;
    if (/parseRecords/) a+=w; if (/sortNumbers/) b+=w; if (/JS:[*^~+]fib /) c+=w; if (/;JS:/) j+=w}
    END {printf "%d %.3f %.3f %.3f %.3f\n", t, a/t, b/t, c/t, j/t}' out.folded)
echo "total=$total parseRecords=$parse sortNumbers=$sort fib=$fib anyJS=$js"
fail=0
awk -v p="$parse" 'BEGIN{exit !(p > 0.30 && p < 0.85)}' || { echo "FAIL: parseRecords share $parse not ~half"; fail=1; }
awk -v s="$sort" 'BEGIN{exit !(s > 0.05 && s < 0.50)}' || { echo "FAIL: sortNumbers share $sort"; fail=1; }
awk -v f="$fib" 'BEGIN{exit !(f > 0.003 && f < 0.30)}' || { echo "FAIL: fib share $fib"; fail=1; }
awk -v p="$parse" -v s="$sort" 'BEGIN{exit !(p > s)}' || { echo "FAIL: parseRecords should outweigh sortNumbers"; fail=1; }
# JS frames keep V8's tier marker and source position, without perf's +0x offsets
grep -q 'JS:[*^~+]parseRecords [^;]*busy.js:4:22' out.folded || { echo "FAIL: no tiered parseRecords frame"; fail=1; }
grep -q '+0x' out.folded && { echo "FAIL: offsets left in output"; fail=1; }
# Weight = period: the total equals the sum of the periods perf printed
sum=$(awk '/^[^ \t#].* [0-9]+ [^ ]+:[ ]*$/ {for (i=NF;i>0;i--) if ($i ~ /^[0-9]+$/) {s+=$i; break}} END{printf "%d", s}' perf.txt)
[ "$sum" = "$total" ] || { echo "FAIL: total $total != sum of periods $sum"; fail=1; }
# Same result from the release build, and with --all the JIT frames are annotated
"$NODESCOPE_RELEASE" collapse perf.txt | cmp -s - out.folded || { echo "FAIL: release build differs"; fail=1; }
"$NODESCOPE" collapse --all perf.txt | grep -q 'parseRecords [^;]*_\[j\]' || { echo "FAIL: --jit annotation missing"; fail=1; }
# The parallel reader (forced here with small blocks) gives the same result as the serial one
for t in 2 3; do
    NODESCOPE_PERF_THREADS=$t "$NODESCOPE" collapse perf.txt | cmp -s - out.folded || { echo "FAIL: $t threads differ from serial"; fail=1; }
done
# ... and the same perf script draws: the SVG names the hot JS function
if "$NODESCOPE" flame --help >/dev/null 2>&1; then
    "$NODESCOPE" flame perf.txt -o out.svg || { echo "FAIL: flame exited $?"; fail=1; }
    grep -q 'parseRecords' out.svg || { echo "FAIL: parseRecords not in the flame graph"; fail=1; }
fi
for m in $(grep -o '/tmp/perf-[0-9]*\.map' perf.txt | sort -u); do rm -f "$m"; done   # V8's map, no longer needed
exit $fail
