#!/bin/bash
# The live sampler attached, sampling and detaching again and again (issue 13: "attach, sample and
# detach 1,000 times against a server under load; it answers every request and its output is
# unchanged"): ATTACHES (default 6: CI) recordings of 0.3 s at 999 Hz by the release build, and one
# by the ASan build, while 4 keep-alive loops load the server; every request must be answered
# right, the server must never be left stopped or traced, and it must exit 0 with its own output.
# bench/live_robust.sh runs it with ATTACHES=1000. Skips when perf events are not allowed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
dir=$TEST_TMP/live_robust; rm -rf "$dir"; mkdir -p "$dir"
printf "leak:libdw.so\n" > "$dir/lsan.supp"
export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
srv= cli=
trap 'touch "$dir/stop"; [ -n "$cli" ] && kill "$cli" 2>/dev/null; [ -n "$srv" ] && kill "$srv" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
NODE=$HERE/../.cache/node/22/bin/node
[ -x "$NODE" ] || NODE=node
ATTACHES=${ATTACHES:-6}
REL=${NODESCOPE_RELEASE:-$NODESCOPE}
fail() { echo "FAIL: $*"; exit 1; }
port=$((20000 + RANDOM % 20000))
"$NODE" "$FIX/robust_server.js" "$port" > "$dir/server.out" 2> "$dir/server.err" & srv=$!
for _ in $(seq 100); do grep -q listening "$dir/server.out" && break; sleep 0.1; done
grep -q listening "$dir/server.out" || fail "the server did not start"
"$NODE" "$FIX/robust_client.js" "$port" "$dir/stop" > "$dir/client.out" 2>&1 & cli=$!
sleep 1
t0=$(date +%s.%N)
for k in $(seq 0 "$ATTACHES"); do
    ns=$REL; [ "$k" = 0 ] && ns=$NODESCOPE   # the first with the ASan build
    timeout 60 "$ns" record -q -p "$srv" -F 999 -d 0.3 -o "$dir/r.folded" > /dev/null 2> "$dir/ns.err"
    rc=$?
    if [ $rc -ne 0 ] && grep -q perf_event "$dir/ns.err"; then cat "$dir/ns.err"; echo "skip: perf events not allowed"; exit 77; fi
    [ $rc -eq 0 ] || { cat "$dir/ns.err"; fail "recording $k exited $rc"; }
    [ "$k" = 0 ] && { grep -qE '(robust_server\.js|node:[a-z_/]+):[0-9]+' "$dir/r.folded" || { head -5 "$dir/r.folded"; fail "no JS frame named in the first recording"; }; }
    state=$(sed 's/.*) //' "/proc/$srv/stat" | cut -c1)
    tracer=$(awk '/^TracerPid:/ { print $2 }' "/proc/$srv/status")
    [ "$state" != T ] && [ "$state" != t ] && [ "$tracer" = 0 ] || fail "the server is left stopped or traced after recording $k ($state, tracer $tracer)"
    [ $((k % 100)) = 0 ] && [ "$k" != 0 ] && echo "$k recordings, $(cut -d' ' -f1-3 /proc/loadavg)"
done
t1=$(date +%s.%N)
touch "$dir/stop"; wait "$cli"; cli=
cat "$dir/client.out"
read -r _ requests _ failed _ wrong < "$dir/client.out"
kill -INT "$srv"; wait "$srv"; src=$?; srv=
[ "$src" = 0 ] && [ "$(cat "$dir/server.out")" = "$(printf 'listening\nbye')" ] && [ ! -s "$dir/server.err" ] ||
    fail "the server's output or exit status changed ($src)"
[ "${requests:-0}" -gt 100 ] && [ "$failed" = 0 ] && [ "$wrong" = 0 ] || fail "requests $requests, failed $failed, wrong $wrong"
echo "$((ATTACHES + 1)) recordings in $(echo "$t1 - $t0" | bc) s; every request answered right"
echo ok
