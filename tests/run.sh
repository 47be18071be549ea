#!/usr/bin/env bash
# Runs every test and ends with "N passed, N failed" (and ", N skipped").
#   tests/run.sh            all tests (after `make test-build`; `make test` does both)
#   tests/run.sh PATTERN    only tests whose name contains PATTERN
# Kinds of test, found by location:
#   build/tst/unit/test_*   unit tests (C, ASan+UBSan), from tests/unit/test_*.c
#   tests/e2e/*.sh          end-to-end: real node, perf, gcore; exit 0 pass, 77 skip, else fail
#   tests/browser/*.mjs     SVGs and profiles opened in headless Chromium (playwright-core)
#   build/fuzz/fuzz_*       each fuzz target run briefly over its corpus in fuzz/corpus/NAME/
# Environment for tests: NODESCOPE (the ASan build), NODESCOPE_RELEASE, TESTDATA, TMPDIR per test.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
pattern=${1:-}
export NODESCOPE="$ROOT/build/tst/nodescope" NODESCOPE_RELEASE="$ROOT/build/nodescope" TESTDATA="$ROOT/tests/data"
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer guesses the size of a dlopen()ed library's
# thread-local block (libelf's, libdw's) from the allocator's bytes before it ("glibc >= 2.19
# suspected"), and a wrong guess (tls={0x11f 0x1000001102}, with ASAN_OPTIONS=verbosity=2) made its
# tracer crash at exit ("Tracer caught signal 11", exit 99) after a run that was fine: top_live
# now and then, watch --heap of /usr/bin/node always. nodescope keeps no pointer in dynamic TLS.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99:intercept_tls_get_addr=0" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export PATH="$ROOT/tests/node_modules/.bin:$PATH"
# every census of a watch --heap that reuses pages of the last census's graph also builds the graph
# afresh and fails when the two differ (postmortem/leak.c)
export NODESCOPE_CHECK_REUSE=1
logs="$ROOT/build/test-logs"
mkdir -p "$logs"
pass=0 fail=0 skip=0 failed=()

