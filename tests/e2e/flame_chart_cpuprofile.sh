#!/bin/bash
# flame --flamechart on a real node --cpu-prof profile: x is time, so a program
# that runs phaseA, then phaseB, then phaseA again must show phaseA's frames on
# both sides of phaseB's (a flame graph merges them into one frame each).
set -euo pipefail
. "$(dirname "$0")/../lib/test-lib.sh"
command -v node >/dev/null || exit 77
export FLAME_DATA=$PWD/tests/lib/flame_data.js
cd "$TEST_TMP"
cat > phases.js <<'JS'
function spin(ms) { const t = Date.now(); let s = 0; while (Date.now() - t < ms) s += Math.sqrt(s + 1); return s; }
function phaseA() { return spin(150); }
function phaseB() { return spin(150); }
phaseA(); phaseB(); phaseA();
JS
node --cpu-prof --cpu-prof-dir=prof phases.js
"$NODESCOPE" flame -q --flamechart prof/*.cpuprofile -o chart.svg 2> err
grep -q 'no timeline' err && fail "cpuprofile has a timeline but flamechart fell back"
grep -q '>Flame Chart<' chart.svg || fail "no flame chart title"
# phase runs in x order (the frame data is in x order), adjacent duplicates collapsed: must be A B A
names() {  # the frame names of an SVG's data, in order
    node -e '
const f = require(process.env.FLAME_DATA)(process.argv[1]);
for (const x of f) console.log(x.name);' "$1"
}
order=$(names chart.svg | sed -n 's/^\(phase[AB]\) .*/\1/p' | sed 's/phase//' | uniq | tr -d '\n')
case "$order" in *ABA*) ;; *) fail "phase order along x is '$order', expected ABA";; esac
"$NODESCOPE" flame -q prof/*.cpuprofile -o graph.svg
[ "$(names graph.svg | grep -c '^phaseA ')" -eq 1 ] || fail "flame graph should merge phaseA into one frame"
# labels of cpuprofile frames drop the directory when the full name does not fit
grep -q '>phaseA phases.js:2<\|>phaseA<' graph.svg || grep -q 'phaseA file:' graph.svg || fail "no phaseA label"
echo PASS
