#!/bin/bash
# What `nodescope watch --on` costs a program until the event, and at an event: a node process
# with a 1 ms ticker (tests/fixtures/watch/throw_async.js ticker: its longest gap between ticks,
# printed and reset on SIGUSR2) is measured over WINDOW seconds (default 2)
#   none      not watched
#   watching  while `watch --on uncaught` watches it (probes placed, threads traced; no event)
#   attach    the window in which nodescope attached and, at SIGTERM, let go
#   event     `watch --on signal:SIGUSR2`: the window holding one snapshot (the SIGUSR2 itself)
#   gdb       `gdb -p PID -batch -ex 'info threads'` (what attaching the usual debugger costs)
# paired in each of ROUNDS rounds (default 5) on the same process; medians and min-max in ms.
#   bench/watch_on_gap.sh [NODE]        NODE: default tests/.cache/node/22/bin/node
set -u
cd "$(dirname "$0")/.."
NODE=${1:-tests/.cache/node/22/bin/node}
NS=${NS:-build/nodescope}
ROUNDS=${ROUNDS:-5}
WINDOW=${WINDOW:-2}
w=$(mktemp -d); pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$w"' EXIT
gap() { : > "$w/out"; kill -USR2 "$pid"; for _ in $(seq 100); do grep -q gap "$w/out" && break; sleep 0.02; done; awk '/gap/ {print $2}' "$w/out"; }
stats() { sort -n | awk '{a[NR] = $1} END {if (!NR) {print "-"; exit} m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%s (%s-%s)", m, a[1], a[NR]}'; }
"$NODE" tests/fixtures/watch/throw_async.js ticker "$w/ready" > "$w/out" & pid=$!
for _ in $(seq 100); do [ -s "$w/ready" ] && break; sleep 0.05; done
sleep 1; gap > /dev/null
for f in none watching attach event gdb; do : > "$w/$f"; done
for _ in $(seq "$ROUNDS"); do
    sleep "$WINDOW"; gap >> "$w/none"
    "$NS" watch -p "$pid" --on uncaught -o "$w" 2> /dev/null & ns=$!
    # from when it watches (its threads traced, probes placed): nodescope's own start (reading
    # node's symbols) is CPU the machine's other processes share, not a cost of watching
    for _ in $(seq 200); do [ "$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")" != 0 ] && break; sleep 0.02; done
    sleep 0.3; gap > /dev/null
    sleep "$WINDOW"; gap >> "$w/watching"
    kill -TERM "$ns"; wait "$ns" 2> /dev/null
    gap >> "$w/attach"
    "$NS" watch -p "$pid" --on signal:SIGUSR2 -o "$w" 2> /dev/null & ns=$!
    sleep 0.5; : > "$w/out"; kill -USR2 "$pid"; wait "$ns"; rm -f "$w"/core.*   # the snapshot, then the handler
    sleep "$WINDOW"; gap >> "$w/event"
    gdb -p "$pid" -batch -ex 'info threads' > /dev/null 2>&1; gap >> "$w/gdb"
done
printf "longest gap of a 1 ms ticker, ms: median (min-max) of %s rounds, %s s windows\n" "$ROUNDS" "$WINDOW"
for f in none watching attach event gdb; do printf "  %-9s %s\n" "$f" "$(stats < "$w/$f")"; done
n=$(stats < "$w/none" | cut -d' ' -f1); g=$(stats < "$w/gdb" | cut -d' ' -f1); a=$(stats < "$w/attach" | cut -d' ' -f1)
awk -v n="$n" -v g="$g" -v a="$a" 'BEGIN {if (a > 0) printf "gdb attach / nodescope watch attach+detach: %.1fx\n", g / a}'
