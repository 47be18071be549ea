#!/bin/bash
# record -e EVENT (issue 32: "JavaScript stacks on any event"), on fixtures/events/:
#  - syscall:write (Node 18-26): writes.js calls fs.writeSync from writerA 3 times for each
#    call from writerB, 1200 writes in all: the samples put 75% (+-2 points) under writerA, named
#    with its script, and --count's total equals what strace -c counts on the same program (+-1%);
#  - page-faults (Node 22): faults.js's toucher() holds >= 80% of the faults;
#  - gc (Node 18-26): gc.js allocates 3:1 in allocA and allocB, inlined into the long loop
#    of one call that V8 replaces on the stack (OSR): >= 90% of the GCs are named, the scavenges
#    under allocA and allocB go 3:1 (+-10 points), and the pauses (ns) add up to what --trace-gc
#    prints in the same run (+-10%; each pause rounded as --trace-gc prints it: Node 18 prints
#    tenths of ms, and its 0.1 ms scavenges are 0.08 or 0.12);
#  - u:node:uv_fs_open (Node 18-26): every one of opens.js's 600 fs.openSync calls is
#    counted by the kernel (and node's own opens at its start, 0-4 of them, when the probe is
#    there in time), every event counted is a sample (events opened before their ring was mapped
#    were counted and their samples lost: 2-4 in a run, events.h), >= 95% under opener() (593 of 600 in a CI run of the ASan build, every sample cut short there);
#  - OSR (Node 18-26): osr.js's hotLoop() runs 2 s in one call, its loop optimized while it
#    runs (OSR) with inner() inlined: record -F 999 puts >= 90% of the program's samples under
#    hotLoop and >= 50% under inner() inlined in it; node --cpu-prof on the same program is printed
#    beside it (V8's profiler shows hotLoop alone: no inlined inner in an OSR loop).
# Tracepoints and uprobes need root (or CAP_PERFMON): skipped without.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/events" && pwd -P)
test_dir record_events
lsan_ignore_libdw
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
[ "$(id -u)" -eq 0 ] || skip "tracepoints and uprobes need root"
v=
fail_context() { echo "node $v${what:+, $what}"; }

record() {   # OUT-PREFIX NODESCOPE-ARGS... -- PROGRAM...: $OUT.out (stdout), $OUT.err
    local out=$1 rc; shift
    timeout 120 "$NODESCOPE" record "$@" > "$out.out" 2> "$out.err"
    rc=$?
    skip_unless_perf_events $rc "$out.err" 'perf_event\|CAP_PERFMON\|tracefs'
    [ $rc -eq 0 ] || { cat "$out.err"; fail "record $* exited $rc"; }
    cat "$out.err"
}

# --- syscall:write
what=syscall:write
for v in $(node_majors); do
    node=$(node_bin $v)
    [ -x "$node" ] || { echo "no Node $v: not tested"; continue; }
    w=$dir/w$v
    record "$w" -e syscall:write --count -o "$w.folded" -- "$node" "$FIX/writes.js" "$w.txt" 300 1000 2000
    strace -f -c -e trace=write -o "$w.strace" "$node" "$FIX/writes.js" "$w.txt" 300 0 0 ||
        fail "strace failed"
    st=$(awk '$NF == "write" { print $(NF - 1) }' "$w.strace")
    total=$(awk '/^total / { print $2 }' "$w.out")
    read -r sum a b <<< "$(awk -v f="$FIX/writes.js" '{ n = $NF; t += n
        if (index($0, ";writerA " f ":")) a += n; else if (index($0, ";writerB " f ":")) b += n }
        END { print t, a + 0, b + 0 }' "$w.folded")"
    # samples whose JS frames were left unnamed and said so ("N partial: ... read too late"): on a
    # loaded machine the reader fell behind (338 of 1202 in one CI-like run on Node 22, with no
    # full GC seen): said, not named; they count as said, and the share is of the named ones. So do
    # those of a process that exited before the reader came to them ("N of M samples ... of 1
    # process that exited before nodescope could read them are left unnamed": 104 of 1201 beside a
    # CPU hog on Node 20)
    partial=$(sed -n 's/.* \([0-9]*\) partial: JS frames left unnamed.*/\1/p' "$w.err")
    exited=$(sed -n 's/.*warning: \([0-9]*\) of [0-9]* samples .* exited before nodescope could read them are left unnamed.*/\1/p' "$w.err")
    partial=$(( ${partial:-0} + ${exited:-0} ))
    echo "node $v: strace $st writes; recorded $sum (--count total $total): writerA $a, writerB $b, ${partial:-0} left unnamed (said)"
    awk -v st="$st" -v t="$total" -v s="$sum" -v a="$a" -v b="$b" -v partial="${partial:-0}" 'BEGIN {
        if (st < 1200) { print "strace counted " st " writes"; exit 1 }
        if (t != s) { print "--count total " t " differs from the profile'"'"'s " s; exit 1 }
        if (t < st * 0.99 || t > st * 1.01) { print "total " t " vs strace " st; exit 1 }
        if (a + b + partial < 1140 || a + b < 400) { print "writerA and writerB are named in only " a + b " samples (" partial " said unnamed)"; exit 1 }
        p = 100 * a / (a + b); printf "writerA %.1f%%\n", p
        if (p < 73 || p > 77) exit 1 }' || fail "syscall:write counts"
    grep -q '(write: '"$w"'.txt)' "$w.folded" || fail "no (write: $w.txt) leaf"
