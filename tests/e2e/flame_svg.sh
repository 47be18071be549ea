#!/usr/bin/env bash
# nodescope flame / diff on real and hostile input: well-formed XML (xmllint),
# byte-identical output for identical input, the js palette legend, minwidth
# pruning reported, differential colours, a flame chart from a perf timeline,
# and clear errors for bad input.
set -euo pipefail
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$TEST_TMP"
DATA=$OLDPWD/examples

# a real perf capture of examples/busy.js: JS frames coloured by tier, with a legend
"$NODESCOPE" flame --no-resolve "$DATA/node-perf.txt" -o a.svg
"$NODESCOPE" flame --no-resolve "$DATA/node-perf.txt" -o b.svg
cmp a.svg b.svg || fail "two runs differ"
xmllint --noout a.svg || fail "not well-formed XML"
grep -q 'JS optimized (TurboFan \*)' a.svg || fail "no js legend"
grep -q 'JS:\*parseRecords' a.svg || fail "hot function missing"
# the frame data the script reads: every frame's name, depth, value (and before)
cp "$OLDPWD/tests/lib/flame_data.js" frames.js
# the share of parseRecords in the frame data agrees with collapse
share=$(node -e '
const f = require("./frames.js")("a.svg");
let best = 0;
for (const x of f) if (x.name.startsWith("JS:*parseRecords")) best = Math.max(best, 100 * x.value / f.total);
console.log(best);')
node -e "process.exit($share > 40 && $share < 90 ? 0 : 1)" || fail "parseRecords share $share% not in 40..90"

# hostile names: markup, quotes, invalid UTF-8, control characters
printf 'main;<script>alert(1)</script> 5\nmain;a&b"c'"'"'d 3\nmain;bad\xff\xfe\x01utf 2\nmain;\xe6\x97\xa5\xe6\x9c\xac 1\n' > evil.folded
"$NODESCOPE" flame evil.folded -o evil.svg
xmllint --noout evil.svg || fail "hostile names broke the XML"
grep -q '<script>alert' evil.svg && fail "raw markup in output"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' evil.svg || fail "escaped name missing"
grep -q '日本' evil.svg || fail "UTF-8 name mangled"

# minwidth: wide graph of many tiny frames; dropped frames are counted
node -e 'let s=""; for (let i=0;i<5000;i++) s+=`root;f${i} 1\n`; s+="root;big 100000\n"; require("fs").writeFileSync("tiny.folded", s)'
"$NODESCOPE" flame -v tiny.folded -o tiny.svg 2> tiny.err
grep -q '5000 frames narrower than 0.1 px' tiny.err || { cat tiny.err; fail "dropped frames not reported"; }
grep -q '5000 frames narrower' tiny.svg || fail "dropped frames not noted in the SVG"
"$NODESCOPE" flame --minwidth 0 tiny.folded -o all.svg
[ "$(node -e 'console.log(require("./frames.js")("all.svg").length)')" -eq 5003 ] || fail "minwidth 0 should keep every frame"
"$NODESCOPE" flame --minwidth 10% tiny.folded -o pct.svg
[ "$(node -e 'console.log(require("./frames.js")("pct.svg").length)')" -eq 3 ] || fail "--minwidth 10% should keep all, root, big"
# frames narrower than a pixel are data, not elements: the 5000 small ones are one strip
[ "$(grep -c '<rect class="f"' all.svg)" -eq 3 ] || fail "narrow frames drawn one by one"
[ "$(grep -c '<rect class="g"' all.svg)" -ge 1 ] || fail "narrow frames not drawn at all"

# options: title, inverted, colors, countname
"$NODESCOPE" flame --title 'T<1>' --subtitle sub --inverted --colors mem --countname bytes --width 800 --height 20 evil.folded -o opt.svg
grep -q 'T&lt;1&gt;' opt.svg && grep -q '>sub<' opt.svg && grep -q 'width="800"' opt.svg && grep -q 'total 11 bytes<' opt.svg || fail "options not applied"
# the subtitle names the unit of the weights (samples unless the input says otherwise)
grep -q '<tspan id="total">total 11 samples</tspan>' evil.svg || fail "subtitle without the unit"

# a broken unwind's run of [unknown] frames is one frame; --keep-unknown keeps them all
node -e 'let s=""; for (let k=1;k<=120;k+=7) s+="node;"+"[unknown];".repeat(k)+"JS:*hot /app/x.js:1:1;leaf 10\n"; s+="node;main 5\n"; require("fs").writeFileSync("unk.folded", s)'
"$NODESCOPE" flame unk.folded -o unk.svg
node -e '
const f = require("./frames.js")("unk.svg");
const u = f.filter((x) => x.name.startsWith("[unknown]"));
if (u.length !== 1 || u[0].name !== "[unknown] \u00d71\u2013120" || u[0].depth !== 2) { console.error(JSON.stringify(u)); process.exit(1); }
const hot = f.filter((x) => x.name.startsWith("JS:*hot"));
if (hot.length !== 1 || hot[0].depth !== 3 || hot[0].value !== 180) { console.error(JSON.stringify(hot)); process.exit(1); }' || fail "[unknown] runs not folded"
# diff folds both sides the same way: the [unknown] frame is matched, unchanged
"$NODESCOPE" diff unk.folded unk.folded -o unkdiff.svg
node -e '
const u = require("./frames.js")("unkdiff.svg").find((x) => x.name.startsWith("[unknown]"));
if (!u || u.before !== u.value || u.color[0] !== u.color[2]) { console.error(JSON.stringify(u)); process.exit(1); }' || fail "diff of folded [unknown] runs"
"$NODESCOPE" flame --keep-unknown unk.folded -o keep.svg
[ "$(node -e 'console.log(require("./frames.js")("keep.svg").filter((x) => x.name === "[unknown]").length)')" -eq 120 ] || fail "--keep-unknown"

# diff: grew red, shrank blue, tooltip with both counts
printf 'main;a 10\nmain;b 10\n' > before.folded
printf 'main;a 30\nmain;b 5\n' > after.folded
"$NODESCOPE" diff before.folded after.folded -o diff.svg
xmllint --noout diff.svg
node -e '
const f = require("./frames.js")("diff.svg");
const a = f.find((x) => x.name === "a"), b = f.find((x) => x.name === "b");
if (a.color[0] !== 255 || a.color[2] === 255) { console.error("a grew but is " + a.color); process.exit(1); }
if (b.color[2] !== 255 || b.color[0] === 255) { console.error("b shrank but is " + b.color); process.exit(1); }
if (a.before !== 10 || a.value !== 30) { console.error("before/after: " + JSON.stringify(a)); process.exit(1); }
const svg = require("fs").readFileSync("diff.svg", "utf8");
if (!/<rect class="f" data-i="\d+" [^>]*fill="rgb\(255,/.test(svg)) { console.error("no red rect"); process.exit(1); }
'
"$NODESCOPE" diff --negate before.folded after.folded -o neg.svg
grep -q 'rgb(255,' neg.svg || fail "negate"

# flame chart from perf's timeline: several runs of the same frame along x
"$NODESCOPE" flame --no-resolve --flamechart "$DATA/node-perf.txt" -o chart.svg
grep -q '>Flame Chart<' chart.svg || fail "flame chart title"
[ "$(node -e 'console.log(require("./frames.js")("chart.svg").filter((x) => x.name.startsWith("JS:*parseRecords")).length)')" -gt 2 ] || fail "flame chart merged time order away"

# errors: empty input, binary, missing file, bad option
: > empty.txt
set +e
"$NODESCOPE" flame empty.txt -o x.svg 2> err; rc=$?
[ $rc -eq 1 ] && grep -q empty.txt err || fail "empty input: rc $rc"
head -c 5000 /dev/urandom > bin.dat
"$NODESCOPE" flame bin.dat -o x.svg 2> err; rc=$?
[ $rc -eq 1 ] && grep -q bin.dat err || fail "binary input: rc $rc"
"$NODESCOPE" flame missing.folded 2> err; rc=$?
[ $rc -eq 1 ] && grep -q missing.folded err || fail "missing file: rc $rc"
"$NODESCOPE" flame --colors nope evil.folded > /dev/null 2> err; rc=$?
[ $rc -eq 2 ] || fail "bad palette: rc $rc"
"$NODESCOPE" flame evil.folded -o evil.folded 2> err; rc=$?
[ $rc -eq 1 ] && grep -q 'refusing to overwrite' err || fail "overwrote its input"
[ -e x.svg ] && fail "output left behind after an error"
set -e
echo PASS
