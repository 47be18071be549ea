#!/bin/bash
# watch -p PID --heap (issue 31) on Node 18-26, with fixtures/leak/leaky.js: LeakySession leaks 200
# instances a second into a Map a module's SessionRegistry holds, LruEntry fills a bounded LRU
# (2400 entries, 1200 a second) that plateaus, ChurnItem/ChurnBatch are made and dropped each tick.
# On one major (20, the ASan build) the full run, --every 2s -d 20, from half a second after the
# start (the LRU fills in the first censuses); on the others --every 1s --censuses 8 (the release build)
# once the LRU is full. Each --json report: LeakySession is named first among the growing, at
# 200/s within 10%; LruEntry, ChurnItem and ChurnBatch are not growing; the retainer path of a new
# LeakySession names the Map's holder (SessionRegistry .sessions); the process was stopped and
# resumed every census (stop_ms reported), is not left traced, and has no copy left as a child;
# the LRU's 2400 entries are counted in every census once it is full.
# Also: -o report.html holds the JSON and one chart per growing constructor; --live reads the
# running process (one walk); SIGINT ends a watch without -d with a last census and its report; --fail-if-growth
# passes under the rate and exits 1 over it; usage errors exit 2; a process that is not node is
# refused; npm's pid is warned about with the program's pid, a cluster primary's workers are said.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/leak" && pwd -P)
test_dir watch_heap
lsan_ignore_libdw
pid=
# (npm's case: the program is npm's child, killed by its pid file)
trap '[ -n "$pid" ] && kill "$pid" $(cat "$dir/npm/pid" 2> /dev/null) 2>/dev/null; rm -rf "$dir"' EXIT
fail_context() { echo "node ${v:-}"; }

# usage errors, before anything is read
"$NODESCOPE" watch --heap > /dev/null 2> "$dir/e1"; [ $? -eq 2 ] && grep -q "which process" "$dir/e1" || fail "no -p"
"$NODESCOPE" watch --heap -p 1 --every 0 > /dev/null 2> "$dir/e2"; [ $? -eq 2 ] || fail "--every 0"
"$NODESCOPE" watch --heap -p 1 -o x.txt > /dev/null 2> "$dir/e3"; [ $? -eq 2 ] || fail "-o x.txt"
"$NODESCOPE" watch --heap -p 1 --fail-if-growth Session > /dev/null 2> "$dir/e4"; [ $? -eq 2 ] || fail "--fail-if-growth without a rate"
sleep 30 & sl=$!
"$NODESCOPE" watch --heap -p $sl -d 1 > /dev/null 2> "$dir/e5"; rc=$?; kill $sl
[ $rc -eq 1 ] && grep -q "is not node" "$dir/e5" || { cat "$dir/e5"; fail "a process that is not node"; }

# npm running the program: the heap would be npm's, said with the program's pid; a cluster's
# primary: its workers' heaps are their own, said with their pids
if command -v npm > /dev/null; then
    mkdir -p "$dir/npm"
    cp "$FIX/leaky.js" "$dir/npm/"
    echo '{ "name": "w", "private": true, "scripts": { "start": "node leaky.js pid 200" } }' > "$dir/npm/package.json"
    (cd "$dir/npm" && exec npm start > out 2>&1) & pid=$!
    for _ in $(seq 100); do [ -s "$dir/npm/pid" ] && break; sleep 0.1; done
    [ -s "$dir/npm/pid" ] || fail "npm start never started the fixture"
    timeout 60 "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 1s -d 1 --json > "$dir/npm/r.json" 2> "$dir/npm/err"
    node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        if (r.wrapper !== "npm" || r.node_processes_under.join() !== process.argv[2]) process.exit(1)' "$dir/npm/r.json" "$(cat "$dir/npm/pid")" ||
        fail "npm's pid given: the report's wrapper and node_processes_under"
    grep -q "warning: process $pid runs npm: its heap is npm's, not the program's; the program is its node process $(cat "$dir/npm/pid") (node leaky.js" "$dir/npm/err" &&
        grep -q "hint: nodescope watch -p $(cat "$dir/npm/pid") --heap" "$dir/npm/err" || { cat "$dir/npm/err"; fail "npm's pid given: no warning naming the program's"; }
    # a CI gate on npm's heap is not a check of the program's: it fails
    timeout 60 "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 0.5s --censuses 3 --fail-if-growth 'LeakySession>1000000/min' > /dev/null 2> "$dir/npm/gate"
    [ $? -eq 1 ] && grep -q "error: --fail-if-growth LeakySession: not checked: the heap watched is npm's" "$dir/npm/gate" ||
        { cat "$dir/npm/gate"; fail "a gate on npm's heap did not fail"; }
    kill "$(cat "$dir/npm/pid")"; wait "$pid" 2> /dev/null; pid=
