#!/usr/bin/env bash
# Benchmark: the live sampler on a node in a container against the same node not in one. The
# container is made as tests/e2e/container_target.sh makes it: a mount and pid namespace
# (unshare --mount-proc) where Node NODE_MAJOR is bind-mounted at /usr/bin/node, so nodescope
# reads the binary through /proc/PID/root and translates the pid; the other target runs the same
# binary from the host. Both run tests/fixtures/live/container_hot.js (hotFunction all the time).
#  1. The sampler's cost of one sample: `record -v -p PID -F 999 -d SECONDS` prints nodescope's CPU
#     a sample and the part naming it; ROUNDS rounds, the two targets alternating (order rotating
#     each round); median [min-max] of each, and their ratio paired by round.
#  2. Robustness: ATTACHES attach/sample/detach cycles on each target (alternating targets, and
#     `core --pid PID stack` with `record -p PID -d 0.2`): each must exit 0, the stack show the
#     program's JS, the target be left running, not stopped, not traced (failures); a 0.2 s profile
#     without hotFunction is counted apart (few samples, read late on a loaded machine); median
#     [min-max] seconds an attach.
# Needs root (unshare). Not a test.
#   bench/container_sample.sh [ATTACHES] [ROUNDS] [SECONDS]   (default 1000, 5, 3)   NODE_MAJOR (22)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ATTACHES=${1:-1000}
ROUNDS=${2:-5}
SECS=${3:-3}
V=${NODE_MAJOR:-22}
NODE=$(cd "$ROOT/tests/.cache/node/$V/bin" 2> /dev/null && pwd -P)/node
[ -x "$NODE" ] || { echo "no Node $V (scripts/setup.sh)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root (unshare --mount --pid)" >&2; exit 1; }
[ -x /usr/bin/node ] || { echo "needs a /usr/bin/node to mount over in the container" >&2; exit 1; }
make -C "$ROOT" -j2 build/nodescope > /dev/null
NS=$ROOT/build/nodescope
FIX=$(cd "$ROOT/tests/fixtures/live" && pwd -P)/container_hot.js
W=$(mktemp -d)
init= plain=
cleanup() { [ -n "$init" ] && kill -KILL "$init" 2> /dev/null; [ -n "$plain" ] && kill "$plain" 2> /dev/null; rm -rf "$W"; }
trap cleanup EXIT

# the container: its own /tmp (node runs there: what it writes goes with it), node at /usr/bin/node
unshare --mount --pid --fork --mount-proc --propagation private \
    sh -c "mount --bind '$NODE' /usr/bin/node && exec 3< '$FIX' && mount -t tmpfs none /tmp &&
           cat <&3 > /tmp/hot.js && exec 3<&- && cd /tmp && exec /usr/bin/node /tmp/hot.js" 2> "$W/unshare.err" &
u=$!
cont=
for _ in $(seq 100); do
    [ -n "$init" ] || init=$(pgrep -P "$u" | head -1 || true)
    [ -n "$init" ] && [ "$(readlink "/proc/$init/exe" 2> /dev/null)" = /usr/bin/node ] && { cont=$init; break; }
    sleep 0.1
