#!/usr/bin/env bash
# Source map speed: a ~20 MB map built by esbuild from a large npm dependency tree (installed
# under bench/.cache), parsed and queried one million times by nodescope (sourcemap_bench.c
# on the release objects) and by @jridgewell/trace-mapping in the same run. Also shows
# lazy decoding: looking up one section of an index map decodes that section only.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
C=$ROOT/bench/.cache/sourcemap
mkdir -p "$C"
make -s -j2 build/nodescope
cc -O2 -std=c11 -D_GNU_SOURCE -Isrc -o "$C/sourcemap_bench" bench/sourcemap_bench.c build/rel/sourcemap/sourcemap.o \
    build/rel/util/*.o $(pkg-config --libs libdw libelf zlib libedit) -liberty -lm
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
for run in 1 2 3; do
    echo "run $run"
    node bench/sourcemap.mjs "$C/big.js.map" "$C/positions.txt" | sed 's/^/  trace-mapping: /'
    "$C/sourcemap_bench" "$C/big.js.map" "$C/positions.txt" | sed 's/^/  nodescope:     /'
done
