#!/usr/bin/env bash
# Source maps written by hand, against a hand-written profile: an index map (sections,
# names, ignoreList, a sourceRoot in a section) found by its comment, a sidecar map with an
# absolute sourceRoot, a missing map, malformed JSON, a bad VLQ, a sources index out of
# range (one warning each, naming the map; those frames keep their generated positions and
# the command succeeds), a position the map does not cover ([unmapped]), a script without
# a map (unchanged), and --hide-ignored folding the ignoreList source into its caller; an
# index map whose section names its map by "url" (resolved against the index map, the
# sources against the section's map), and a map that does not match its script (warned).
set -euo pipefail
cd "$TEST_TMP"
ROOT=$OLDPWD
FIX=$ROOT/tests/fixtures/sourcemap/maps
D=$TEST_TMP/gen
mkdir -p "$D"
mkdir -p "$D/sub"
cp "$FIX"/*.map "$D/"
cp "$FIX"/sub/*.map "$D/sub/"
# scripts over 64 KB: the comment is looked for in the last 64 KB first (idx.js), and in the
# whole text when the tail has none (url.js)
pad=$(head -c 100000 /dev/zero | tr '\0' ' ')
printf 'function a(){}function b(){}%s\n\n\n\n\nfunction u(){}\n//# sourceMappingURL=idx.js.map\n' "$pad" > "$D/idx.js"
printf 'function s(){}\n//# sourceMappingURL=url.js.map\n%s\n' "$pad" > "$D/url.js"     # sections[0].url: sub/s.js.map
echo 'function t(){}' > "$D/stale.js"                                          # its sidecar map has 3 lines
echo 'function r(){}' > "$D/rooted.js"                                      # sidecar rooted.js.map
printf 'function m(){}\n//# sourceMappingURL=nothere.map\n' > "$D/missing.js"
printf 'function c(){}\n//# sourceMappingURL=corrupt.js.map\n' > "$D/corrupt.js"
echo 'function v(){}' > "$D/badvlq.js"
echo 'function i(){}' > "$D/badindex.js"
printf 'x\n  function plain(){}\n' > "$D/nomap.js"
sed "s#@DIR@#$D#g" "$FIX/profile.cpuprofile.in" > p.cpuprofile

"$NODESCOPE" collapse p.cpuprofile > out.folded 2> err
cat > want.folded <<WANT
alpha file://$D/a.ts:1:5 1
alpha file://$D/a.ts:1:5;b file://$D/lib/b.ts:1:1 1
rname /src/root/r.ts:1:1 1
m file://$D/missing.js:1:1 1
c file://$D/corrupt.js:1:1 1
v file://$D/badvlq.js:1:1 1
i file://$D/badindex.js:1:1 1
u [unmapped] file://$D/idx.js:6:1 1
plain file://$D/nomap.js:2:3 1
sname file://$D/src/s.ts:1:1 1
t file://$D/stale.js:1:1 1
WANT
diff <(sort want.folded) <(sort out.folded) || { echo "FAIL: mapped frames"; exit 1; }
# one warning per bad map, naming it and the problem
grep -q "$D/missing.js: warning: its sourceMappingURL names $D/nothere.map, which cannot be read" err
grep -q "$D/corrupt.js.map: warning: bad source map, ignored: line [0-9]*: control character inside a string" err
grep -q "$D/badvlq.js.map: warning: bad source map, ignored: bad VLQ in the mappings of generated line 1" err
grep -q "$D/badindex.js.map: warning: bad source map, ignored: a 'sources' index out of range" err
grep -q "$D/stale.js.map: warning: source map does not match $D/stale.js, ignored: its mappings cover 3 generated lines, the script has 1" err
[ "$(wc -l < err)" = 5 ] || { cat err; echo "FAIL: expected 5 warnings"; exit 1; }

# the index map's ignored source folds into its caller (here: the root)
"$NODESCOPE" collapse --hide-ignored -q p.cpuprofile > hidden.folded
grep -qx "b file://$D/lib/b.ts:1:1 1" hidden.folded && ! grep -q alpha hidden.folded
# the same mapped frames in a written .cpuprofile (0-based there)
"$NODESCOPE" convert -q p.cpuprofile -o m.cpuprofile
node -e '
const p = JSON.parse(require("fs").readFileSync("m.cpuprofile", "utf8"));
const f = p.nodes.find((n) => n.callFrame.functionName === "rname").callFrame;
if (f.url !== "/src/root/r.ts" || f.lineNumber !== 0 || f.columnNumber !== 0) { console.error(f); process.exit(1); }'
# --no-source-maps: the profile as it was
"$NODESCOPE" collapse --no-source-maps p.cpuprofile > raw.folded 2> raw.err
[ ! -s raw.err ] && grep -q "^a file://$D/idx.js:1:11;b file://$D/idx.js:1:26 1" raw.folded
echo "ok: index/url-section/sidecar/sourceRoot maps, bad and stale maps warned once each, --hide-ignored"

# a package under node_modules that names a map it does not ship (typescript@5's _tsc.js): not
# the user's to fix, so no warning; --verbose says it
mkdir -p "$D/node_modules/pkg"
printf 'function m(){}\n//# sourceMappingURL=nothere.map\n' > "$D/node_modules/pkg/missing.js"
sed "s#$D/missing.js#$D/node_modules/pkg/missing.js#g" p.cpuprofile > pkg.cpuprofile
grep -q node_modules/pkg/missing.js pkg.cpuprofile || { echo "FAIL: the fixture profile does not name missing.js"; exit 1; }
"$NODESCOPE" collapse pkg.cpuprofile > /dev/null 2> err2
if grep -q "node_modules/pkg/missing.js.*nothere.map" err2; then echo "FAIL: warned about a package's missing map"; cat err2; exit 1; fi
"$NODESCOPE" collapse -v pkg.cpuprofile > /dev/null 2> err3
grep -q "node_modules/pkg/missing.js: its sourceMappingURL names $D/node_modules/pkg/nothere.map, which does not exist" err3 ||
    { echo "FAIL: --verbose does not say the package's map is missing"; cat err3; exit 1; }
echo "ok: a package's missing map"
