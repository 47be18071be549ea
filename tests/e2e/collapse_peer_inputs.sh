#!/usr/bin/env bash
# collapse on the peers' own perf script test inputs, against their expected outputs.
# Nothing is fetched here and the peers' files are not committed: point the variables at
# checkouts or the test skips (used: FlameGraph 41fee1f, inferno 929be68).
#   FLAMEGRAPH_DIR=.../FlameGraph INFERNO_DIR=.../inferno tests/run.sh peer_inputs
#
# --perl-compat vs stackcollapse-perf.pl: every FLAMEGRAPH_DIR/test/*.txt with each option its
#   test.sh runs (--pid --tid --kernel --jit --all --addrs), against the script itself (needs
#   perl; the pass criterion) and against test/results/ (8 of those are stale: the script no
#   longer prints them for the Java inputs with --pid/--tid).
# default mode vs inferno-collapse-perf: inferno's tests/data/collapse-perf inputs and its own
#   results for the Rust input, exactly. For FlameGraph's other inputs inferno compares with
#   results kept in its FlameGraph fork (jonhoo/FlameGraph 57207af, not available here), so we
#   compare with the Perl script's output on the input plus a blank line (inferno keeps a last
#   sample that has no blank line after it, as we do; the Perl script drops it), quotes
#   stripped from ours as inferno's test strips them from its own.
# Known, documented differences are counted apart (docs/commands/collapse.md):
#   V8 names keep their '(' (perf-js-stacks-01); Rust closures are "{{closure}}" as libiberty
#   and rustc-demangle print them, where inferno's own fix-up of half-demangled names leaves
#   "_{{closure}}" (perf-rust-Yamakaky-dcpu, single-event).
set -u
FG=${FLAMEGRAPH_DIR:-}
INF=${INFERNO_DIR:-}
if [ -z "$FG" ] && [ -z "$INF" ]; then
    echo "FLAMEGRAPH_DIR / INFERNO_DIR not set (checkouts of brendangregg/FlameGraph, jonhoo/inferno)"
    exit 77
fi
opts="pid tid kernel jit all addrs"
have_perl=0
[ -n "$FG" ] && command -v perl >/dev/null && [ -f "$FG/stackcollapse-perf.pl" ] && have_perl=1
declare -A total same
fails=() known=()
is_known() {   # case name
    case "$1" in
        default:perf-js-stacks-01.*|default:perf-rust-Yamakaky-dcpu.*|default:single-event*) return 0 ;;
    esac
    return 1
}

check() {   # counter case-name expected-file strip-quotes(0/1) nodescope-args...
    local counter=$1 name=$2 exp=$3 strip=$4; shift 4
    total[$counter]=$((${total[$counter]:-0} + 1))
    local out="$TEST_TMP/out"
    "$NODESCOPE" collapse "$@" > "$out" 2>/dev/null
    [ "$strip" = 1 ] && tr -d "\"'" < "$out" > "$out.q" && mv "$out.q" "$out"
    if cmp -s "$out" "$exp"; then
        same[$counter]=$((${same[$counter]:-0} + 1))
    elif is_known "$name"; then
        known+=("$counter $name")
    else
        fails+=("$counter $name: collapse $*")
    fi
}

if [ -n "$FG" ]; then
    for t in "$FG"/test/*.txt; do
        stem=$(basename "$t" .txt)
        for o in $opts; do
            check perl-results "perl:$stem.$o" "$FG/test/results/$stem-collapsed-$o.txt" 0 --perl-compat --"$o" "$t"
            if [ $have_perl = 1 ]; then
                perl "$FG/stackcollapse-perf.pl" --"$o" "$t" > "$TEST_TMP/perl.folded" 2>/dev/null
                check perl-script "perl:$stem.$o" "$TEST_TMP/perl.folded" 0 --perl-compat --"$o" "$t"
            fi
        done
    done
fi
if [ -n "$INF" ]; then
    D="$INF/tests/data/collapse-perf"
    for t in ${FG:+"$FG"/test/*.txt}; do
        stem=$(basename "$t" .txt)
        for o in $opts; do
            if [ -f "$D/results/$stem-collapsed-$o.txt" ]; then
                check inferno "default:$stem.$o" "$D/results/$stem-collapsed-$o.txt" 0 --"$o" "$t"
            elif [ $have_perl = 1 ]; then
                { cat "$t"; echo; } | perl "$FG/stackcollapse-perf.pl" --"$o" > "$TEST_TMP/perl.folded" 2>/dev/null
                check inferno-via-perl "default:$stem.$o" "$TEST_TMP/perl.folded" 1 --"$o" "$t"
            fi
        done
    done
    if [ -n "$FG" ] && [ -f "$FG/example-perf-stacks.txt.gz" ]; then
        gzip -dc "$FG/example-perf-stacks.txt.gz" > "$TEST_TMP/example-perf-stacks.txt"
        check inferno "default:example-perf-stacks" "$D/results/example-perf-stacks-collapsed.txt" 0 "$TEST_TMP/example-perf-stacks.txt"
    fi
    for exp in "$D"/results/*-collapsed*.txt; do
        name=$(basename "$exp" .txt)
        stem=${name%-collapsed*}
        [ -f "$D/$stem.txt" ] || continue   # FlameGraph's inputs: above
        o=${name#*-collapsed}
        o=${o#-}
        check inferno "default:$stem${o:+.$o}" "$exp" 0 ${o:+--$o} "$D/$stem.txt"
    done
fi

for c in perl-script perl-results inferno inferno-via-perl; do
    [ -n "${total[$c]:-}" ] && echo "$c: ${same[$c]:-0} of ${total[$c]} identical"
done
[ ${#known[@]} -gt 0 ] && printf '  known difference: %s\n' "${known[@]}"
# the stale results/ files are not failures when the script itself agrees
real_fails=()
for f in "${fails[@]}"; do
    [[ $f == perl-results* && $have_perl = 1 ]] && continue
    real_fails+=("$f")
done
[ ${#fails[@]} -gt 0 ] && printf '  differs: %s\n' "${fails[@]}"
[ ${#real_fails[@]} -eq 0 ]