done

# --- page-faults
what=page-faults
v=22
node=$(node_bin $v)
if [ -x "$node" ]; then
    w=$dir/pf
    record "$w" -e page-faults -o "$w.folded" -- "$node" "$FIX/faults.js" 20 1 1000 20
    awk -v f="$FIX/faults.js" '{ n = $NF; t += n; if (index($0, ";toucher " f ":")) a += n }
        END { p = 100 * a / (t ? t : 1); printf "page faults: %d sampled, %.1f%% under toucher\n", t, p; exit !(t >= 1000 && p >= 80) }' \
        "$w.folded" || fail "toucher() holds too few of the faults"
fi

# --- gc
what=gc
for v in $(node_majors); do
    node=$(node_bin $v)
    [ -x "$node" ] || { echo "no Node $v: not tested"; continue; }
    w=$dir/gc$v
    record "$w" -e gc --print -o "$w.folded" -- "$node" --trace-gc "$FIX/gc.js" 60 1000 10
    awk -v f="$FIX/gc.js" -v v=$v '
        function done_one() { if (st) cnt[st]++ }
        /^[0-9]+\.[0-9]+ [0-9]+ ns$/ { done_one(); st = "o"; ours += $2; pause[n++] = $2 / 1e6; next }
        index($0, " allocA " f ":") { st = "A" }
        index($0, " allocB " f ":") { if (st != "A") st = "B" }
        match($0, /[0-9.]+ \/ [0-9.]+ ms/) { split(substr($0, RSTART, RLENGTH), x, " "); trace += x[1] * 1e6; tn++
            d = x[1]; sub(/^[0-9]*\.?/, "", d); digits = length(d) }
        END { done_one(); a = cnt["A"] + 0; b = cnt["B"] + 0
            scaled = n ? ours * tn / n : 0
            printf "node %s: ", v
            # every GC seen: each pause rounded as --trace-gc prints it (Node 18: tenths of ms)
            if (n == tn) { scaled = 0; for (i = 0; i < n; i++) scaled += sprintf("%." digits "f", pause[i]) * 1e6 }
            printf "gc: %d GCs sampled of %d (--trace-gc); allocA %d, allocB %d, unnamed %d; pauses %.2f ms (%.2f ms as --trace-gc rounds or for all), --trace-gc %.2f ms: %.3f\n", n, tn, a, b, cnt["o"], ours / 1e6, scaled / 1e6, trace / 1e6, trace ? scaled / trace : 0
            if (n < tn * 0.8 || a + b < n * 0.9) { print "too few GCs sampled or named"; exit 1 }
            p = 100 * a / (a + b); printf "allocA %.1f%%\n", p
            if (p < 65 || p > 85) exit 1
            if (scaled < trace * 0.9 || scaled > trace * 1.1) { print "pause weights differ from --trace-gc"; exit 1 } }' \
        "$w.out" || { echo "the heaviest stacks (weight, then their frames but C++'s):"
                      awk '{ w = $NF; n = split(substr($0, 1, length($0) - length(w) - 1), f, ";"); s = ""
                             for (i = 1; i <= n; i++) if (f[i] !~ /::/) s = s ";" f[i]; print w, s }' "$w.folded" | sort -nr | head -6
                      fail "gc attribution or pauses"; }
