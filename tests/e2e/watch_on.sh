#!/bin/bash
# nodescope watch -p PID --on EVENT (issue 30), on Node 18-26, each program started with no flag:
#  - uncaught: throw_async.js throws from a nested async function after ~2 s of work (through a
#    function called under another property name); the core's `exception` prints the error's
#    message, where it was thrown and the frames node prints in its own stack, " [as check]" included; the program's exit status and stderr equal those of a run without nodescope;
#  - signal:SIGUSR2 --max 2 (the program has a handler), 3 signals: two cores whose `stack` reads
#    (the first written by a child of nodescope's while the watch went on), then the watch is
#    over: the program is not traced, not stopped, has no child left (copies killed and reaped),
#    and its handler saw every signal (output unchanged);
#  - exit (process.exit(3)): one core, stopped in node::Environment::Exit; status 3;
#  - on Node 20 and 24: nodescope killed with SIGKILL mid-watch leaves the program to throw and
#    exit exactly as without it (no stray breakpoint);
#  - on Node 22: a Worker started while watched runs (its thread gets the probes) and its uncaught
#    exception is the core's (`exception --thread N` as the watch names it); oom
#    (--max-old-space-size=32): a core stopped in FatalProcessOutOfMemory;
#  - on Node 20: heap:40 (--max-old-space-size=64, a heap growing ~10 MB/s): one core, with the
#    objects the program made, the process untraced and without copies after.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
FIX=$TEST_ROOT/tests/fixtures/watch/throw_async.js
test_dir watch_on
lsan_ignore_libdw
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done; rm -rf "$dir"' EXIT
fail_context() { echo "node $v"; }
[ -r /sys/bus/event_source/devices/uprobe/type ] || skip "no uprobe perf events in this kernel"

