#!/bin/bash
# watch -p PID --heap (issue 31) on a real server under load: fixtures/leak/express_sessions.js
# (express 4) keeps a UserSession per request in a Map its SessionStore holds and never evicts,
# and keeps a bounded cache of 300 RenderedPage entries; fixtures/live/load_client.js sends it
# requests back to back on 8 loopback connections all along. On Node 18 and 24: the watch
# (--every 1s) runs while the load does; after its tenth census the server is told (SIGUSR1) to
# make no more sessions and prints how many it made, and the watch is ended (SIGINT: a last
# census). The truth, then:
#   - the last census counts exactly that many UserSessions (each census sees a consistent copy);
#   - UserSession is named first among the growing, at the rate the server made them between the
#     first census and the SIGUSR1 (within 10%), held by "SessionStore .sessions (Map)";
#   - RenderedPage is not growing and every census counts 300 (301 mid-request);
#   - no request failed; the server's output is its own; it exits 0 on SIGTERM; it is left
#     untraced and without a copy.
# Logged, not checked (the VM's two CPUs are shared by the server, the load and nodescope): the
# stops nodescope measured, the server's page faults while each copy lived (target_faults), and
# what the server itself measured, the event loop's longest delay
# (perf_hooks.monitorEventLoopDelay) during the watch and during as long a load without it, and
# the load's slowest answer.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures" && pwd -P)
[ -d "$TEST_ROOT/tests/node_modules/express" ] || skip "express not installed (cd tests && npm install)"
export NODE_PATH=$TEST_ROOT/tests/node_modules
test_dir watch_heap_server
sp=
lp=
trap '[ -n "$sp" ] && kill "$sp" 2>/dev/null; [ -n "$lp" ] && kill "$lp" 2>/dev/null; rm -rf "$dir"' EXIT
fail_context() { echo "node ${v:-}"; }

