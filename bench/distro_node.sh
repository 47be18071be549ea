#!/bin/bash
# Debian 12's node 18.20.4 (V8 in libnode.so.108, libuv a shared library without frame pointers)
# against the official 18.20.8 build, paired in one run (issue 43): the same setImmediate loop
# (tests/fixtures/live/container_hot.js) in both at once, Debian's in a mount namespace of its own
# (as tests/e2e/distro_node.sh runs it); ROUNDS rounds (default 5), each alternating which goes first:
#   record -v -p PID -F 199 -d 3   the sampler's CPU per sample and naming time, samples cut
#   core --pid PID -v stack        how long the process was stopped (snapshot)
# Prints one line per measure and node: median and range. Needs root (unshare -m, overlayfs) and
# scripts/fetch-debian-node.sh's tree.
set -u
cd "$(dirname "$0")/.."
NS=${NODESCOPE:-build/nodescope}
DEB=$PWD/tests/.cache/debian-node/root
OFF=$PWD/tests/.cache/node/18/bin/node
ROUNDS=${ROUNDS:-5}
scripts/fetch-debian-node.sh || exit 1
tmp=$(mktemp -d)
(exec unshare -m sh -c 'mount -t overlay overlay -o "lowerdir=$0/usr:/usr" /usr && exec "$@"' "$DEB" /usr/bin/node \
    tests/fixtures/live/container_hot.js > /dev/null 2>&1) & deb=$!
"$OFF" tests/fixtures/live/container_hot.js > /dev/null 2>&1 & off=$!
trap 'kill $deb $off 2> /dev/null; rm -rf "$tmp"' EXIT
sleep 1
for r in $(seq "$ROUNDS"); do
    order="debian:$deb official:$off"; [ $((r % 2)) = 0 ] && order="official:$off debian:$deb"
    for x in $order; do
        name=${x%%:*} pid=${x##*:}
        "$NS" record -v -p "$pid" -F 199 -d 3 -o "$tmp/p.folded" 2>&1 |
            sed -n 's/.*(\([0-9]*\) samples.*; \([0-9]*\) us CPU a sample, \([0-9]*\) us naming it.*/\1 \2 \3/p' |
            while read -r n cpu naming; do echo "$name sample_cpu_us $cpu"; echo "$name naming_us $naming"
                echo "$name cut $(grep -c '(outer frames' "$tmp/p.folded")"; done
        "$NS" core --pid "$pid" -v stack 2>&1 > /dev/null | sed -n "s/.*stopped for \([0-9.]*\) ms.*/$name stop_ms \1/p"
    done
done > "$tmp/all"
sort -k1,2 -k3n "$tmp/all" | awk '{ k = $1 " " $2; if (k != last && last != "") out(); if (k != last) { n = 0; last = k } v[++n] = $3 }
    function out() { printf "%-28s median %8s  range %s-%s  (%d)\n", last, v[int((n + 1) / 2)], v[1], v[n], n }
    END { if (last != "") out() }'