else
    echo "no npm: watching npm's pid not tested"
fi
printf '%s\n' "const cluster = require('cluster');" \
    "if (cluster.isPrimary) { for (let i = 0; i < 2; i++) cluster.fork(); let n = 0; cluster.on('online', () => { if (++n === 2) require('fs').writeFileSync(process.argv[2], String(process.pid)); }); }" \
    "else setInterval(() => {}, 1000);" > "$dir/cluster.js"
node "$dir/cluster.js" "$dir/cluster.pid" & pid=$!
for _ in $(seq 100); do [ -s "$dir/cluster.pid" ] && break; sleep 0.1; done
timeout 60 "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 1s -d 1 --json > "$dir/cluster.json" 2> "$dir/cluster.err"
grep -q "hint: process $pid has 2 node processes under it (" "$dir/cluster.err" || { cat "$dir/cluster.err"; fail "a cluster's primary: its workers not said"; }
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (r.wrapper !== null || r.node_processes_under.length !== 2) process.exit(1)' "$dir/cluster.json" || fail "a cluster's primary: the report's node_processes_under"
kill "$pid"; wait "$pid" 2> /dev/null; pid=

check_report() {   # the --json report: FILE
    node -e '
        const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const by = n => r.classes.find(c => c.name === n) || {};
        const s = by("LeakySession"), rate = s.count_per_min / 60;
        console.log(`${r.censuses.length} censuses, growing: ${r.growing.join(", ")}; LeakySession ${rate.toFixed(1)}/s` +
                    ` (${s.first_count} -> ${s.last_count}), LruEntry ${by("LruEntry").trend}, ChurnItem ${by("ChurnItem").trend};` +
                    ` stopped ${r.stop_ms.median} ms (max ${r.stop_ms.max}), census ${r.cpu_ms.median} ms CPU`);
        console.log("held by " + s.held_by + "; path: " + s.path);
        const bad = [];
        if (r.growing[0] !== "LeakySession") bad.push("first growing: " + r.growing[0]);
        // the LRU holds 2400 (2401 mid-set): every census counts exactly that once it is full (an
        // obsolete Map table reached from stale stack words counted its old entries; a table
        // last on the heap pages was read as 8 bytes and its entries as unreachable)
        const lc = by("LruEntry").counts || [], full = lc.findIndex(n => n >= 2400);
        if (full < 0 || lc.slice(full).some(n => n < 2400 || n > 2401)) bad.push("LruEntry counts " + lc.join(","));
        if (!(Math.abs(rate - 200) <= 20)) bad.push("rate " + rate);
        for (const n of ["LruEntry", "ChurnItem", "ChurnBatch"]) if (r.growing.includes(n)) bad.push(n + " reported growing");
        if (!/SessionRegistry \.sessions -> Map/.test(s.path || "")) bad.push("path: " + s.path);
        if (s.held_by !== "SessionRegistry .sessions (Map)") bad.push("held_by: " + s.held_by);
        if (!(s.samples && s.samples.length > 0)) bad.push("no new instances sampled");
        if (!(r.stop_ms.max > 0) || r.read !== "snapshot" || r.count !== "reachable" || r.partial) bad.push("meta");
        if (r.censuses.some(c => !(c.stop_ms > 0 && c.heap_bytes > 0))) bad.push("a census without stop or heap");
        // the copy: the pages written since the last census, where the kernel tracks writes (6.7+)
        const [maj, min] = require("os").release().split(".").map(Number), tracks = maj > 6 || (maj === 6 && min >= 7);
        if (tracks ? r.copy !== "tracked" || !(r.censuses[0].copy_bytes > 1e6) || r.censuses.some(c => c.fork_ms !== 0)
                   : r.copy !== "fork" || !r.copy_why) bad.push(`copy ${r.copy} (${r.copy_why}) on Linux ${require("os").release()}`);
        // with a tracked copy, the censuses after the first take the pages no byte of which changed
        // from the graph of the census before (NODESCOPE_CHECK_REUSE, set by tests/run.sh, built each
        // afresh too and found no difference); the fixture churns objects: some pages are walked
        // again, and after a full garbage collection all of them (0/42 seen)
        const later = r.censuses.slice(1), reusing = later.filter(c => c.pages_reused > 0).length;
        if (tracks && (r.censuses[0].pages_reused !== 0 || reusing < later.length / 2 ||
                       later.some(c => !(c.pages_reused >= 0 && c.pages_walked > 0))))
            bad.push("pages reused: " + r.censuses.map(c => c.pages_reused + "/" + c.pages_walked).join(" "));
        if (bad.length) { console.error(bad.join("\n")); process.exit(1); }
    ' "$1"
}

