#!/usr/bin/env bash
# Runs every end-to-end test N times, the odd runs beside a CPU hog on every core, and prints each
# test's pass count: a test that fails in any run is one a CI run can fail on its own.
#   scripts/ci-soak.sh N [PATTERN]      (after make test-build; PATTERN as tests/run.sh takes it)
# The hog is one busy shell loop per core at the lowest priority the test suite's own processes
# compete with (nice 0): the machine as CI's busiest. Logs: build/soak/RUN.log; the per-test
# summary last, "name passes/N", and "N passed, N failed" for the tests that passed every run.
set -u
cd "$(dirname "$0")/.."
n=${1:?usage: scripts/ci-soak.sh N [PATTERN]}
pattern=${2:-e2e/}
mkdir -p build/soak
rm -f build/soak/*.log
hogs=()
stop_hogs() { [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2> /dev/null; wait "${hogs[@]}" 2> /dev/null; hogs=(); }
trap stop_hogs EXIT
for run in $(seq "$n"); do
    if [ $((run % 2)) -eq 1 ]; then
        for _ in $(seq "$(nproc)"); do (while :; do :; done) & hogs+=($!); done
        beside="beside a CPU hog on $(nproc) cores"
    else
        beside="alone"
    fi
    t0=$SECONDS
    tests/run.sh "$pattern" > "build/soak/$run.log" 2>&1
    stop_hogs
    echo "run $run ($beside, $((SECONDS - t0)) s): $(tail -n 1 "build/soak/$run.log")"
done
# each test's passes (a skip counts as a pass: it skipped in every run or the summary says so)
awk -v n="$n" '
    /^(ok|skip)  / { name = $2; sub(/:$/, "", name); pass[name]++; seen[name] = 1 }
    /^FAIL  /      { seen[$2] = 1 }
    END {
        for (t in seen) { printf "%-40s %d/%d\n", t, pass[t], n | "sort"; if (pass[t] == n) good++; else bad++ }
        close("sort")
        printf "%d passed, %d failed\n", good, bad
        exit bad > 0
    }' build/soak/[0-9]*.log
