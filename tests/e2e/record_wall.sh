#!/bin/bash
# record --wall (issue 13: "threads blocked in the kernel count too, with a leaf frame saying what
# they wait in"): fixtures/live/wait_half.js spins 50 ms, then waits 50 ms in Atomics.wait (a
# futex), over and over. Attached with --wall, its main thread shows spin() and nap() at about half
# each, nap() under a "(wait: futex)" leaf; without --wall (on-CPU time) nap() is nearly absent.
# The program's output and exit status are unchanged. Skips when perf events are not allowed.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
test_dir record_wall
lsan_ignore_libdw
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
NODE=$HERE/../.cache/node/22/bin/node
[ -x "$NODE" ] || NODE=node
"$NODE" "$FIX/wait_half.js" 100 "$dir/stop" > "$dir/out" 2> "$dir/err" & pid=$!
sleep 1
for mode in wall cpu; do
    flag=; [ $mode = wall ] && flag=--wall
    timeout 120 "$NODESCOPE" record -p "$pid" $flag -F 99 -d 3 -o "$dir/$mode.folded" > /dev/null 2> "$dir/$mode.err"
    rc=$?
    skip_unless_perf_events $rc "$dir/$mode.err" 'perf_event\|CAP_PERFMON'
    [ $rc -eq 0 ] || { cat "$dir/$mode.err"; fail "record $flag exited $rc"; }
    cat "$dir/$mode.err"
done
touch "$dir/stop"; wait "$pid"; prc=$?; pid=
[ $prc -eq 0 ] && [ "$(cat "$dir/out")" = "wait done" ] && [ ! -s "$dir/err" ] || fail "the program's output or exit status changed"
share() {   # mode: main-thread samples (partial ones left out), spin %, nap %, nap under (wait: futex) %
    awk -v file="$FIX/wait_half.js" '
        /^node \[main\];/ && !/;\(JS: / { n = $NF; total += n
            if (index($0, ";spin " file ":")) spin += n
            if (index($0, ";nap " file ":")) { nap += n; if (index($0, ";(wait: futex) ")) futex += n } }
        END { printf "%d %.1f %.1f %.1f\n", total, 100 * spin / (total ? total : 1), 100 * nap / (total ? total : 1),
                     100 * futex / (nap ? nap : 1) }' "$dir/$1.folded"
}
read -r wt ws wn wf <<< "$(share wall)"
read -r ct cs cn cf <<< "$(share cpu)"
echo "--wall: $wt main-thread samples, spin $ws%, nap $wn% ($wf% of it in (wait: futex))"
echo "on-CPU: $ct main-thread samples, spin $cs%, nap $cn%"
awk -v t="$wt" -v s="$ws" -v n="$wn" -v f="$wf" -v cn="$cn" 'BEGIN {
    if (t < 100) { print "too few --wall samples: " t; exit 1 }
    if (s < 30 || s > 70 || n < 30 || n > 70) { print "--wall shares are not about half each"; exit 1 }
    if (f < 80) { print "nap() is not under (wait: futex)"; exit 1 }
    if (cn > 15) { print "on-CPU sampling counts the wait"; exit 1 } }' || fail "wall-clock shares"
# The blocked thread's native frames, unwound from libc by its CFI: V8's condition variable wait
# calls pthread_cond_timedwait directly (a scan of the stack for return addresses took a stale
# one too: node::PerIsolatePlatformData::PostTask between them in 1 wait of 6). With libc's debug
# file its name is the .symtab's, as perf shows it: pthread_cond_timedwait@@GLIBC_2.3.2
awk '/^node \[main\];/ && index($0, ";(wait: futex) ") { w = $NF
        if (index($0, "ConditionVariable::WaitFor")) { with += w; if ($0 !~ /TimeDelta const&\);pthread_cond_timedwait(@@?GLIBC_[0-9.]+)?;/) bad += w }
        total += w }
     END { printf "futex waits: %d, %d through ConditionVariable::WaitFor, %d of those with a frame between it and pthread_cond_timedwait\n", total, with, bad
           exit !(total > 0 && with * 2 >= total && bad == 0) }' "$dir/wall.folded" || fail "the wait's native frames"
echo ok
