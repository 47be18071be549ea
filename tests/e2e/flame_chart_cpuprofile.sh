#!/bin/bash
# flame --flamechart on a real node --cpu-prof profile: x is time, so a program
# that runs phaseA, then phaseB, then phaseA again must show phaseA's frames on
# both sides of phaseB's (a flame graph merges them into one frame each).
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || exit 77
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
# phase runs in x order, adjacent duplicates collapsed: must be A B A
order=$(grep -o 'x="[0-9.]*"[^>]*><title>phase[AB] ' chart.svg |
        sed 's/x="\([0-9.]*\)".*<title>phase\([AB]\) /\1 \2/' | sort -n | awk '{print $2}' | uniq | tr -d '\n')
case "$order" in *ABA*) ;; *) fail "phase order along x is '$order', expected ABA";; esac
"$NODESCOPE" flame -q prof/*.cpuprofile -o graph.svg
[ "$(grep -c '<title>phaseA ' graph.svg)" -eq 1 ] || fail "flame graph should merge phaseA into one frame"
echo PASS