# starts the fixture (mode, node flags...) in the background: $pid once it wrote its pid file
start() {
    local mode=$1 tag=$2; shift 2
    rm -f "$w/$tag.pid"
    "$NODE" "$@" "$FIX" "$mode" "$w/$tag.pid" > "$w/$tag.out" 2> "$w/$tag.err" & pid=$!
    pids+=("$pid")
    for _ in $(seq 100); do [ -s "$w/$tag.pid" ] && break; sleep 0.05; done
    [ -s "$w/$tag.pid" ] || fail "$mode fixture never started"
}
check_major() {
    w=$dir/$v; mkdir -p "$w/cores"
    bin=$NODESCOPE; [ "$v" = 20 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}   # ASan on one major

    # uncaught, beside a run without nodescope (at the same time: the machine's 2 CPUs)
    start throw base; base=$pid
    start throw watched; wpid=$pid
    timeout 120 "$bin" watch -p "$wpid" --on uncaught -o "$w/cores" 2> "$w/watch.err"; rc=$?
    wait "$base"; bst=$?
    wait "$wpid"; wst=$?
    [ "$rc" = 0 ] || { cat "$w/watch.err"; fail "watch --on uncaught exited $rc"; }
    [ "$wst" = "$bst" ] || fail "exit status $wst under watch, $bst without"
    cmp -s "$w/base.err" "$w/watched.err" || { diff "$w/base.err" "$w/watched.err"; fail "stderr differs under watch"; }
    core=$w/cores/core.$wpid.uncaught.1
    [ -s "$core" ] || fail "no core: $(ls "$w/cores"; cat "$w/watch.err")"
    grep -q "wrote $core" "$w/watch.err" || fail "the core's path not on stderr: $(cat "$w/watch.err")"
    # where node says it was thrown: its first frame, "at Object.giveUp [as check] (FILE:12:COL)"
    at=$(grep -m1 '^    at Object.giveUp \[as check\] (' "$w/base.err" | sed 's/.*(//; s/)$//')
    [ -n "$at" ] || fail "no giveUp frame in node's own stderr: $(cat "$w/base.err")"
    timeout 60 "$bin" core "$core" exception > "$w/exc" 2>&1 || { cat "$w/exc"; fail "core exception exited $?"; }
    grep -q "watched failure: level3 gave up" "$w/exc" || fail "exception: no message: $(cat "$w/exc")"
    grep -qF "at $at" "$w/exc" || fail "exception: not thrown at $at: $(cat "$w/exc")"
    # the frames node prints ("    at ..."): from the Error's captured, still unformatted, stack
    # (V8's " [as method]" included: throw_async.js has a timer callback, Timeout.NAME [as _onTimeout])
    diff <(grep '^    at ' "$w/base.err") <(grep '^    at ' "$w/exc") > "$w/atdiff" ||
        { cat "$w/atdiff"; fail "exception: its frames differ from those node printed"; }
    timeout 60 "$bin" core "$core" stack > "$w/stack" 2>&1 || fail "core stack exited $?"
    grep -q "TriggerUncaughtException" "$w/stack" || fail "stack: not at TriggerUncaughtException: $(head "$w/stack")"
    rm -f "$w"/cores/*

    # signal:SIGUSR2, the program's handler runs each time
    start signal sig
    timeout 120 "$bin" watch -p "$pid" --on signal:SIGUSR2 --max 2 -o "$w/cores" 2> "$w/watch.err" & nsp=$!
    pids+=("$nsp")
    for _ in $(seq 100); do [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")" != 0 ] && break; sleep 0.05; done
    sleep 0.3   # every thread traced
    # the first core is written by a child while the watch goes on: the next signals are not held
    kill -USR2 "$pid"; sleep 0.3; kill -USR2 "$pid"; sleep 0.3; kill -USR2 "$pid"
    wait "$nsp" || { cat "$w/watch.err"; fail "watch --on signal:SIGUSR2 exited $?"; }
    left_clean "$pid" "watch --on signal:SIGUSR2"
    for _ in $(seq 100); do grep -q "usr2 3" "$w/sig.out" && break; sleep 0.05; done
    kill -USR2 "$pid"
    for _ in $(seq 100); do grep -q "usr2 4" "$w/sig.out" && break; sleep 0.05; done
    kill -TERM "$pid"; wait "$pid"; st=$?
    [ "$st" = 0 ] || fail "signal fixture exited $st"
    [ "$(cat "$w/sig.out")" = "$(printf 'usr2 1\nusr2 2\nusr2 3\nusr2 4\nterm after 4')" ] || fail "signal fixture's output: $(cat "$w/sig.out")"
    [ "$(ls "$w/cores" | wc -l)" = 2 ] || fail "not two SIGUSR2 cores: $(ls "$w/cores")"
    for core in "$w/cores/core.$pid.USR2.1" "$w/cores/core.$pid.USR2.2"; do
        grep -q "wrote $core: SIGUSR2" "$w/watch.err" || fail "$core not announced: $(cat "$w/watch.err")"
        timeout 60 "$bin" core "$core" stack > "$w/stack" 2>&1 && grep -q "^thread 0" "$w/stack" || fail "SIGUSR2 core's stack: $(head "$w/stack")"
    done
    rm -f "$w"/cores/*

    # exit: process.exit(3)
    start exit ex
    timeout 120 "$bin" watch -p "$pid" --on exit -o "$w/cores" 2> "$w/watch.err" || { cat "$w/watch.err"; fail "watch --on exit exited $?"; }
    wait "$pid"; st=$?
    [ "$st" = 3 ] && [ "$(cat "$w/ex.out")" = exiting ] || fail "exit fixture: status $st, output $(cat "$w/ex.out")"
    core=$w/cores/core.$pid.exit.1
    [ -s "$core" ] && [ "$(ls "$w/cores" | wc -l)" = 1 ] || fail "not one exit core: $(ls "$w/cores")"
    timeout 60 "$bin" core "$core" stack > "$w/stack" 2>&1 && grep -q "Environment::Exit\|Environment4Exit" "$w/stack" ||
        fail "exit core's stack: $(head "$w/stack")"
    rm -f "$w"/cores/*

    # nodescope killed with SIGKILL while it watches: the program throws and exits as it would have
    if [ "$v" = 20 ] || [ "$v" = 24 ]; then
        start throw killed
        "$bin" watch -p "$pid" --on uncaught -o "$w/cores" 2> /dev/null & nsp=$!
        pids+=("$nsp")
        # killed once it watches (threads traced, probes placed), well before the throw (~2 s)
        for _ in $(seq 100); do [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")" = "$nsp" ] && break; sleep 0.02; done
        [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")" = "$nsp" ] || fail "nodescope never traced the process"
        sleep 0.2
        kill -9 "$nsp"; wait "$nsp" 2> /dev/null
        wait "$pid"; st=$?
        [ "$st" = "$bst" ] || fail "after nodescope's SIGKILL: status $st (without nodescope: $bst)"
        cmp -s "$w/base.err" "$w/killed.err" || { diff "$w/base.err" "$w/killed.err"; fail "after nodescope's SIGKILL: stderr differs"; }
        say "node $v: SIGKILL of nodescope mid-watch: the program exited as without it"
    fi

    # heap:PCT, polled while it runs: the process untraced after, its heap in the core
    if [ "$v" = 20 ]; then
        start grow grow --max-old-space-size=64
        timeout 120 "$bin" watch -p "$pid" --on heap:40 -o "$w/cores" 2> "$w/watch.err" || { cat "$w/watch.err"; fail "watch --on heap:40 exited $?"; }
        left_clean "$pid" "watch --on heap:40"
        kill -TERM "$pid"; wait "$pid"; st=$?
        [ "$st" = 0 ] && grep -q '^kept' "$w/grow.out" || fail "grow fixture: status $st, output $(cat "$w/grow.out")"
        core=$w/cores/core.$pid.heap.1
        grep -q "wrote $core: heap [0-9]* MB, 4[0-9]% of its limit" "$w/watch.err" || fail "heap:40: $(cat "$w/watch.err")"
        timeout 60 "$bin" core "$core" objects > "$w/objects" 2>&1 || fail "heap core's objects exited $?"
        awk '$4 == "Object" && $1 > 100000 {ok = 1} END {exit !ok}' "$w/objects" || fail "heap core: not the grown objects: $(head -5 "$w/objects")"
        rm -f "$w"/cores/*
        say "node $v: heap:40 core"
    fi

    # a worker started while watched (threads made while traced: it must start) throws
    if [ "$v" = 22 ]; then
        "$NODE" "$TEST_ROOT/tests/fixtures/watch/worker_throw.js" "$w/worker.pid" > "$w/worker.out" 2>&1 & pid=$!
        pids+=("$pid")
        for _ in $(seq 100); do [ -s "$w/worker.pid" ] && break; sleep 0.05; done
        timeout 120 "$bin" watch -p "$pid" --on uncaught -o "$w/cores" 2> "$w/watch.err" || { cat "$w/watch.err"; fail "watch (worker) exited $?"; }
        wait "$pid"; st=$?
        [ "$st" = 5 ] && grep -q "main saw worker boom" "$w/worker.out" || fail "worker fixture: status $st, output $(cat "$w/worker.out")"
        th=$(grep -o -- '--thread [0-9]*' "$w/watch.err" | grep -o '[0-9]*$')
        [ -n "$th" ] || fail "the worker's thread not named: $(cat "$w/watch.err")"
        timeout 60 "$bin" core "$w/cores/core.$pid.uncaught.1" exception --thread "$th" > "$w/exc" 2>&1 &&
            grep -q "worker boom" "$w/exc" || fail "worker's exception: $(cat "$w/exc")"
        rm -f "$w"/cores/*
        say "node $v: a worker's uncaught exception"
    fi

    # oom
    if [ "$v" = 22 ]; then
        start oom oom --max-old-space-size=32
        timeout 120 "$bin" watch -p "$pid" --on oom -o "$w/cores" 2> "$w/watch.err" || { cat "$w/watch.err"; fail "watch --on oom exited $?"; }
        wait "$pid"; st=$?
        [ "$st" = 134 ] || fail "oom fixture exited $st (not V8's abort)"
        core=$w/cores/core.$pid.oom.1
        timeout 60 "$bin" core "$core" stack > "$w/stack" 2>&1 && grep -q "FatalProcessOutOfMemory" "$w/stack" ||
            fail "oom core's stack: $(head "$w/stack")"
        rm -f "$w"/cores/*
        say "node $v: oom core"
    fi
    rm -rf "$w"
}

tested=0
for v in $(node_majors); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || { say "no Node $v at $NODE: not tested"; continue; }
    check_major
    tested=$((tested + 1))
    say "node $v ok"
done
[ "$tested" -gt 0 ] || skip "no Node build installed"
