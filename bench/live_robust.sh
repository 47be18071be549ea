#!/usr/bin/env bash
# issue 13's robustness measure at full size: the live sampler attaches to an HTTP server under
# load, samples 0.3 s at 999 Hz and detaches, 1,000 times (tests/e2e/live_robust.sh, which CI runs
# with 6); every request must be answered right and the server's output and exit status must be
# unchanged. Not a test. Usage: bench/live_robust.sh [ATTACHES]   (default 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
make -j2 build/nodescope build/tst/nodescope > /dev/null
export NODESCOPE=$PWD/build/tst/nodescope NODESCOPE_RELEASE=$PWD/build/nodescope ATTACHES=${1:-1000}
export TEST_TMP=$(mktemp -d)
trap 'rm -rf "$TEST_TMP"' EXIT
tests/e2e/live_robust.sh
