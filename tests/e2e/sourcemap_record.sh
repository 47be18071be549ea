#!/usr/bin/env bash
# Source maps in `record` and in hot lines. The TypeScript fixture bundled and minified by
# esbuild is recorded by the live sampler (the default) and by `record --perf`: the hot
# functions (total, runOrders) appear with their original names, files, lines and columns,
# the same as Node's own source map code maps the frames of a node --cpu-prof profile of
# the same bundle (check_record.js), in the files `new Error().stack` names under
# node --enable-source-maps. positionTicks: a --cpu-prof profile of the bundle minified
# with its lines kept (--minify-identifiers --minify-syntax) is mapped line by line, as
# Node maps each line, and the hot line is orders.ts:38 (computeLine's loop, inlined);
# top shows it, merge makes the two builds' frames one, diff and flame show the originals.
set -euo pipefail
cd "$TEST_TMP"
ROOT=$OLDPWD
FIX=$ROOT/tests/fixtures/sourcemap
BIN=$ROOT/tests/node_modules/.bin
[ -x "$BIN/esbuild" ] || { echo "esbuild not installed (cd tests && npm install)"; exit 77; }
printf "leak:libdw.so\n" > lsan.supp
export LSAN_OPTIONS="suppressions=$TEST_TMP/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
APP=$TEST_TMP/app
cp -r "$FIX/app" app
(cd app && "$BIN/esbuild" src/main.ts --bundle --minify --sourcemap --platform=node --log-level=warning --outfile=bundle/app.js && \
    "$BIN/esbuild" src/main.ts --bundle --minify-identifiers --minify-syntax --sourcemap --platform=node --log-level=warning \
        --outfile=lines/app.js)
[ "$(wc -l < app/bundle/app.js)" -lt 10 ]   # minified: the functions share a line

# truth: Node's mapping of the frames of a --cpu-prof profile, and the stacks it prints
BURN_MS=600 node --cpu-prof --cpu-prof-dir=nodeprof app/bundle/app.js > /dev/null
BURN_MS=5 node --enable-source-maps app/bundle/app.js > stacks.txt
grep -Eq "at ([a-zA-Z]+\.)?total \(.*/app/src/orders.ts:[0-9]+:[0-9]+\)" stacks.txt   # "i.total": Node keeps minified receivers
grep -q "at runOrders (.*/app/src/main.ts:[0-9]*:[0-9]*)" stacks.txt

check() {  # label, recorded .cpuprofile; returns 3 when the functions are not in it (record again)
    local rc=0
    node "$FIX/check_record.js" frames nodeprof/*.cpuprofile "$2" "$APP" total runOrders || rc=$?
    [ $rc = 3 ] && return 3
    [ $rc = 0 ] || { echo "FAIL: $1"; exit 1; }
    # the frames are in the files Node's stacks name
    "$NODESCOPE" collapse -q "$2" > "$2.folded"
    grep -Eq "runOrders [^ ]*$APP/src/main.ts:13:[0-9]+;total [^ ]*$APP/src/orders.ts:20:[0-9]+" "$2.folded" || \
        { grep -m3 orders "$2.folded"; echo "FAIL: $1: stacks"; exit 1; }
}

# The live sampler runs from the release build: under ASan it takes no sample of this
# program here (0 samples, as main's ASan build: the sampler, not the maps); the mapping
# itself runs under ASan below (record --perf, convert). On a loaded machine it may take
# a handful of samples: up to 3 recordings until the functions are in one.
for try in 1 2 3; do
    BURN_MS=2000 "$NODESCOPE_RELEASE" record -F 499 -o live.cpuprofile -- node app/bundle/app.js > live.out 2> live.err || \
        { cat live.err; grep -q perf_event live.err && { echo "skip: perf events not allowed"; exit 77; }; exit 1; }
    grep -q "^result " live.out
    cat live.err
    rc=0; check "record (live sampler)" live.cpuprofile || rc=$?
    [ $rc = 0 ] && break
    [ $try = 3 ] && { echo "FAIL: record (live sampler): total and runOrders never sampled"; exit 1; }
done
BURN_MS=2000 "$NODESCOPE_RELEASE" record -q --no-source-maps -F 499 -o raw.folded -- node app/bundle/app.js > /dev/null
! grep -q "orders.ts\|main.ts" raw.folded || { echo "FAIL: record --no-source-maps"; exit 1; }   # (few samples: maybe none of app.js)

if perf record -q -o probe.data -- true 2>/dev/null; then
    for try in 1 2 3; do
        BURN_MS=1500 "$NODESCOPE" record --perf -q -o perf.cpuprofile -- node app/bundle/app.js > perf.out
        rc=0; check "record --perf" perf.cpuprofile || rc=$?
        [ $rc = 0 ] && break
        [ $try = 3 ] && { echo "FAIL: record --perf: total and runOrders never sampled"; exit 1; }
    done
else
    echo "perf cannot record here: record --perf not tested"
fi

# positionTicks line by line
BURN_MS=600 node --cpu-prof --cpu-prof-dir=lineprof app/lines/app.js > /dev/null
prof=$(ls lineprof/*.cpuprofile)
"$NODESCOPE" convert "$prof" -o lines.cpuprofile
node "$FIX/check_record.js" ticks "$prof" lines.cpuprofile "$APP"
node -e '
const p = JSON.parse(require("fs").readFileSync("lines.cpuprofile", "utf8"));
const ticks = new Map();
for (const n of p.nodes)
    if (n.callFrame.url.endsWith("/src/orders.ts"))
        for (const t of n.positionTicks || []) ticks.set(t.line, (ticks.get(t.line) || 0) + t.ticks);
const hot = [...ticks].sort((a, b) => b[1] - a[1])[0];
if (!hot || hot[0] !== 38) { console.error("hot lines of orders.ts:", [...ticks]); process.exit(1); }'

# the other commands that read profiles: top (original hot lines), merge (two builds of the
# same code, different generated scripts: their frames are one original function), diff, flame
"$NODESCOPE" top "$prof" > top.txt
grep -A1 " total file://$APP/src/orders.ts:20\$" top.txt | grep -q "hot lines: 38 " || { cat top.txt; echo "FAIL: top"; exit 1; }
"$NODESCOPE" merge nodeprof/*.cpuprofile "$prof" -o merged.folded
[ "$(grep -o "total [^ ;]*" merged.folded | sort -u)" = "total file://$APP/src/orders.ts:20:5" ] || \
    { grep -o "total [^ ;]*" merged.folded | sort | uniq -c; echo "FAIL: merge"; exit 1; }
# only the scripts' top levels (no mapping at their start) keep generated positions
! grep -oE "[^;]* file://$APP/(bundle|lines)/app.js:[0-9:]+" merged.folded | grep -v "^(anonymous) \[unmapped\]" || \
    { echo "FAIL: merge: generated frames left"; exit 1; }
"$NODESCOPE" diff nodeprof/*.cpuprofile "$prof" -o diff.svg
grep -q "src/orders.ts:20" diff.svg
"$NODESCOPE" flame "$prof" -o flame.svg
grep -q "src/orders.ts:20" flame.svg
echo "ok: record (live, --perf) mapped as Node maps; positionTicks mapped line by line, hot line orders.ts:38; top, merge, diff, flame"
