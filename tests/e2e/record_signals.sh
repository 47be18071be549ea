#!/usr/bin/env bash
# nodescope record always stops, always writes OUT, and leaves nothing behind:
# SIGINT, SIGTERM and SIGHUP sent to nodescope alone and to its process group,
# twice in a row; a program that ignores them; -d. Then every check that can fail
# before the program runs fails before it runs: unknown command, non-node program,
# unknown output extension, -p on a node without a perf map.
set -euo pipefail
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$TEST_TMP"
perf record -q -o probe.data -- true 2>/dev/null || { echo "perf cannot record here"; exit 77; }
rm -f probe.data
FIX=$OLDPWD/tests/fixtures/record
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1" | cut -c1)" = Z ]; }

# wait_gone PID SECONDS
wait_gone() {
    for _ in $(seq $(($2 * 10))); do gone "$1" && return 0; sleep 0.1; done
    return 1
}

# one_case NAME SIGNAL TARGET(alone|group) [stubborn]
one_case() {
    local name=$1 sig=$2 to=$3 mode=${4:-}
    rm -f pid.txt
    setsid "$NODESCOPE" record -o "$name.folded" -- node "$FIX/busy.js" pid.txt $mode > "$name.out" 2>&1 &
    local rec=$!
    for _ in $(seq 100); do [ -s pid.txt ] && break; sleep 0.1; done
    [ -s pid.txt ] || fail "$name: the program never started"
    local prog; prog=$(cat pid.txt)
    sleep 2
    local dest=$rec; [ "$to" = group ] && dest=-$rec
    local t0=$SECONDS
    kill -"$sig" -- "$dest"
    [ "$mode" = stubborn ] || { sleep 0.2; kill -"$sig" -- "$dest" 2>/dev/null || true; }
    set +e; wait_gone "$rec" 30; wait "$rec"; local rc=$?; set -e
    gone "$rec" || fail "$name: nodescope still running"
    gone "$prog" || { kill -9 "$prog"; fail "$name: the program still running"; }
    [ $rc -eq 0 ] || { cat "$name.out"; fail "$name: exit status $rc, expected 0 (nodescope stopped the program)"; }
    [ -s "$name.folded" ] || { cat "$name.out"; fail "$name: no profile written"; }
    grep -q 'spin' "$name.folded" || fail "$name: the profile does not show the program's function"
    [ -e "/tmp/perf-$prog.map" ] && fail "$name: /tmp/perf-$prog.map left behind"
    ls "$TMPDIR" | grep -q nodescope-record && fail "$name: temporary recording left in $TMPDIR"
    echo "ok: $name ($((SECONDS - t0)) s to stop)"
}

for sig in INT TERM HUP; do
    one_case "$sig-alone" "$sig" alone
    one_case "$sig-group" "$sig" group
done
# A program that ignores the signal is killed after the grace period.
one_case stubborn TERM alone stubborn
grep -q 'did not exit' stubborn.out || fail "stubborn: no message about the grace period"

# -d: a planned stop is success
"$NODESCOPE" record -d 1 -o d.folded -- node "$FIX/busy.js" pid.txt > d.out 2>&1 || { cat d.out; fail "-d exit status $?"; }
[ -s d.folded ] || fail "-d: no profile"
[ -e "/tmp/perf-$(cat pid.txt).map" ] && fail "-d: perf map left behind"

# Checks before the program runs: the program must not run at all.
expect_error() {   # NAME EXPECTED-RC PATTERN -- command...
    local name=$1 want=$2 pat=$3; shift 4
    set +e; "$@" > err.out 2>&1; local rc=$?; set -e
    [ $rc -eq "$want" ] || { cat err.out; fail "$name: exit $rc, expected $want"; }
    grep -q "error:.*$pat" err.out || { cat err.out; fail "$name: message lacks '$pat'"; }
    [ -e ran ] && fail "$name: the program ran"
    echo "ok: $name: $(head -n1 err.out)"
}
expect_error missing 1 'command not found' -- "$NODESCOPE" record -o x.folded -- no-such-command-xyz
expect_error extension 2 '\.cpuprofile' -- "$NODESCOPE" record -o x.xyz -- node -e 'require("fs").writeFileSync("ran","")'
expect_error not-node 1 'not node.*--perf' -- "$NODESCOPE" record -o x.folded -- sh -c 'touch ran'
expect_error usage 2 'unknown option' -- "$NODESCOPE" record --no-such-option -- node -e 1
[ "$(wc -l < err.out)" -le 2 ] || fail "a usage error prints more than the error and where to look"
# --perf records any program (natively)
"$NODESCOPE" record --perf -o sh.folded -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' 2> sh.out || { cat sh.out; fail "--perf"; }
[ -s sh.folded ] || fail "--perf: no profile"
# A script node runs (#!/usr/bin/env node) is sampled with JS names
printf '#!/usr/bin/env node\nfunction scriptSpin(){let x=0;for(let i=0;i<3e7;i++)x+=i;return x}\nfor(let k=0;k<60;k++)scriptSpin()\n' > tool.js
chmod +x tool.js
"$NODESCOPE" record -F 499 -o tool.folded -- ./tool.js 2> tool.out || { cat tool.out; fail "node script"; }
grep -q 'scriptSpin .*tool.js' tool.folded || { grep -c . tool.folded; fail "node script: no JS names for scriptSpin"; }
# -p on a node started without flags: sampled (nothing to stop: it runs on); with --perf,
# a warning that perf cannot name its JS frames without a perf map
node -e 'setTimeout(()=>{}, 20000)' & plain=$!
"$NODESCOPE" record -p "$plain" -d 1 -o p.folded 2> p.out || { cat p.out; fail "-p without flags"; }
kill -0 "$plain" || fail "-p: the process did not survive"
"$NODESCOPE" record --perf -p "$plain" -d 1 -o pp.folded 2> pp.out || { cat pp.out; fail "--perf -p without a map"; }
grep -q 'warning:.*perf-basic-prof' pp.out || { cat pp.out; fail "--perf -p without a map: no warning"; }
kill "$plain"; wait "$plain" 2>/dev/null || true
ls isolate-*.log 2>/dev/null && fail "V8 log files left behind"
echo PASS
