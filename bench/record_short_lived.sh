#!/usr/bin/env bash
# Benchmark: short-lived node processes under `nodescope record --children` against `perf record -g`
# with node's --perf-basic-prof (what people use: perf names JIT frames from /tmp/perf-PID.map,
# which outlives the process), in the same run. A loop starts ten node processes one after the
# other, each running a hot function for 50-200 ms (wall clock) and exiting. Rounds alternate
# the two. Printed per round and as medians [min-max]: the loop's samples, the share naming the hot
# function, and for nodescope the share under the exited-before-read frames (perf has none: what
# it cannot name is a bare address) and the share that is a bare JIT address.
# Needs perf and perf_event_paranoid <= 1 (or root). Not a test.
#   bench/record_short_lived.sh [ROUNDS]     (default 5)   NODE=... (default node)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
NODE=$(command -v "${NODE:-node}")
command -v perf > /dev/null || { echo "needs perf" >&2; exit 1; }
make -C "$ROOT" -j2 build/nodescope > /dev/null
NS=$ROOT/build/nodescope
W=$(mktemp -d)
cleanup() { rm -rf "$W"; while read -r p; do rm -f "/tmp/perf-$p.map"; done < <(cat "$W"/*.pids 2> /dev/null || true); }
trap 'cleanup' EXIT
cat > "$W/loop.sh" <<EOS
sleep 0.4
for i in 1 2 3 4 5 6 7 8 9 10; do
    "\$1" \$3 "$ROOT/tests/fixtures/tree/short.js" \$((50 + (i * 37) % 150)) & echo \$! >> "\$2"; wait
done
EOS
cd "$W"   # (node --perf-basic-prof writes isolate-*-v8.log where it runs)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
res=()
for r in $(seq "$ROUNDS"); do
    for mode in nodescope perf; do
        pids=$W/$mode.$r.pids; : > "$pids"
        if [ $mode = nodescope ]; then
            bash "$W/loop.sh" "$NODE" "$pids" & sh=$!
            "$NS" record -q -p $sh --children -d 4 -o "$W/ns.folded" 2> /dev/null || true
            wait $sh || true
            : > "$W/ours"
            while read -r p; do grep "^node \[pid $p " "$W/ns.folded" >> "$W/ours" || true; done < "$pids"
            read -r tot named exited bare < <(awk '{n = $NF; t += n; if (/shortHot/) h += n; else if (/exited before nodescope/) e += n;
                else if ($0 ~ /;0x[0-9a-f]+(;| [0-9]+$)/) b += n} END {print t + 0, h + 0, e + 0, b + 0}' "$W/ours")
        else
            perf record -q -F 99 -g -o "$W/perf.data" -- bash "$W/loop.sh" "$NODE" "$pids" --perf-basic-prof > /dev/null 2>&1 || true
            # one sample a paragraph: its header line has the pid
            perf script -i "$W/perf.data" -F pid,ip,sym 2> /dev/null > "$W/perf.txt" || true
            read -r tot named bare < <(awk -v list="$(tr '\n' ' ' < "$pids")" '
                BEGIN {n = split(list, a, " "); for (i = 1; i <= n; i++) ours[a[i]] = 1}
                function flush() { if (in_ours) {t++; if (hot) h++; else if (anon) b++} in_ours = hot = anon = 0; started = 0 }
                /^$/ {flush(); next}
                !started {started = 1; in_ours = ($1 in ours); next}
                /shortHot/ {hot = 1}
                /\[unknown\]/ {anon = 1}
                END {flush(); print t + 0, h + 0, b + 0}' "$W/perf.txt")
            exited=0
        fi
        pct() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.0f", b ? 100 * a / b : 0}'; }
        echo "round $r $mode: $tot samples of the loop's processes, $(pct "$named" "$tot")% shortHot, $(pct "$exited" "$tot")% exited-before-read, $(pct "$bare" "$tot")% unnamed (bare address / perf [unknown])"
        res+=("$mode $(pct "$named" "$tot") $(pct "$exited" "$tot") $(pct "$bare" "$tot") $tot")
        while read -r p; do rm -f "/tmp/perf-$p.map"; done < "$pids"
    done
done
printf '%s\n' "${res[@]}" | awk '
    {m = $1; n[m]++; for (k = 2; k <= 5; k++) v[m, k, n[m]] = $k}
    END {
        for (m in n) {
            line = m ":"
            split("shortHot% exited% unnamed% samples", name, " ")
            for (k = 2; k <= 5; k++) {
                c = n[m]; for (i = 1; i <= c; i++) x[i] = v[m, k, i]
                for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (x[j] < x[i]) {t = x[i]; x[i] = x[j]; x[j] = t}
                med = c % 2 ? x[(c + 1) / 2] : (x[c / 2] + x[c / 2 + 1]) / 2
                line = line sprintf(" %s %s [%s-%s]", name[k - 1], med, x[1], x[c])
            }
            print "median " line
        }
    }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
