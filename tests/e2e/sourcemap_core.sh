#!/usr/bin/env bash
# core ... stack through source maps: the fixture (tsc output, and the esbuild minified
# bundle) blocks inside OrderService.total after printing `new Error().stack` under
# node --enable-source-maps; a gcore's `stack --json` maps each JS frame to the original
# file, line, column and name, and they equal Node's (compare_core.js). Text output shows
# the original and the generated position. Every Node major (18-26, node_majors) maps the
# minified bundle's core; Node 22 also the tsc output, the text output and
# --no-source-maps (the core reading itself is core_js_stack's on every major).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FIX=$ROOT/tests/fixtures/sourcemap
BIN=$ROOT/tests/node_modules/.bin
. "$HERE/../lib/core_fixture.sh"
[ -x "$BIN/tsc" ] && [ -x "$BIN/esbuild" ] || skip "typescript/esbuild not installed"
core_setup sourcemap_core
fail_context() { echo "node $v, $script"; }

cp -r "$FIX/app" "$dir/app"
(cd "$dir/app" && "$BIN/tsc" -p . && \
    "$BIN/esbuild" src/main.ts --bundle --minify --sourcemap --platform=node --log-level=warning --outfile=bundle/app.js) || exit 1

tested=0
for v in $(node_majors); do
    NODE=$ROOT/tests/.cache/node/$v/bin/node
    [ -x "$NODE" ] || { echo "no Node $v: not tested"; continue; }
    scripts=bundle/app.js
    [ "$v" = 22 ] && scripts="dist/main.js bundle/app.js"
    for script in $scripts; do
        w=$dir/$v-${script%%/*}; mkdir -p "$w"
        BURN_MS=10 WAIT=1 "$NODE" --enable-source-maps "$dir/app/$script" > "$w/out" & pid=$!
        for _ in $(seq 100); do [ "$(grep -c '^END' "$w/out")" = 3 ] && break; sleep 0.1; done
        [ "$(grep -c '^END' "$w/out")" = 3 ] || fail "fixture never blocked"
        sleep 0.3
        gcore -o "$w/core" "$pid" > /dev/null 2>&1 || skip "gcore failed (ptrace not permitted?)"
        kill "$pid"; wait "$pid" 2>/dev/null; pid=
        core=$(ls "$w"/core.*)
        # the ASan build on Node 22; the others with the release build (the same mapping code, in
        # half the time: each extra major costs a node start, a gcore and one stack)
        ns=$NODESCOPE_RELEASE
        [ "$v" = 22 ] && ns=$NODESCOPE
        timeout 60 "$ns" core "$core" --node "$NODE" stack --json > "$w/ns.json" || fail "stack --json exited $?"
        node "$FIX/compare_core.js" "$w/out" "$w/ns.json" || fail "mapped frames differ from Node's"
        [ "$v" = 22 ] || { rm -f "$core"; continue; }
        timeout 60 "$NODESCOPE_RELEASE" core "$core" --node "$NODE" stack > "$w/ns.txt" || fail "stack exited $?"
        grep -q "^js:     waitInService at $dir/app/src/main.ts:36:9 (generated: at $dir/app/$script:" "$w/ns.txt" || \
            { grep 'js: ' "$w/ns.txt" | head -5; fail "text stack not mapped"; }
        timeout 60 "$NODESCOPE_RELEASE" core "$core" --node "$NODE" stack --no-source-maps > "$w/raw.txt" || fail "stack exited $?"
        ! grep -q "src/main.ts" "$w/raw.txt" || fail "--no-source-maps still maps"
        rm -f "$core"
    done
    tested=$((tested + 1))
    echo "node $v ok"
done
[ $tested -gt 0 ] || skip "no Node builds (run scripts/setup.sh)"
