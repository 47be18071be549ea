#!/usr/bin/env bash
# Source maps on real profiles: a TypeScript fixture compiled by tsc --sourceMap and bundled
# + minified by esbuild (a map named by a comment, an inline map, a sidecar FILE.map), each
# run under node --cpu-prof. Every frame of the fixture's scripts, mapped by Node's own
# source map code (check_profile.js), must be in nodescope's mapped profile with the same
# original file, line, column and name; the minified bundle shows the original names;
# --no-source-maps keeps the generated frames; --source-map-path finds moved scripts.
set -euo pipefail
cd "$TEST_TMP"
ROOT=$OLDPWD
FIX=$ROOT/tests/fixtures/sourcemap
BIN=$ROOT/tests/node_modules/.bin
[ -x "$BIN/tsc" ] && [ -x "$BIN/esbuild" ] || { echo "typescript/esbuild not installed (cd tests && npm install)"; exit 77; }

cp -r "$FIX/app" app
(cd app && "$BIN/tsc" -p . && \
    "$BIN/esbuild" src/main.ts --bundle --minify --sourcemap --platform=node --log-level=warning --outfile=bundle/app.js && \
    "$BIN/esbuild" src/main.ts --bundle --minify --sourcemap=inline --platform=node --log-level=warning --outfile=inline/app.js && \
    "$BIN/esbuild" src/main.ts --bundle --minify --sourcemap=external --platform=node --log-level=warning --outfile=sidecar/app.js)
grep -q 'sourceMappingURL=data:application/json;base64,' app/inline/app.js
! grep -q sourceMappingURL app/sidecar/app.js && [ -f app/sidecar/app.js.map ]

for script in dist/main.js bundle/app.js inline/app.js sidecar/app.js; do
    d=prof-${script%%/*}
    BURN_MS=300 node --cpu-prof --cpu-prof-dir="$d" "app/$script" > /dev/null
    prof=$(ls "$d"/*.cpuprofile)
    "$NODESCOPE" convert "$prof" -o "$d/mapped.cpuprofile" 2> "$d/err"
    [ ! -s "$d/err" ] || { cat "$d/err"; echo "FAIL: $script: warnings"; exit 1; }
    node "$FIX/check_profile.js" "$prof" "$d/mapped.cpuprofile" "$TEST_TMP/app" total runOrders
    # folded output names the original function and position (computeLine may be inlined)
    "$NODESCOPE" collapse "$prof" > "$d/p.folded"
    grep -Eq ";runOrders file://$TEST_TMP/app/src/main.ts:13:[0-9]+;total file://$TEST_TMP/app/src/orders.ts:20:[0-9]+[; ]" "$d/p.folded" || \
        { grep orders "$d/p.folded" | head -3; echo "FAIL: $script: folded frames not mapped"; exit 1; }
done

# --no-source-maps: the minified names and generated positions stay
"$NODESCOPE" collapse --no-source-maps prof-bundle/*[0-9].cpuprofile > raw.folded
grep -q "app/bundle/app.js" raw.folded && ! grep -q "orders.ts" raw.folded

# --source-map-path: the scripts recorded under app/ now live under moved/
mv app moved
"$NODESCOPE" collapse prof-bundle/*[0-9].cpuprofile > moved-none.folded
! grep -q "orders.ts" moved-none.folded
"$NODESCOPE" collapse --source-map-path "$TEST_TMP/app=$TEST_TMP/moved" --stats prof-bundle/*[0-9].cpuprofile > moved.folded 2> moved.err
grep -q "total file://$TEST_TMP/moved/src/orders.ts:20:" moved.folded || { cat moved.err; echo "FAIL: --source-map-path"; exit 1; }
grep -q "^source maps: .* 1 scripts with a map, 0 bad maps" moved.err
echo "ok: tsc, esbuild (comment, inline, sidecar) profiles mapped as Node maps them"