tested=0
for v in $(node_majors); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || { echo "no Node $v: not tested"; continue; }
    w=$dir/$v; mkdir -p "$w"
    "$NODE" "$FIX/leaky.js" "$w/pid" 200 > "$w/out" 2>&1 & pid=$!
    for _ in $(seq 100); do [ -s "$w/pid" ] && break; sleep 0.1; done
    [ -s "$w/pid" ] || fail "the fixture never started"
    # Node 20 from half a second after the start; the others once the LRU is full (and one
    # tick more: the first census sees it full however slow the machine is)
    if [ "$v" = 20 ]; then sleep 0.5
    else
        for _ in $(seq 300); do [ -s "$w/pid.full" ] && break; sleep 0.1; done
        [ -s "$w/pid.full" ] || fail "the fixture's LRU never filled"
        sleep 0.2
    fi
    if [ "$v" = 20 ]; then
        # -d 20 crosses the moment the leak's Map outgrows 4096 entries (20.5 s into the fixture):
        # its new table is a large object on a page mapped after the watch opened the process
        # (the census reads the copy's own mappings since; before, 1 run in 4 saw no entries)
        timeout 120 "$NODESCOPE" watch -p "$pid" --heap --every 2s -d 20 --json -o "$w/report.html" \
            --fail-if-growth 'LruEntry>100000/min' > "$w/report.json" 2> "$w/err" || { cat "$w/err"; fail "watch exited $?"; }
        grep -q '<script type="application/json" id="leak-data">' "$w/report.html" &&
            grep -q '<figure class="chart" data-name="LeakySession" data-trend="growing"' "$w/report.html" ||
            fail "the HTML report has no data or no LeakySession chart"
    else
        gate=; [ "$v" = 22 ] && gate="--fail-if-growth=LeakySession>1000/min"
        timeout 120 "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 1s --censuses 8 --json $gate > "$w/report.json" 2> "$w/err"
        rc=$?
        if [ -n "$gate" ]; then
            [ $rc -eq 1 ] && grep -q "LeakySession grew by .* more than the 1000 allowed" "$w/err" || { cat "$w/err"; fail "the gate did not fail ($rc)"; }
        else
            [ $rc -eq 0 ] || { cat "$w/err"; fail "watch exited $rc"; }
        fi
    fi
    check_report "$w/report.json" || fail "the report"
    left_clean "$pid" "a watch"
    if [ "$v" = 18 ]; then   # --live (one walk of the running process), then Ctrl-C ends a watch without -d
        timeout 60 "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 1s --censuses 3 --live --json > "$w/live.json" 2> "$w/err3" || { cat "$w/err3"; fail "--live"; }
        node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                 if (r.read !== "live" || r.count !== "all" || r.censuses.length < 2 || !r.classes.some(c => c.name === "LeakySession")) process.exit(1)' \
            "$w/live.json" || fail "--live's report"
        # (interrupted after its third census: a line each on stdout; the report in -o)
        "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 1s -o "$w/int.json" > "$w/int.txt" 2> "$w/err4" & wp=$!
        for _ in $(seq 600); do [ "$(grep -c '^census ' "$w/int.txt")" -ge 3 ] && break; sleep 0.1; done
        kill -INT $wp; wait $wp || { cat "$w/err4"; fail "watch ended by SIGINT exited $?"; }
        node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                 if (r.ended !== "interrupted" || r.growing[0] !== "LeakySession" || !r.classes[0].path) process.exit(1)' \
            "$w/int.json" || fail "the interrupted watch's report"
        left_clean "$pid" "a watch"
        # SIGKILL of nodescope in the middle of a watch: the process keeps nothing of it (the
        # userfaultfd was nodescope's alone: the kernel unregisters its mappings)
        "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 0.3s --json > /dev/null 2>&1 & wp=$!
        sleep 2.2; kill -KILL $wp; wait $wp 2> /dev/null; sleep 0.3
        left_clean "$pid" "SIGKILL of a watch"
        # --fork: a copy forked per census, as where the kernel cannot track writes
        timeout 60 "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 1s --censuses 3 --fork --json > "$w/fork.json" 2> "$w/err5" || { cat "$w/err5"; fail "--fork"; }
        node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                 if (r.copy !== "fork" || r.copy_why !== null || r.censuses.some(c => !(c.fork_ms > 0) || c.copy_bytes !== null) ||
                     r.classes[0].name !== "LeakySession") process.exit(1)' "$w/fork.json" || fail "--fork's report"
        left_clean "$pid" "a watch --fork"
        # a process under a seccomp filter is not made to call userfaultfd(): a forked copy
        if command -v gcc > /dev/null && gcc -O1 -o "$w/seccomp_exec" "$FIX/seccomp_exec.c"; then
            "$w/seccomp_exec" "$NODE" "$FIX/leaky.js" "$w/spid" 200 > /dev/null 2>&1 & sp=$!
            for _ in $(seq 100); do [ -s "$w/spid" ] && break; sleep 0.1; done
            [ "$(awk '/^Seccomp:/ {print $2}' /proc/$sp/status)" = 2 ] || fail "the fixture is not under a seccomp filter"
            timeout 60 "$NODESCOPE_RELEASE" watch -p "$sp" --heap --every 1s --censuses 3 --json > "$w/sec.json" 2> "$w/err6" || { cat "$w/err6"; kill $sp; fail "watch of a seccomp-filtered process"; }
            node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                     if (r.copy !== "fork" || r.copy_why !== "the process runs under a seccomp filter" || !r.classes.some(c => c.name === "LeakySession")) process.exit(1)' \
                "$w/sec.json" || { head -c 600 "$w/sec.json"; kill $sp; fail "the seccomp-filtered process's report"; }
            left_clean "$sp" "a watch of a seccomp-filtered process"
            kill $sp; wait $sp 2> /dev/null
        else
            echo "no gcc: the seccomp case not tested"
        fi
    fi
    if [ "$v" = 24 ]; then   # not a terminal: a line a census, then the table and the growers
        timeout 60 "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 1s --censuses 4 > "$w/table.txt" 2> "$w/err2" || { cat "$w/err2"; fail "watch (table)"; }
        [ "$(grep -c '^census ' "$w/table.txt")" = 4 ] && grep -q "LeakySession" "$w/table.txt" &&
            grep -q "held by SessionRegistry .sessions (Map)" "$w/table.txt" && grep -q "path: .*SessionRegistry .sessions -> Map" "$w/table.txt" || { cat "$w/table.txt"; fail "the text output"; }
        left_clean "$pid" "a watch"
    fi
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
    tested=$((tested + 1))
