#!/usr/bin/env bash
# Source map speed: a ~20 MB map built by esbuild from a large npm dependency tree (installed
# under bench/.cache), parsed and queried one million times by nodescope (sourcemap_bench.c
# on the release library, build/rel/libnodescope.a) and by @jridgewell/trace-mapping in the same run: the same lookups,
# the same results (checksum), wall and CPU time, three runs, the load average around them.
# (Lazy decoding of index maps is asserted by tests/unit/test_sourcemap.c.)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
C=$ROOT/bench/.cache/sourcemap
mkdir -p "$C"
make -s -j2 build/nodescope
cc -O2 -std=c11 -D_GNU_SOURCE -Isrc -o "$C/sourcemap_bench" bench/sourcemap_bench.c build/rel/libnodescope.a \
    $(pkg-config --libs libdw libelf zlib libedit) -liberty -lm
if [ ! -f "$C/big.js.map" ]; then
    # a big dependency tree: the TypeScript 5 compiler plus a few large packages
    [ -d "$C/node_modules/typescript" ] || (cd "$C" && npm init -y > /dev/null && \
        npm install --no-audit --no-fund typescript@5 lodash rxjs moment date-fns > /dev/null)
    printf '%s\n' 'export * as ts from "typescript"; export * as _ from "lodash"; export * as rx from "rxjs";' \
        'export * as moment from "moment"; export * as df from "date-fns";' > "$C/entry.js"
    "$ROOT/tests/node_modules/.bin/esbuild" "$C/entry.js" --bundle --minify --sourcemap --platform=node \
        --log-level=warning --outfile="$C/big.js"
fi
ls -l "$C/big.js.map" | awk '{printf "map: %.1f MB\n", $5 / 1e6}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in 1 2 3; do
    echo "run $run"
    tm=$(node bench/sourcemap.mjs "$C/big.js.map" "$C/positions.txt")
    ns=$("$C/sourcemap_bench" "$C/big.js.map" "$C/positions.txt")
    echo "  trace-mapping: $tm"
    echo "  nodescope:     $ns"
    node -e 'const [a, b] = process.argv.slice(1).map(JSON.parse);
        if (a.checksum !== b.checksum || a.mapped !== b.mapped) { console.log("  RESULTS DIFFER"); process.exit(1); }
        console.log(`  nodescope is ${(a.total_ms / b.total_ms).toFixed(1)}x faster (wall), ${(a.cpu_ms / b.cpu_ms).toFixed(1)}x (cpu)`);' "$tm" "$ns"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
