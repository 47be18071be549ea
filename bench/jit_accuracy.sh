#!/usr/bin/env bash
# Share of provably wrong leaf JIT frames on the churn workload (functions
# compiled, run and dropped every 40 ms), for 30 s per run (CHURN_SECONDS):
# perf's own labels, the gist's newest entry, --ambiguous mark, the map journal
# (nodescope record), and V8's jitdump. Runs the end-to-end tests' procedure
# with the release build and prints their tables. Not a test.
set -eu
cd "$(dirname "$0")/.."
make -j2 >/dev/null
export NODESCOPE=$PWD/build/nodescope CHURN_SECONDS=${CHURN_SECONDS:-30}
for t in record_jit_accuracy jitdump_accuracy; do
    export TEST_TMP; TEST_TMP=$(mktemp -d)
    echo "== $t ($CHURN_SECONDS s)"
    bash "tests/e2e/$t.sh" | grep -E '^\{|^ok:' || true
    rm -rf "$TEST_TMP"
done
