#!/usr/bin/env bash
# Robustness bench (issue 13): 1,000 attach/sample/detach cycles against an HTTP server under
# loopback load, alternating `core --pid stack` and `record -p -d 0.2`; the server must answer
# every request right, never be left stopped or traced, and exit 0. The CI test does 12.
#   bench/live_attach_load.sh [N]        NODE_MAJOR=18|20|22|24 (22)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export ATTACHES=${1:-1000}
export NODESCOPE=${NODESCOPE:-$ROOT/build/nodescope} NODESCOPE_RELEASE=${NODESCOPE_RELEASE:-$ROOT/build/nodescope}
export TEST_TMP=${TEST_TMP:-$(mktemp -d)}
start=$(date +%s)
bash "$ROOT/tests/e2e/live_attach_load.sh"
echo "$ATTACHES attaches in $(( $(date +%s) - start )) s"