done
[ -n "$cont" ] || { cat "$W/unshare.err" >&2; echo "the container's node did not start" >&2; exit 1; }
(cd "$W" && exec "$NODE" "$FIX") & plain=$!
sleep 2   # both reach hotFunction, optimized
echo "node $V; in a container: pid $cont ($(awk '/^NSpid:/ { $1 = ""; print "NSpid" $0 }' "/proc/$cont/status")); not: pid $plain"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. cost of a sample
cost() {   # name pid -> appends "round name us_a_sample us_naming samples"
    "$NS" record -v -p "$2" -F 999 -d "$SECS" -o "$W/c.folded" 2> "$W/c.err" || { cat "$W/c.err" >&2; exit 1; }
    local line; line=$(grep -o '([0-9]* samples.*' "$W/c.err" | tail -1)
    local n us nm
    n=$(echo "$line" | sed -n 's/^(\([0-9]*\) samples.*/\1/p')
    us=$(echo "$line" | sed -n 's/.* \([0-9.]*\) us CPU a sample.*/\1/p')
    nm=$(echo "$line" | sed -n 's/.* \([0-9.]*\) us naming it.*/\1/p')
    echo "$r $1 ${us:-0} ${nm:-0} ${n:-0}" >> "$W/cost"
}
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then cost container "$cont"; cost plain "$plain"; else cost plain "$plain"; cost container "$cont"; fi
done
stats() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit } printf "%.4g [%.4g-%.4g]", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR] }'; }
echo
echo "1. record -p PID -F 999 -d $SECS, $ROUNDS rounds; median [min-max]"
printf '%-10s %-24s %-24s %s\n' target "us CPU a sample" "us naming it" samples
for w in container plain; do
    printf '%-10s %-24s %-24s %s\n' $w "$(awk -v w=$w '$2 == w { print $3 }' "$W/cost" | stats)" \
        "$(awk -v w=$w '$2 == w { print $4 }' "$W/cost" | stats)" "$(awk -v w=$w '$2 == w { print $5 }' "$W/cost" | stats)"
done
echo "container / plain, us a sample paired by round: $(awk '$2 == "container" { c[$1] = $3 } $2 == "plain" { p[$1] = $3 } END { for (k in c) if (p[k] > 0) printf "%.3f\n", c[k] / p[k] }' "$W/cost" | stats)"

# 2. robustness
untouched() {   # running, not stopped, not traced
    local st tr
    st=$(sed -n 's/^State:\t\(.\).*/\1/p' "/proc/$1/status" 2> /dev/null)
    tr=$(sed -n 's/^TracerPid:\t//p' "/proc/$1/status" 2> /dev/null)
    [ -n "$st" ] && [ "$st" != T ] && [ "$st" != t ] && [ "$st" != Z ] && [ "$tr" = 0 ]
}
bad=0 nohot=0
TIMEFORMAT='%3R'
for i in $(seq "$ATTACHES"); do
    for w in container plain; do
        p=$plain; [ $w = container ] && p=$cont
        if [ $((i % 2)) = 1 ]; then
            { time timeout 60 "$NS" core --pid "$p" stack > "$W/out" 2> "$W/err"; } 2> "$W/t" || { echo "attach $i ($w): stack exited non-zero: $(head -3 "$W/err")"; bad=$((bad + 1)); }
            grep -Eq 'hotFunction|js: +main at' "$W/out" || { echo "attach $i ($w): no hotFunction or main in the stack"; bad=$((bad + 1)); }
            kind=stack
        else
            { time timeout 60 "$NS" record -q -p "$p" -d 0.2 -o "$W/out.folded" 2> "$W/err"; } 2> "$W/t" || { echo "attach $i ($w): record exited non-zero: $(head -3 "$W/err")"; bad=$((bad + 1)); }
            # 0.2 s is ~20 samples: on a loaded machine the few may all be read late (left unnamed)
            grep -q 'hotFunction' "$W/out.folded" || { echo "attach $i ($w): no hotFunction in the profile ($(awk '{ n += $NF } END { print n + 0 }' "$W/out.folded") samples: $(cut -c1-120 "$W/out.folded" | head -2 | tr '\n' '|'))"; nohot=$((nohot + 1)); }
            kind=record
        fi
        echo "$w $kind $(tail -1 "$W/t")" >> "$W/attach"
        untouched "$p" || { echo "attach $i ($w): the target was left stopped, traced or gone"; bad=$((bad + 1)); break 2; }
    done
    [ $((i % 100)) = 0 ] && echo "$i attaches each ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
echo
echo "2. $ATTACHES attaches on each target (core --pid stack and record -p -d 0.2 in turn): $bad failures (a non-zero exit, no JS in a stack, the target left stopped or traced); $nohot 0.2 s profiles without hotFunction"
printf '%-10s %-8s %s\n' target kind "seconds an attach, median [min-max]"
for w in container plain; do for k in stack record; do
    printf '%-10s %-8s %s\n' $w $k "$(awk -v w=$w -v k=$k '$1 == w && $2 == k { print $3 }' "$W/attach" | stats)"
done; done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ $bad = 0 ]
