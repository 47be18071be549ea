#!/usr/bin/env bash
# Short-lived processes under record --children and -a (issue 29): a loop starts ten node
# processes one after the other, each running a hot function for 50-200 ms and exiting, most of
# them before nodescope has opened them (their maps, symbols, V8's metadata: 0.1-0.5 s). Every
# sample of theirs is named or under a named frame, "(JS: process exited before nodescope could
# read it)" / "(process exited before nodescope could read it)", never a bare JIT address
# ("0x7f..."); stderr says how many and which pids; nothing is left running or stopped.
#   --children of the loop's shell (node 20, then 24: four seconds each), -a (node 22, three seconds:
#   the host's other node processes are recorded too, only the loop's are looked at).
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$TEST_TMP"
FIX="$TEST_ROOT/tests/fixtures/tree"
[ -r /proc/sys/kernel/perf_event_paranoid ] || skip "no perf events"
"$NODESCOPE" record -q -o probe.folded -- node -e 'let s = 0; for (let i = 0; i < 3e7; i++) s += i' 2> probe.err ||
    { cat probe.err; skip "the live sampler cannot sample here"; }

# the loop: ten node processes, 50-200 ms each, their pids in $1
loop_script() {
    cat > loop.sh <<EOS
sleep 0.4
for i in 1 2 3 4 5 6 7 8 9 10; do
    "\$1" "$FIX/short.js" \$((50 + (i * 37) % 150)) & echo \$! >> "\$2"; wait
done
EOS
}
loop_script

# check FOLDED ERR PIDFILE LABEL: the loop's processes' samples
check() {
    local folded=$1 err=$2 pids=$3 what=$4 ours=$1.ours
    : > "$ours"
    while read -r p; do grep "^node \[pid $p " "$folded" >> "$ours" || true; done < "$pids"
    local n; n=$(awk '{s += $NF} END {print s + 0}' "$ours")
    say "$what: $n samples of the loop's processes ($(wc -l < "$pids") started)"
    # a frame that is a bare address in no file: JIT code left unnamed
    if sed 's/ [0-9]*$//' "$ours" | tr ';' '\n' | grep -qE '^0x[0-9a-f]+$'; then
        grep -E ';0x[0-9a-f]+(;| [0-9]+$)' "$ours" | head -5 | cut -c1-400
        cat "$err"
        fail "$what: a sample with a bare JIT address"
    fi
    local bucket; bucket=$(grep -F 'process exited before nodescope could read it)' "$ours" | awk '{s += $NF} END {print s + 0}')
    local named; named=$(grep -F 'shortHot' "$ours" | awk '{s += $NF} END {print s + 0}')
    say "$what: $named name shortHot, $bucket under the exited-before-read frames"
    if [ "$bucket" -gt 0 ]; then
        grep -qE 'warning: [0-9]+ of [0-9]+ samples .* exited before nodescope could read them .*pids? [0-9]' "$err" ||
            { cat "$err"; fail "$what: samples under the exited-before-read frames, no line on stderr"; }
        # the line's pids are processes recorded
        for p in $(grep -oE 'could read it\)'"'"': pids? [0-9, .]+' "$err" | grep -oE '[0-9]+'); do
            grep -q "^node \[pid $p " "$folded" || fail "$what: pid $p on stderr, not in the profile"
        done
    fi
    [ $((named + bucket)) -gt 0 ] || { cat "$err"; fail "$what: none of the loop's samples named nor counted"; }
}

# nothing left running or stopped
settled() {
    while read -r p; do
        local s; s=$(awk '/^State:/ {print $2}' "/proc/$p/status" 2> /dev/null || echo gone)
        [ "$s" = gone ] || [ "$s" = Z ] || fail "$1: process $p left in state $s"
    done < "$2"
}

for v in $(node_majors 20 24 26); do
    node=$(node_bin $v)
    [ -x "$node" ] || { [ $v = 20 ] && node=$(command -v node) || continue; }
    : > kids$v.pids
    bash loop.sh "$node" kids$v.pids & sh_pid=$!
    rc=0; "$NODESCOPE" record -p $sh_pid --children -d 4 -o kids$v.folded 2> kids$v.err || rc=$?
    wait $sh_pid || true
    [ $rc -eq 0 ] || { cat kids$v.err; fail "--children (node $v): exit $rc"; }
    check kids$v.folded kids$v.err kids$v.pids "--children (node $v)"
    # --children records only the loop: stderr's count is the bucket's whole weight
    said=$(grep -oE 'warning: [0-9]+ of [0-9]+ samples' kids$v.err | grep -oE '[0-9]+' | head -1)
    bucket=$(grep -F 'process exited before nodescope could read it)' kids$v.folded | awk '{s += $NF} END {print s + 0}')
    [ "${said:-0}" -eq "$bucket" ] || { cat kids$v.err; fail "--children (node $v): stderr says ${said:-0}, the profile holds $bucket"; }
    settled "--children (node $v)" kids$v.pids
done

node=$(node_bin 22)
[ -x "$node" ] || node=$(command -v node)
: > all.pids
bash loop.sh "$node" all.pids & sh_pid=$!
rc=0; "$NODESCOPE" record -a -d 3 -o all.folded 2> all.err || rc=$?
wait $sh_pid || true
# (another user's node, or one exiting while opened, may warn; an error is a failure)
[ $rc -eq 0 ] || { cat all.err; fail "-a: exit $rc"; }
check all.folded all.err all.pids "-a"
settled "-a" all.pids
exit 0
