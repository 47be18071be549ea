#!/usr/bin/env bash
# How often `record -- node cluster.js` (tests/fixtures/tree: a primary and two workers, each
# burning CPU in its own hot function) has samples in V8's JIT code that name no JavaScript
# function, and how many of each worker's samples lack its hot function. Such samples were a
# worker's last ones, read after it had exited (its memory gone). RUNS recordings (default 10);
# with OLD=path/to/an/older/nodescope the two alternate, run by run. Prints per run, then totals.
#   bench/cluster_unnamed.sh [RUNS]     NODE=... (default node)  NODESCOPE=... OLD=...
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-10}
NODE=${NODE:-node}
NS=${NODESCOPE:-$ROOT/build/nodescope}
[ -n "${NODESCOPE:-}" ] || make -C "$ROOT" -j2 build/nodescope > /dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
one() {   # label binary
    "$2" record -v -o "$W/r.folded" -- "$NODE" "$ROOT/tests/fixtures/tree/cluster.js" 1500 2> "$W/r.err" || { cat "$W/r.err" >&2; exit 1; }
    local j w
    j=$(grep -o '[0-9]* in JIT code, [0-9]* of them' "$W/r.err" | awk '{ print $5, $1 }')
    w=$(awk '{ n = $NF; split($0, q, ";"); if ($0 ~ /worker(One|Two)Hot/) wk[q[1]] = 1; s[q[1]] += n; if ($0 !~ /Hot/) u[q[1]] += n }
             END { for (k in wk) printf "%d/%d ", u[k], s[k] }' "$W/r.folded")
    echo "$1 ${j:-0 0} $w"
}
for i in $(seq "$RUNS"); do
    if [ -z "${OLD:-}" ]; then one new "$NS"
    elif [ $((i % 2)) = 1 ]; then one old "$OLD"; one new "$NS"
    else one new "$NS"; one old "$OLD"; fi
done | tee "$W/runs" | awk '{ printf "%s: %s of %s JIT samples name no function; workers'"'"' samples without their hot function: %s %s\n", $1, $2, $3, $4, $5 }'
for l in old new; do
    awk -v l=$l '$1 == l { n++; u += $2; j += $3; if ($2 > 0) k++; if ($2 > m) m = $2 }
        END { if (n) printf "%s: %d runs, %d with JIT samples naming no function; %d of %d JIT samples; worst run %d\n", l, n, k, u, j, m }' "$W/runs"
done