tested=0
for v in $(node_majors 18 24 26); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || { echo "no Node $v: not tested"; continue; }
    w=$dir/$v; mkdir -p "$w"
    port=$((20000 + RANDOM % 20000))
    "$NODE" "$FIX/leak/express_sessions.js" "$port" "$w/pid" > "$w/out" 2> "$w/server.err" & sp=$!
    for _ in $(seq 100); do [ -s "$w/pid" ] && break; sleep 0.1; done
    [ -s "$w/pid" ] || { cat "$w/server.err"; fail "the server never started"; }
    # the same load without a watch first: the event loop's longest delay then
    "$NODE" "$FIX/live/load_client.js" "$port" 4 8 /login/warm > "$w/load0" || fail "the first load"
    kill -USR2 "$sp"
    "$NODE" "$FIX/live/load_client.js" "$port" 13 8 /login/bob > "$w/load" & lp=$!
    sleep 1
    s0=$(date +%s.%N)
    timeout 120 "$NODESCOPE_RELEASE" watch -p "$sp" --heap --every 1s -o "$w/r.json" > "$w/censuses" 2> "$w/err" & wp=$!
    # ten censuses (a line each on stdout), then the server stops making sessions and says how
    # many it made; then Ctrl-C: the watch's last census, which must count exactly that many
    for _ in $(seq 1200); do [ "$(grep -c '^census ' "$w/censuses")" -ge 10 ] && break; kill -0 $wp 2> /dev/null || break; sleep 0.1; done
    [ "$(grep -c '^census ' "$w/censuses")" -ge 10 ] || { cat "$w/censuses" "$w/err"; fail "no 10 censuses in 2 minutes"; }
    s1=$(date +%s.%N)
    kill -USR1 "$sp"
    for _ in $(seq 300); do [ "$(grep -c . "$w/out")" -ge 2 ] && break; sleep 0.1; done
    kill -INT $wp
    wait $wp || { cat "$w/err"; fail "watch exited $?"; }
    wait $lp; lp=
    left_clean "$sp" "the watch"
    kill -TERM "$sp"; wait "$sp"; rc=$?; sp=
    [ $rc -eq 0 ] || fail "the server exited $rc"
    [ ! -s "$w/server.err" ] || { cat "$w/server.err"; fail "the server wrote on stderr"; }
    # its output is its own two JSON lines
    [ "$(grep -c . "$w/out")" = 2 ] && grep -q '^{"delayMaxMs":[0-9]*}$' "$w/out" &&
        grep -q '^{"sessions":[0-9]*,"delayMaxMs":[0-9]*}$' "$w/out" || { cat "$w/out"; fail "the server's output"; }
    summary=$(node -e '
        const fs = require("fs"), [dir, s0, s1] = process.argv.slice(1);
        const r = JSON.parse(fs.readFileSync(dir + "/r.json", "utf8"));
        const lines = fs.readFileSync(dir + "/out", "utf8").trim().split("\n").map(JSON.parse);
        const truth = lines[1], base = lines[0];
        const load0 = JSON.parse(fs.readFileSync(dir + "/load0", "utf8")), load = JSON.parse(fs.readFileSync(dir + "/load", "utf8"));
        const by = n => r.classes.find(c => c.name === n) || {};
        const s = by("UserSession"), p = by("RenderedPage"), c = s.counts || [], ts = r.censuses.map(x => x.t);
        const faults = r.censuses.map(x => x.target_faults).sort((a, b) => a - b);
        const usr1 = s1 - s0, truthRate = (truth.sessions - c[0]) / (usr1 - ts[0]), rate = s.count_per_min / 60;
        console.log(`${r.censuses.length} censuses, growing: ${r.growing.join(", ")}; UserSession ${c[0]} -> ${c[c.length - 1]}` +
                    ` (the server made ${truth.sessions}), ${rate.toFixed(0)}/s (the server: ${truthRate.toFixed(0)}/s);` +
                    ` RenderedPage ${p.trend} [${(p.counts || []).join(",")}]; ${load.ok} requests, ${load.errors} failed;` +
                    ` stopped ${r.stop_ms.median} ms (max ${r.stop_ms.max}), census ${r.cpu_ms.median} ms CPU,` +
                    ` faults in the server while a copy lived ${faults[faults.length >> 1]} (median); in the server:` +
                    ` event loop delay max ${truth.delayMaxMs} ms (${base.delayMaxMs} ms without the watch), slowest answer` +
                    ` ${load.maxMs} ms (${load0.maxMs} ms)`);
        const bad = [];
        // after the SIGUSR1 the server makes no sessions, so the censuses after it are flat: the
        // last (Ctrl-C) at least, and any the watch takes while the test waits for the server to
        // say its count. When they come late, the slope of the last third (3-4 censuses) is under
        // half the whole one and the trend is "plateau", a leak that stopped, by its definition
        // (watch-heap(1)): seen on a loaded machine (the suite beside a CPU hog). Then UserSession
        // must have grown at every census before the flat end (5 at least), and no holder is asked
        // for. (The flat end is told by the counts: census times run on the clock of the watch.)
        const last = c[c.length - 1], before = c.filter((n) => n < last),
              plateau = s.trend === "plateau" && before.length >= 5 && before.every((n, i) => !i || n > before[i - 1]) &&
                        c.slice(before.length).every((n) => n === last);
        if (r.growing[0] !== "UserSession" && !plateau) bad.push("first growing: " + r.growing[0] + " (UserSession " + s.trend + ": " + c.join(",") + ")");
        if (c[c.length - 1] !== truth.sessions) bad.push(`the last census counts ${c[c.length - 1]} UserSessions, the server made ${truth.sessions}`);
        if (c.some((n, i) => n > truth.sessions || (i && n < c[i - 1]))) bad.push("UserSession counts " + c.join(","));
        if (!(Math.abs(rate - truthRate) <= 0.1 * truthRate)) bad.push(`rate ${rate} against ${truthRate}`);
        if (!plateau && (s.held_by !== "SessionStore .sessions (Map)" || !/SessionStore \.sessions -> Map value of \d+ -> UserSession$/.test(s.path || "")))
            bad.push("held by " + s.held_by + "; path " + s.path);
        // every census 300 (301 mid-request): a census in a few counted 324-1246 on Node 24 while
        // an object of unknown size was taken to cover the free space after it (stale words of
        // dead pages, RenderedPage pointers among them, read as its fields)
        if (r.growing.includes("RenderedPage") || (p.counts || []).length !== ts.length || p.counts.some(n => n < 300 || n > 301))
            bad.push("RenderedPage " + p.trend + " " + (p.counts || []).join(","));
        if (load.errors || load0.errors || !(load.ok > 1000)) bad.push("the load: " + JSON.stringify(load));
        if (!faults.every(n => Number.isInteger(n) && n >= 0)) bad.push("target_faults " + faults.join(","));
        if (bad.length) { console.error(bad.join("\n")); process.exit(1); }
    ' "$w" "$s0" "$s1") || { echo "$summary"; fail "the report"; }
    say "node $v: $summary"
    tested=$((tested + 1))
done
[ $tested -gt 0 ] || skip "no Node build in tests/.cache/node"
say "ok: $tested Node majors"