done
[ $tested -gt 0 ] || skip "no Node build in tests/.cache/node"

# The tracked copy against a forked one, on an idle program (nothing it holds changes): every
# constructor's count the same in a census of each kind, taken one after the other (tracked,
# fork, tracked: a count that moved between the two tracked ones is left out). Node 18 and 24.
for v in $(node_majors 18 24 26); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || continue
    w=$dir/idle$v; mkdir -p "$w"
    "$NODE" -e '
        class Account { constructor(i) { this.id = i; this.name = "account-" + i; this.tags = [i, i % 7]; } }
        class Ledger { constructor() { this.accounts = new Map(); this.log = []; } }
        const ledger = new Ledger();
        for (let i = 0; i < 30000; i++) ledger.accounts.set(i, new Account(i));
        for (let i = 0; i < 5000; i++) ledger.log.push({ at: i, what: "open " + i });
        globalThis.ledger = ledger;
        require("fs").writeFileSync(process.argv[1], String(process.pid));
        setInterval(() => {}, 1000);' "$w/pid" & pid=$!
    for _ in $(seq 100); do [ -s "$w/pid" ] && break; sleep 0.1; done
    sleep 1
    for k in t1 fork t2; do
        opt=; [ $k = fork ] && opt=--fork
        timeout 60 "$NODESCOPE_RELEASE" watch -p "$pid" --heap --every 0.5s -d 0.5 --no-paths --json $opt > "$w/$k.json" 2> "$w/$k.err" ||
            { cat "$w/$k.err"; fail "watch ($k) of the idle program"; }
    done
    node -e '
        const fs = require("fs"), [t1, f, t2] = process.argv.slice(1).map(p => JSON.parse(fs.readFileSync(p, "utf8")));
        const last = r => new Map(r.classes.map(c => [c.name, c.last_count]));
        const a = last(t1), b = last(f), c = last(t2);
        if (t1.copy !== "fork" && (t1.copy !== "tracked" || t2.copy !== "tracked")) throw new Error("copy " + t1.copy);
        if (f.copy !== "fork") throw new Error("--fork copied by " + f.copy);
        let same = 0; const diff = [];
        for (const [name, n] of b) {
            if (a.get(name) !== c.get(name)) continue;   /* moved between the two tracked censuses */
            if (a.get(name) === n) same++; else diff.push(`${name}: tracked ${a.get(name)}, fork ${n}`);
        }
        if (a.get("Account") !== 30000 || b.get("Account") !== 30000) diff.push(`Account ${a.get("Account")} ${b.get("Account")}`);
        if (diff.length || same < 50) { console.error(diff.slice(0, 20).join("\n"), same); process.exit(1); }
        console.log(`idle program: ${same} constructors counted the same by a tracked and a forked copy`);
    ' "$w/t1.json" "$w/fork.json" "$w/t2.json" || fail "tracked and forked copies disagree (Node $v)"
    left_clean "$pid" "the idle program's watches"
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
done
say "ok: $tested Node majors"
