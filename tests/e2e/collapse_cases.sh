#!/usr/bin/env bash
# collapse in default mode on small hand-written perf script inputs, one per case the reader
# must read as inferno-collapse-perf does (tests/data/perf/default/FIXTURE[.OPTION].folded,
# checked by hand against inferno 929be68's rules; the same inputs' --perl-compat outputs, from
# the real stackcollapse-perf.pl, are in perl/ and checked by collapse_perl_compat):
#   unindented         callchain lines without leading blanks (perf 3.x)
#   rust               Rust names: legacy mangled, v0, half demangled with $LT$/$u7b$ and hashes
#   vmlinux_versioned  a kernel image with a version in its name is kernel (--kernel)
#   event_modifiers    cycles:u, cycles and cycles:ppp are one event; instructions:u is another
#   java               perf-map-agent frames (Lpkg/Class;.m(args)) in a java process, "->"
#                      inlined frames, and a frame perf printed without a symbol
set -u
D="$TESTDATA/perf"
fail=0
for exp in "$D"/default/*.folded; do
    base=$(basename "$exp" .folded)
    fixture=${base%%.*}
    opt=""
    [[ $base == *.* ]] && opt="--${base#*.}"
    if ! "$NODESCOPE" collapse $opt "$D/$fixture.txt" 2>/dev/null | cmp -s - "$exp"; then
        echo "FAIL: collapse $opt $fixture.txt differs from default/$base.folded:"
        diff <("$NODESCOPE" collapse $opt "$D/$fixture.txt" 2>&1) "$exp" | head -n 10
        fail=1
    fi
    # the parallel reader agrees (small blocks force several)
    if ! NODESCOPE_PERF_THREADS=3 "$NODESCOPE" collapse $opt "$D/$fixture.txt" 2>/dev/null | cmp -s - "$exp"; then
        echo "FAIL: collapse $opt $fixture.txt on 3 threads differs"; fail=1
    fi
done
# the event warning names the skipped event as perf printed it
"$NODESCOPE" collapse "$D/event_modifiers.txt" 2>&1 >/dev/null | grep -q "skipping 'instructions:u'" ||
    { echo "FAIL: no warning naming instructions:u"; fail=1; }
exit $fail
