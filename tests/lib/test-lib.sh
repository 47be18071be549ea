# Sourced first by every e2e test (tests/e2e/*.sh), in the manner of git's t/test-lib.sh: how a
# test fails, skips and talks, where it works, and the few steps many tests repeat.
#   . "$(dirname "$0")/../lib/test-lib.sh"     (before any cd: $0 is relative to the tree's root)
# A test exits 0 when it passes, 77 when it cannot run here (skip), anything else when it fails;
# tests/run.sh gives it TEST_TMP (its own temporary directory), NODESCOPE, NODESCOPE_RELEASE and
# TESTDATA.
#   fail MSG            "FAIL: MSG" on stderr, exit 1. A test that runs once per Node major (or
#                       per anything) defines fail_context, whose output fail puts in
#                       parentheses: fail_context() { echo "node $v"; } gives "FAIL (node 20): MSG".
#   skip MSG            "skip: MSG" on stdout (run.sh shows a skipped test's last line), exit 77.
#   say MSG             MSG on stdout: progress worth seeing in the test's log.
#   test_dir NAME       $dir = $TEST_TMP/NAME, new and empty (the test's own trap removes it).
#   lsan_ignore_libdw   LeakSanitizer ignores libdw's leaks (it keeps caches for the process's
#                       life) in the commands run from here on: $dir/lsan.supp, LSAN_OPTIONS.
#   node_bin V          the official Node build of major V that scripts/setup.sh installs
#                       (tests/.cache/node/V/bin/node; it may be missing: test -x it).
#   node_majors [V...]  the Node majors a per-major test loops over: V... (default: every major
#                       scripts/setup.sh pins, NODE_MAJORS), less those NODESCOPE_TEST_MAJORS
#                       (when set: "25 26") leaves out.
#   skip_unless_perf_events RC FILE [PATTERN]
#                       when a command exited RC (non-zero) with PATTERN (default: perf_event) in
#                       its stderr FILE: shows FILE and skips ("perf events not allowed").
#   cpu_ticks PID       the CPU time PID has used (utime + stime, in clock ticks: getconf CLK_TCK):
#                       a bound on samples from what the program ran, not from the wall clock.
#   snapshot_copies PID the pids of PID's children that are nodescope's frozen copies (made with no
#                       exit signal: field 38 of /proc/C/stat is 0; a program's own children
#                       signal SIGCHLD), on one line.
#   left_clean PID WHAT fails ("after WHAT: ...") unless PID is running or sleeping, untraced, and
#                       has no copy of nodescope's left, no userfaultfd, no mapping write-tracked.
# TEST_ROOT is the tree's root.
[ -n "${TEST_LIB_LOADED:-}" ] && return 0
TEST_LIB_LOADED=1
TEST_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${TEST_TMP:=${TMPDIR:-/tmp}}"

fail() {
    local ctx=
    if declare -F fail_context > /dev/null; then ctx=" ($(fail_context))"; fi
    echo "FAIL$ctx: $*" >&2
    exit 1
}

skip() {
    echo "skip: $*"
    exit 77
}

say() {
    echo "$*"
}

test_dir() {
    dir=$TEST_TMP/$1
    rm -rf "$dir"
    mkdir -p "$dir"
}

lsan_ignore_libdw() {
    printf "leak:libdw.so\n" > "$dir/lsan.supp"
    export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
}

# The majors scripts/setup.sh pins, oldest first: a new major is added here and there.
NODE_MAJORS="18 20 22 24 25 26"

node_majors() {
    local v out=
    for v in ${*:-$NODE_MAJORS}; do
        case " ${NODESCOPE_TEST_MAJORS:-$v} " in *" $v "*) out="${out:+$out }$v" ;; esac
    done
    echo "$out"
}

node_bin() {
    echo "$TEST_ROOT/tests/.cache/node/$1/bin/node"
}

skip_unless_perf_events() {
    [ "$1" -ne 0 ] && grep -q "${3:-perf_event}" "$2" || return 0
    cat "$2"
    skip "perf events not allowed"
}

cpu_ticks() {
    sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | awk '{print $12 + $13}'
}

snapshot_copies() {
    local c out=
    for c in $(cat /proc/"$1"/task/*/children 2> /dev/null); do
        [ "$(sed 's/.*) //' "/proc/$c/stat" 2> /dev/null | awk '{print $36}')" = 0 ] && out="${out:+$out }$c"
    done
    printf '%s' "$out"
}

left_clean() {
    local st tr ch
    st=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2> /dev/null)
    tr=$(awk '/^TracerPid:/ {print $2}' "/proc/$1/status" 2> /dev/null)
    ch=$(snapshot_copies "$1")
    [[ "$st" == [RS] ]] && [ "$tr" = 0 ] && [ -z "$ch" ] || fail "after $2: state '$st', tracer '$tr', copies left '$ch'"
    # a tracked copy's: the descriptor is nodescope's alone, and closing it unregisters everything
    local uf wp
    uf=$(ls -l "/proc/$1/fd" 2> /dev/null | grep -c userfaultfd || true)
    wp=$(grep -c '^VmFlags:.* uw' "/proc/$1/smaps" 2> /dev/null || true)
    [ "$uf" = 0 ] && [ "${wp:-0}" = 0 ] || fail "after $2: $uf userfaultfd descriptors and $wp write-tracked mappings left"
}
