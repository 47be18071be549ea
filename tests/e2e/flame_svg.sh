#!/usr/bin/env bash
# nodescope flame / diff on real and hostile input: well-formed XML (xmllint),
# byte-identical output for identical input, the js palette legend, minwidth
# pruning reported, differential colours, a flame chart from a perf timeline,
# and clear errors for bad input.
set -euo pipefail
cd "$TEST_TMP"
DATA=$OLDPWD/examples
fail() { echo "FAIL: $*"; exit 1; }

# a real perf capture of examples/busy.js: JS frames coloured by tier, with a legend
"$NODESCOPE" flame --no-resolve "$DATA/node-perf.txt" -o a.svg
"$NODESCOPE" flame --no-resolve "$DATA/node-perf.txt" -o b.svg
cmp a.svg b.svg || fail "two runs differ"
xmllint --noout a.svg || fail "not well-formed XML"
grep -q 'JS optimized (TurboFan \*)' a.svg || fail "no js legend"
grep -q 'JS:\*parseRecords' a.svg || fail "hot function missing"
# the share of parseRecords in the tooltip data agrees with collapse
share=$(node -e '
const svg = require("fs").readFileSync("a.svg", "utf8");
const cfg = JSON.parse(/<script type="application\/json" id="flame-config">([\s\S]*?)<\/script>/.exec(svg)[1]);
let best = 0;
for (let i = 0; i < cfg.frames.length / 2; i++) {
  if (!cfg.names[cfg.frames[2 * i]].startsWith("JS:*parseRecords")) continue;
  best = Math.max(best, parseFloat(/, ([\d.]+)%/.exec(cfg.tips[i])[1]));
}
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
[ "$(grep -o '<rect class="f" x=' all.svg | wc -l)" -eq 5003 ] || fail "minwidth 0 should draw every frame"
"$NODESCOPE" flame --minwidth 10% tiny.folded -o pct.svg
[ "$(grep -o '<rect class="f" x=' pct.svg | wc -l)" -eq 3 ] || fail "--minwidth 10% should keep all, root, big"

# options: title, inverted, colors, countname
"$NODESCOPE" flame --title 'T<1>' --subtitle sub --inverted --colors mem --countname bytes --width 800 --height 20 evil.folded -o opt.svg
grep -q 'T&lt;1&gt;' opt.svg && grep -q '>sub<' opt.svg && grep -q 'width="800"' opt.svg && grep -q ' bytes, ' opt.svg || fail "options not applied"

# diff: grew red, shrank blue, tooltip with both counts
printf 'main;a 10\nmain;b 10\n' > before.folded
printf 'main;a 30\nmain;b 5\n' > after.folded
"$NODESCOPE" diff before.folded after.folded -o diff.svg
xmllint --noout diff.svg
node -e '
const svg = require("fs").readFileSync("diff.svg","utf8");
const cfg = JSON.parse(/id="flame-config">([\s\S]*?)<\/script>/.exec(svg)[1]);
const rects = [...svg.matchAll(/<rect class="f"[^>]*fill="([^"]*)"/g)].map(m => m[1]);
const at = (n) => { for (let i = 0; i < rects.length; i++) if (cfg.names[cfg.frames[2*i]] === n) return i; };
const a = at("a"), b = at("b");
if (!/^rgb\(255,/.test(rects[a])) { console.error("a grew but is " + rects[a]); process.exit(1); }
if (!/,255\)$/.test(rects[b])) { console.error("b shrank but is " + rects[b]); process.exit(1); }
if (!/before 10, \+20/.test(cfg.tips[a])) { console.error("tooltip: " + cfg.tips[a]); process.exit(1); }
'
"$NODESCOPE" diff --negate before.folded after.folded -o neg.svg
grep -q 'rgb(255,' neg.svg || fail "negate"

# flame chart from perf's timeline: several runs of the same frame along x
"$NODESCOPE" flame --no-resolve --flamechart "$DATA/node-perf.txt" -o chart.svg
grep -q '>Flame Chart<' chart.svg || fail "flame chart title"
[ "$(grep -c 'JS:\*parseRecords' chart.svg)" -gt 2 ] || fail "flame chart merged time order away"

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