done

# --- u:node:uv_fs_open
what=u:node:uv_fs_open
for v in $(node_majors); do
    node=$(node_bin $v)
    [ -x "$node" ] || { echo "no Node $v: not tested"; continue; }
    w=$dir/u$v
    # the opens start once nodescope has its perf events open (a perf_event descriptor), not
    # after a fixed delay: under load the sampler was ready after the first 7 opens (593 counted)
    go=$w.go; rm -f "$go"
    # (every process the pattern matches is looked at: the first is `timeout`, whose command line
    # holds nodescope's, and taking it alone, a CI run beside a CPU hog waited out the 120 s)
    ( for _ in $(seq 600); do
          for pid in $(pgrep -f "record -e u:node:uv_fs_open -o $w.folded"); do
              ls -l /proc/$pid/fd 2> /dev/null | grep -q 'perf_event' && { sleep 0.1; touch "$go"; exit 0; }
          done
          sleep 0.05
      done; touch "$go" ) &
    record "$w" -e u:node:uv_fs_open -o "$w.folded" -v -- "$node" "$FIX/opens.js" 600 "$go" 500
    wait
    counted=$(sed -n 's/.*; \([0-9]*\) events counted.*/\1/p' "$w.err")
    # A sample read late (the reader falls behind on a loaded machine: 20-130 of the 600 at a load
    # of 5 on 2 cores) is named all the same when no full GC ran since (-v: "N read late and
    # named"): >= 95% named. Only when a full GC was seen may samples be left unnamed, and said
    # ("N partial"); so may those of a process that exited before they were read (said too).
    gcs=$(sed -n 's/.*(\([0-9]*\) full GCs).*/\1/p' "$w.err")
    partial=$(sed -n 's/.*; \([0-9]*\) partial: .*/\1/p' "$w.err")
    exited=$(sed -n 's/.*warning: \([0-9]*\) of [0-9]* samples .* exited before nodescope could read them.*/\1/p' "$w.err")
    awk -v f="$FIX/opens.js" -v c="$counted" -v gcs="${gcs:-unknown}" -v said="$(( ${partial:-0} + ${exited:-0} ))" -v v=$v '
        { n = $NF; t += n; if (index($0, ";opener " f ":") && $0 ~ /;uv_fs_open [0-9]+$/) a += n }
        END { printf "node %s: uv_fs_open: %s counted by the kernel, %d samples, %d under opener(), %d left unnamed (said), %s full GCs\n", v, c, t, a, said, gcs
              exit !(c >= 600 && t == c && (a >= 570 || (gcs != "0" && a + said >= 570))) }' "$w.folded" ||
        fail "not every fs.openSync is counted and named"
done
# --- OSR: a loop optimized while it runs, and the function inlined into it
what=osr
for v in $(node_majors); do
    node=$(node_bin $v)
    [ -x "$node" ] || { echo "no Node $v: not tested"; continue; }
    w=$dir/osr$v
    record "$w" -F 999 -o "$w.folded" -- "$node" "$FIX/osr.js" 2000 300
    mkdir "$w.prof"
    "$node" --cpu-prof --cpu-prof-dir="$w.prof" --cpu-prof-interval 1000 "$FIX/osr.js" 2000 300 || fail "node --cpu-prof failed"
    read -r vt vh vi <<< "$("$node" "$FIX/cpuprofile_share.js" "$w.prof"/*.cpuprofile hotLoop inner)"
    awk -v f="$FIX/osr.js" -v v=$v -v vt="$vt" -v vh="$vh" -v vi="$vi" '
        index($0, " " f ":") { n = $NF; t += n; if (index($0, ";hotLoop " f ":")) { h += n; if (index($0, ";inner " f ":")) i += n } }
        END { printf "node %s: OSR: %d samples in osr.js, %.1f%% under hotLoop, %.1f%% under inner inlined in it; node --cpu-prof: %d samples, %.1f%% under hotLoop, %.1f%% under inner\n",
                  v, t, 100 * h / (t ? t : 1), 100 * i / (t ? t : 1), vt, 100 * vh / (vt ? vt : 1), 100 * vi / (vt ? vt : 1)
              exit !(t >= 500 && h >= t * 0.9 && i >= t * 0.5) }' "$w.folded" || fail "the OSR frames are not named"
done
what=
echo ok
