#!/bin/bash
# Attach, sample and detach over and over against an HTTP server under loopback load (issue 13's
# robustness check; bench/live_attach_load.sh runs it 1,000 times): attaches alternate between
# `core --pid PID stack` (stops the threads while copying them) and `record -p PID -d 0.2` (the
# sampler, which never stops them). The server must answer every request right ("ok N"), never be
# left stopped or traced, serve exactly the requests the client got, and exit 0 on SIGTERM.
#   ATTACHES=N (default 12), NODE_MAJOR (default 22)
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
V=${NODE_MAJOR:-22}
NODE=$HERE/../.cache/node/$V/bin/node
[ -x "$NODE" ] || skip "no Node $V"
NS=${NODESCOPE_RELEASE:-$NODESCOPE}
ATTACHES=${ATTACHES:-12}
test_dir live_attach_load
pid=; client=
trap '[ -n "$client" ] && kill "$client" 2>/dev/null; [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
"$NODE" "$FIX/load_server.js" > "$dir/server.out" 2> "$dir/server.err" & pid=$!
for _ in $(seq 100); do grep -q '^listening' "$dir/server.out" && break; sleep 0.1; done
port=$(sed -n 's/^listening //p' "$dir/server.out")
[ -n "$port" ] || fail "the server did not start: $(cat "$dir/server.err")"
# the load runs until the attaches are done (SIGTERM; at most an hour)
node "$FIX/load_client.js" "$port" 3600 8 > "$dir/client.out" & client=$!
sleep 1
untouched() {   # not stopped, not traced
    st=$(sed -n 's/^State:\t\(.\).*/\1/p' /proc/$pid/status); tr=$(sed -n 's/^TracerPid:\t//p' /proc/$pid/status)
    [ "$st" != T ] && [ "$st" != t ] && [ "$tr" = 0 ]
}
done_n=0
for i in $(seq "$ATTACHES"); do
    kill -0 "$client" 2>/dev/null || break
    if [ $((i % 2)) = 1 ]; then
        timeout 60 "$NS" core --pid "$pid" stack > "$dir/stack.$i" 2> "$dir/err" || { cat "$dir/err"; fail "attach $i: stack exited $?"; }
        grep -q '^thread' "$dir/stack.$i" || fail "attach $i: no stack printed"
    else
        timeout 60 "$NS" record -p "$pid" -d 0.2 -o "$dir/r.$i.folded" 2> "$dir/err" || { cat "$dir/err"; fail "attach $i: record exited $?"; }
    fi
    untouched || fail "attach $i left the server stopped or traced"
    done_n=$((done_n + 1))
done
grep -l 'handle\|work' "$dir"/stack.* "$dir"/r.*.folded > /dev/null 2>&1 || fail "no stack or profile ever showed the server's JS (handle, work)"
sleep 0.5; kill -TERM "$client"; wait "$client"; client=
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ $rc = 0 ] || fail "the server exited $rc after SIGTERM, not 0"
served=$(sed -n 's/^served //p' "$dir/server.out")
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const served = Number(process.argv[2]);
  console.log(`${process.argv[3]} attaches; ${r.sent} requests, ${r.ok} ok, ${r.errors} errors, slowest ${r.maxMs} ms; server served ${served}`);
  if (r.errors || r.ok !== r.sent || served !== r.ok || r.ok === 0) process.exit(1);' "$dir/client.out" "$served" "$done_n" ||
    fail "not every request was answered right: $(cat "$dir/client.out"), served $served"
[ "$done_n" = "$ATTACHES" ] || fail "only $done_n of $ATTACHES attaches ran: the load generator stopped early"
[ -s "$dir/server.err" ] && fail "the server wrote to stderr: $(head -3 "$dir/server.err")"
echo ok