# Side files node and perf leave behind: no test may leave one (a test that does fails). As root,
# each test has a /tmp of its own (a mount namespace with its own directory bound on /tmp), where
# node writes its perf maps: what is left there is the test's, whatever runs beside it (another
# suite, another user's node). Without that (not root, no unshare), a file in /tmp counts when it
# appeared during the test and the process it names has exited. The working tree is shared.
own_tmp=0
[ "$(id -u)" -eq 0 ] && unshare -m --propagation private true 2> /dev/null && own_tmp=1
droppings() {  # DIR: the side files in DIR (the test's /tmp) and in the tree
    ls -d "$1"/perf-*.map "$1"/jit-*.dump "$ROOT"/isolate-*.log "$ROOT"/perf-*.map "$ROOT"/jit-*.dump 2>/dev/null | sort
}
orphans() {  # new files (one a line) whose pid is gone
    local f pid
    while read -r f; do
        [ -n "$f" ] || continue
        pid=$(basename "$f" | sed -E 's/^(perf|jit)-([0-9]+)\.(map|dump)$/\2/; s/^isolate-0x[0-9a-f]+-([0-9]+)-.*$/\1/')
        [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && continue
        echo "$f"
    done
}
# in_tmp DIR CMD...: CMD with DIR as its /tmp (own_tmp), else as it is
in_tmp() {
    local d=$1; shift
    if [ $own_tmp -eq 1 ]; then unshare -m --propagation private bash -c 'mount --bind "$0" /tmp && exec "$@"' "$d" "$@"
    else "$@"; fi
}

# Processes a test started: each test runs with its own NODESCOPE_TEST_RUN in the environment,
# which every process it starts inherits (npm's children, a container's node, a forked copy). One
# still there a few seconds after the test ended was left running: it is killed, and a test that
# passed fails for it ("left running"). (A process that clears its environment is not seen.)
marked() {  # run id: the pids whose environment holds it
    grep -lszx "NODESCOPE_TEST_RUN=$1" /proc/[0-9]*/environ | sed 's|^/proc/||; s|/environ$||'
}
left_running() {  # run id: waits up to 5 s for its processes to end, kills and names what is left
    local left i p
    for i in $(seq 50); do left=$(marked "$1"); [ -z "$left" ] && return; sleep 0.1; done
    for p in $left; do echo "$p: $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | cut -c1-120)"; done
    for i in $(seq 50); do
        left=$(marked "$1"); [ -z "$left" ] && return
        kill -KILL $left 2> /dev/null; sleep 0.1
    done
}

run_one() {  # name, command...
    local name=$1; shift
    [[ -n "$pattern" && "$name" != *"$pattern"* ]] && return
    local log="$logs/${name//\//_}.log" t0=$SECONDS rc again=
    # base: the test's /tmp (own_tmp) or where its directory is; tmp: its directory (TEST_TMP) as
    # the test sees it, and as run.sh does
    local base; base=$(mktemp -d "${TMPDIR:-/tmp}/nodescope-test.XXXXXX")
    local tmp=$base/t seen=$base/t
    [ $own_tmp -eq 1 ] && chmod 1777 "$base" && seen=/tmp/t
    local shared=/tmp; [ $own_tmp -eq 1 ] && shared=$base
    local before; before=$(droppings "$shared")
    local run_id="$$.$RANDOM.${name//\//_}"
    attempt() {
        mkdir -m 700 "$tmp"
        (cd "$ROOT" && NODESCOPE_TEST_RUN="$run_id" TMPDIR="$seen" TEST_TMP="$seen" in_tmp "$base" "$@") >"$log" 2>&1
    }
    attempt "$@"
    rc=$?
    # LeakSanitizer's own stop-the-world tracer now and then crashes at a process's exit ("Tracer
    # caught signal 11", google/sanitizers#1353; seen here in record_signals and
    # record_recursive_inline, once in tens of runs each): a fault of the sanitizer, not a leak
    # report, so the test is run once more, and says so. A leak ("detected memory leaks") is not.
    if [ $rc -ne 0 ] && [ $rc -ne 77 ] && grep -q "^Tracer caught signal" "$log" &&
        grep -q "LeakSanitizer has encountered a fatal error" "$log" && ! grep -q "detected memory leaks" "$log"; then
        mv "$log" "$log.tracer-crash"
        rm -rf "$tmp"
        attempt "$@"
        rc=$?
        echo "(run twice: LeakSanitizer's tracer crashed in the first run; its log: $log.tracer-crash)" >> "$log"
        again=", run twice: LeakSanitizer's tracer crashed once"
    fi
    local running; running=$(left_running "$run_id")
    if [ -n "$running" ]; then
        echo "FAIL: left running (killed now):" >> "$log"; echo "$running" | sed 's/^/  /' >> "$log"
        [ $rc -eq 0 ] || [ $rc -eq 77 ] && rc=1
    fi
    rm -rf "$tmp"
    local left; left=$(comm -13 <(echo "$before") <(droppings "$shared") | orphans)
    rm -rf "$base"
    if [ -n "$left" ]; then
        echo "FAIL: left behind: $(echo $left)" >> "$log"
        [ $rc -eq 0 ] || [ $rc -eq 77 ] && rc=1
    fi
    local dt=$((SECONDS - t0))
    if [ $rc -eq 0 ]; then pass=$((pass + 1)); echo "ok    $name (${dt}s$again)"
    elif [ $rc -eq 77 ]; then skip=$((skip + 1)); echo "skip  $name: $(tail -n 1 "$log")"
    else fail=$((fail + 1)); failed+=("$name"); echo "FAIL  $name (exit $rc, ${dt}s; log $log)"; tail -n 25 "$log" | sed 's/^/      /'
    fi
}

# A unit test runs from its source: one whose binary is missing or older than its source (it did
# not compile, or make test-build was not run) fails instead of running a stale binary.
stale() { echo "build/tst/unit/$1 is missing or older than tests/unit/$1.c: run make test-build (and read its errors)"; exit 1; }
for src in tests/unit/test_*.c; do
    [ -f "$src" ] || continue
    t=build/tst/unit/$(basename "$src" .c)
    if [ -x "$t" ] && [ "$t" -nt "$src" ]; then run_one "unit/$(basename "$t")" "$t"
    else run_one "unit/$(basename "$t")" stale "$(basename "$t")"; fi
done
for t in tests/e2e/*.sh; do [ -f "$t" ] && run_one "e2e/$(basename "$t" .sh)" bash "$t"; done
for t in tests/browser/*.mjs; do [ -f "$t" ] && run_one "browser/$(basename "$t" .mjs)" node "$t"; done
for f in build/fuzz/fuzz_*; do
    [ -x "$f" ] || continue
    n=$(basename "$f")
    corpus="fuzz/corpus/${n#fuzz_}"
    mkdir -p "$corpus"
    work=$(mktemp -d "$ROOT/build/fuzz-work.XXXXXX")   # (not in /tmp: a test has a /tmp of its own)
    run_one "fuzz/$n" "$f" -max_total_time="${FUZZ_SECONDS:-15}" -rss_limit_mb=2048 -timeout=10 "$work" "$corpus"
    rm -rf "$work"
done

[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
