#!/bin/bash
# core --pid --snapshot and nodescope gcore (issue 30), on Node 18-26:
#  - snapshot_ticker.js (a heap that stops changing after setup; then again with a 1 ms ticker
#    recording its longest gap): `objects`, `print --json` and `retainers` read from the frozen copy equal the
#    same commands on gdb's gcore of the same state; the ticker's longest gap while each of
#    --snapshot, --stop and gdb's gcore ran is printed; after each command the process is not
#    stopped, not traced, and has no child (the copy was killed and reaped); a nodescope killed
#    (SIGKILL) while its copy lives takes the copy with it, and the next snapshot reaps its zombie;
#    the program then exits with status 0 printing its own exit line once (no copy ever ran), and
#    the child processes it spawned all along were all seen exiting 0 by libuv;
#  - nodescope gcore's gap is 20 times shorter than gdb's gcore's at least;
#  - `nodescope gcore` of stack_truth.js blocked on a FIFO: gdb lists as many threads as the
#    process has, and `core FILE stack` equals the program's own Error().stack.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_snapshot
fail() { echo "FAIL (node $v): $*"; exit 1; }
command -v gdb > /dev/null || { echo "skip: no gdb"; exit 77; }
# the process after a command: running or sleeping, untraced, childless
clean() { left_clean "$pid" "$1"; }
gap() { : > "$w/out"; kill -USR2 "$pid"; for _ in $(seq 50); do grep -q gap "$w/out" && break; sleep 0.02; done; awk '/gap/ {print $2}' "$w/out"; }
check_major() {
    w=$dir/$v; mkdir -p "$w"
    bin=$NODESCOPE; [ "$v" = 20 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}   # ASan on one major
    start() {
        rm -f "$w/ready"
        "$NODE" --expose-gc "$FIX/snapshot_ticker.js" "$w/ready" 50 "$@" > "$w/out" & pid=$!
        for _ in $(seq 100); do [ -s "$w/ready" ] && break; sleep 0.1; done
        [ -s "$w/ready" ] || fail "fixture never got ready"
        sleep 0.5
    }
    start quiet   # its heap does not change: what the snapshot reads is what gcore dumps
    # the same state, read twice: no signal (its handler allocates) between the snapshot and gdb's gcore
    timeout 60 "$bin" core --pid "$pid" -v objects > "$w/snap.objects" 2> "$w/snap.err" || { cat "$w/snap.err"; fail "objects --snapshot exited $?"; }
    clean "objects --snapshot"
    timeout 60 "$bin" core --pid "$pid" --snapshot print --json globalThis.snapTarget > "$w/snap.print" || fail "print --snapshot exited $?"
    clean "print --snapshot"
    timeout 60 "$bin" core --pid "$pid" retainers globalThis.snapTarget > "$w/snap.ret" || fail "retainers --snapshot exited $?"
    clean "retainers --snapshot"
    timeout 60 "$bin" core --pid "$pid" stack --json > "$w/snap.stack" || fail "stack --json --snapshot exited $?"
    node -e 'const j = JSON.parse(require("fs").readFileSync(0)); if (j.read !== "snapshot" || !(j.stopped_ms > 0)) process.exit(1)' \
        < "$w/snap.stack" || fail "stack --json: no read/stopped_ms: $(tail -c 100 "$w/snap.stack")"
    clean "stack --snapshot"
    timeout 60 "$bin" core --pid "$pid" retainers --json globalThis.snapTarget > "$w/snap.retjson" || fail "retainers --json --snapshot exited $?"
    node -e 'const j = JSON.parse(require("fs").readFileSync(0)); if (j.read !== "snapshot" || !(j.stopped_ms > 0) || !j.paths.length) process.exit(1)' \
        < "$w/snap.retjson" || fail "retainers --json: no read/stopped_ms: $(tail -c 100 "$w/snap.retjson")"
    clean "retainers --json --snapshot"
    gcore -o "$w/core" "$pid" > /dev/null 2>&1 || { echo "skip: gcore failed (ptrace not permitted?)"; exit 77; }
    clean "gdb's gcore"
    timeout 60 "$NODESCOPE_RELEASE" gcore -o "$w/ns.core" "$pid" 2> "$w/gcore.err" || { cat "$w/gcore.err"; fail "nodescope gcore exited $?"; }
    clean "nodescope gcore"
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
    # the ticker's longest gap while each ran (and children spawned all along)
    start spawn
    gap > /dev/null
    timeout 60 "$NODESCOPE_RELEASE" core --pid "$pid" -v objects > /dev/null 2> "$w/snap2.err" || fail "objects --snapshot exited $?"
    g_snap=$(gap)
    stop_ms=$(grep -o 'stopped for [0-9.]* ms' "$w/snap2.err" | grep -o '[0-9.]*')
    timeout 60 "$NODESCOPE_RELEASE" core --pid "$pid" --stop objects > /dev/null || fail "objects --stop exited $?"
    g_stop=$(gap); clean "objects --stop"
    gcore -o "$w/again" "$pid" > /dev/null 2>&1; rm -f "$w"/again.*
    g_gcore=$(gap)
    timeout 60 "$NODESCOPE_RELEASE" gcore -o "$w/again" "$pid" 2> "$w/gcore.err" || fail "nodescope gcore exited $?"
    g_nsgcore=$(gap); rm -f "$w/again"
    ns_stop=$(grep -o 'stopped [0-9.]* ms' "$w/gcore.err" | grep -o '[0-9.]*')
    if [ "$v" = 22 ]; then   # nodescope killed while its copy lives: the copy dies, the next snapshot reaps it
        mkfifo "$w/hold"
        "$NODESCOPE_RELEASE" core --pid "$pid" < "$w/hold" > /dev/null 2>&1 & nsp=$!
        exec 8> "$w/hold"
        copy=
        for _ in $(seq 200); do copy=$(snapshot_copies "$pid"); [ -n "$copy" ] && break; sleep 0.05; done
        [ -n "$copy" ] || fail "no copy while the prompt runs"
        # the copy exists a moment before the target's registers are back and it is detached (the
        # injection window, docs/target.md): kill once no thread of the target is traced any more
        for _ in $(seq 200); do
            grep -q '^TracerPid:[[:space:]]*[1-9]' /proc/"$pid"/task/*/status 2> /dev/null || break
            sleep 0.01
        done
        kill -9 "$nsp"; wait "$nsp" 2> /dev/null; exec 8>&-
        sleep 0.2
        st=$(awk '/^State:/ {print $2}' "/proc/$copy/status" 2> /dev/null)
        [ -z "$st" ] || [ "$st" = Z ] || fail "the copy of a killed nodescope is in state $st"
        timeout 60 "$NODESCOPE_RELEASE" core --pid "$pid" stack > /dev/null || fail "stack after a killed nodescope exited $?"
        clean "a snapshot after a killed nodescope"
        echo "node $v: nodescope killed with its copy alive: copy ${st:-gone}, reaped by the next snapshot"
        # killed at any moment, the injection window included (the guard finishes the freeze, and
        # thaws when nodescope is gone): the target lives on, untraced, with no copy left
        for i in $(seq 40); do
            "$NODESCOPE_RELEASE" core --pid "$pid" stack > /dev/null 2>&1 & nsp=$!
            sleep "0.0$((RANDOM % 30))"
            kill -9 "$nsp" 2> /dev/null; wait "$nsp" 2> /dev/null
            kill -0 "$pid" 2> /dev/null || fail "the target died when nodescope was killed (round $i)"
        done
        # the guards of killed nodescopes (their own process groups, the same command line) finish
        # what they began, or see their nodescope gone and do nothing: wait for them first (CI
        # found one tracing the target after the check below had seen it untraced)
        for _ in $(seq 400); do pgrep -f "core --pid $pid stack" > /dev/null || break; sleep 0.05; done
        # (up to 20 s: CI once found the target still traced at 5 s, cause not known)
        for k in $(seq 400); do
            [ -z "$(snapshot_copies "$pid")" ] && ! grep -q '^TracerPid:[[:space:]]*[1-9]' /proc/"$pid"/task/*/status && break
            if [ "$k" = 40 ]; then   # still traced after 2 s: say by whom, doing what (for the log)
                for tp in $(grep -h '^TracerPid' /proc/"$pid"/task/*/status | awk '$2 != 0 {print $2}' | sort -u); do
                    echo "after 2 s: traced by $tp ($(tr '\0' ' ' < /proc/"$tp"/cmdline 2> /dev/null)), state" \
                         "$(awk '/^State/ {print $2}' /proc/"$tp"/status 2> /dev/null), wchan $(cat /proc/"$tp"/wchan 2> /dev/null)"
                    head -8 /proc/"$tp"/stack 2> /dev/null
                done
            fi
            sleep 0.05
        done
        clean "40 nodescopes killed at random moments"
        echo "node $v: 40 nodescopes killed 0-30 ms into a snapshot: the target lives, untraced, no copy left"
    fi
    # the program's own end: exit status 0 and one "exit PID" line, its own (no copy ever ran)
    : > "$w/out"; kill -INT "$pid"; wait "$pid"; rc=$?; p=$pid; pid=
    [ $rc = 0 ] || fail "the fixture exited $rc after the snapshots"
    [ "$(tr -d '\0' < "$w/out" | grep -c '^exit ')" = 1 ] && tr -d '\0' < "$w/out" | grep -q "^exit $p children " ||
        fail "the fixture's output at exit: $(tr -d '\0' < "$w/out")"
    # its child processes (one every 100 ms) all exited 0 as libuv saw them, but the one in flight
    read -r spawned ok bad <<< "$(tr -d '\0' < "$w/out" | sed -n 's/^exit [0-9]* children //p')"
    [ "$bad" = 0 ] && [ "$ok" -gt 0 ] && [ "$ok" -ge $((spawned - 2)) ] || fail "children: $spawned spawned, $ok exited 0, $bad not"
    echo "node $v: $spawned children spawned during the test, $ok seen exiting 0, $bad otherwise"
    echo "node $v: longest ticker gap (ms): --snapshot $g_snap (stopped $stop_ms), --stop $g_stop, gdb gcore $g_gcore, nodescope gcore $g_nsgcore (stopped $ns_stop)"
    # nodescope gcore stops the program at least 20 times shorter than gdb's: its stop against gdb's
    # gap (the gap while nodescope writes the core also has the 2 vCPUs shared with the writing)
    awk -v n="$ns_stop" -v g="$g_gcore" 'BEGIN {exit !(n != "" && g != "" && n * 20 < g)}' ||
        fail "nodescope gcore's stop $ns_stop ms is not 20 times shorter than gdb gcore's gap $g_gcore ms"
    core=$(ls "$w"/core.*)
    c() { timeout 60 "$NODESCOPE_RELEASE" core "$1" --node "$NODE" "${@:2}"; }
    c "$core" objects > "$w/core.objects" || fail "objects on the gcore exited $?"
    c "$core" print --json globalThis.snapTarget > "$w/core.print" || fail "print on the gcore exited $?"
    c "$core" retainers globalThis.snapTarget > "$w/core.ret" || fail "retainers on the gcore exited $?"
    grep -qE '^ *100[01] .* SnapItem$' "$w/snap.objects" || { cat "$w/snap.objects"; fail "no 1000 SnapItem in objects"; }
    grep -q '"nested":{"a":\[1,2,3\],"s":"str"}' "$w/snap.print" || fail "print: $(cat "$w/snap.print")"
    # objects: every row but plain Object and the total, which a lazy allocation of Node's own
    # (one Object, 56 bytes, seen once in ~10 runs on Node 18 and 20 between the two reads) moves
    # by one; those by at most 2
    same_but_objects() { grep -vE '^ *[0-9]+ +[0-9]+ +[0-9]+ +Object$|constructors\)$' "$1"; }
    diff <(same_but_objects "$w/snap.objects") <(same_but_objects "$w/core.objects") > "$w/diff" ||
        { cat "$w/diff"; fail "objects: the snapshot and the gcore differ"; }
    awk '/ Object$/ && NF == 4 {n[FILENAME] = $1} END {d = n[ARGV[1]] - n[ARGV[2]]; exit !(d >= -2 && d <= 2)}' \
        "$w/snap.objects" "$w/core.objects" || fail "objects: Object counts differ by more than 2"
    for k in print ret; do
        diff "$w/snap.$k" "$w/core.$k" > "$w/diff" || { cat "$w/diff"; fail "$k: the snapshot and the gcore differ"; }
    done
    # our own core, taken a moment later: the planted objects as in the snapshot, but for garbage
    # a GC between the two moments collected (objects counts every object on the pages: a dead
    # copy of the holder and of one item, left by the setup's scavenges, was in 1 run in ~8 under
    # load: 2 SnapHolder, 1001 SnapItem; `retainers` calls the copy unreachable): each planted
    # class at least as planted, and no more than the snapshot counted
    c "$w/ns.core" objects > "$w/ns.objects" || fail "objects on nodescope's core exited $?"
    awk '$NF ~ /^Snap(Item|Holder)$/ && NF == 4 { n[FILENAME, $NF] = $1 }
         END { s = ARGV[1]; c = ARGV[2]
               exit !(n[c, "SnapItem"] >= 1000 && n[c, "SnapItem"] <= n[s, "SnapItem"] &&
                      n[c, "SnapHolder"] >= 1 && n[c, "SnapHolder"] <= n[s, "SnapHolder"]) }' "$w/snap.objects" "$w/ns.objects" ||
        { grep Snap "$w/snap.objects" "$w/ns.objects"; fail "objects: the snapshot and nodescope's core differ"; }
    rm -f "$w"/core.* "$w/ns.core"

    # nodescope gcore of a program blocked in a known JavaScript stack
    core_w=$w/stack; mkdir -p "$core_w"; mkfifo "$core_w/fifo"
    "$NODE" "$FIX/stack_truth.js" "$core_w/fifo" "$core_w/truth.json" & pid=$!
    for _ in $(seq 100); do [ -s "$core_w/truth.json" ] && break; sleep 0.1; done
    [ -s "$core_w/truth.json" ] || fail "stack fixture never got ready"
    sleep 0.3
    threads=$(ls "/proc/$pid/task" | wc -l)
    "$bin" gcore -o "$core_w/core" "$pid" 2> "$core_w/err" || { cat "$core_w/err"; fail "nodescope gcore exited $?"; }
    clean "nodescope gcore"
    [ "$(ls "/proc/$pid/task" | wc -l)" = "$threads" ] || fail "the thread count changed during the test"
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
    gdb -batch -ex 'info threads' -ex bt "$NODE" "$core_w/core" > "$core_w/gdb" 2>&1
    got=$(grep -cE '^[* ] +[0-9]+ +Thread ' "$core_w/gdb")
    [ "$got" = "$threads" ] || { cat "$core_w/gdb"; fail "gdb lists $got threads, the process had $threads"; }
    grep -q '^#0 .* in .*open' "$core_w/gdb" || { cat "$core_w/gdb"; fail "gdb's bt: not in open"; }
    timeout 60 "$bin" core "$core_w/core" --node "$NODE" stack --json > "$core_w/ns.json" || fail "stack of nodescope's core exited $?"
    node "$FIX/compare_stack.js" "$core_w/truth.json" "$core_w/ns.json" "$FIX/stack_truth.js" || fail "nodescope gcore: stack differs from Error().stack"
    rm -f "$core_w/core"
}
core_for_each_node check_major
echo ok
