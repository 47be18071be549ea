#!/usr/bin/env bash
# Benchmark: `nodescope record -a` on a host of 20 idle and 2 busy node processes, against
# `perf record -a -g` at the same rate (-F 99), in the same run. The processes live in a pid
# namespace of their own (unshare --pid --mount-proc), so that -a finds these 22 and not the
# machine's other node processes; perf -a samples every CPU, as it does anywhere. Rounds alternate
# the modes (plain: no recorder; nodescope; perf), their order rotating; each mode records for
# SECONDS. Printed per mode, median [min-max] over the rounds:
#  - the recorder's CPU per second of recording (user + system of the recorder's process, over
#    its wall time; for perf also with `perf script`, which names the samples afterwards as
#    nodescope does while recording);
#  - the busy processes' slowdown: their rounds a second in the mode's window against the plain
#    window of the same round (paired), and their rounds per CPU-second of their own likewise
#    (what the sampling costs them where they run, less moved by the machine's other load).
# Needs root (unshare, perf -a). Not a test.
#   bench/record_all.sh [ROUNDS] [SECONDS]     (default 5 rounds of 5 s)   NODE=... (default node)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
SECS=${2:-5}
if [ -z "${RECORD_ALL_INSIDE:-}" ]; then
    [ "$(id -u)" = 0 ] || { echo "needs root (unshare --pid, perf record -a)" >&2; exit 1; }
    command -v perf > /dev/null || { echo "needs perf" >&2; exit 1; }
    make -C "$ROOT" -j2 build/nodescope > /dev/null
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    RECORD_ALL_INSIDE=1 unshare --pid --fork --mount-proc bash "$0" "$ROUNDS" "$SECS"
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    exit
fi
NS=$ROOT/build/nodescope
NODE=${NODE:-node}
W=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done; rm -rf "$W"; }
trap cleanup EXIT
cat > "$W/busy.js" <<'JS'
// Rounds of CPU-bound JS; every 50 ms prints "EPOCH_MS ROUNDS_SO_FAR CPU_US_SO_FAR".
function round() {
  const a = Array.from({ length: 500 }, (_, i) => ({ k: 'k' + ((i * 7919) % 500), v: Math.sqrt(i) }));
  a.sort((x, y) => (x.k < y.k ? -1 : x.k > y.k ? 1 : 0));
  let s = 0;
  for (const o of a) s += o.k.length + o.v;
  return s;
}
let done = 0, next = Date.now();
for (;;) {
  round();
  done++;
  if (Date.now() >= next) { const u = process.cpuUsage(); process.stdout.write(`${Date.now()} ${done} ${u.user + u.system}\n`); next += 50; }
}
JS
for _ in $(seq 20); do "$NODE" -e 'setInterval(() => {}, 1000)' & pids+=($!); done
for b in 1 2; do "$NODE" "$W/busy.js" > "$W/busy.$b" & pids+=($!); done
sleep 3   # every node started and warm
now_ms() { date +%s%3N; }
TIMEFORMAT='%3U %3S %3R'
# run MODE: records SECS in MODE; appends "round mode t0 t1 cpu_per_s [cpu_per_s_with_script]"
run() {
    local t0 t1 tm u s r extra=
    t0=$(now_ms)
    case $1 in
    plain) { time sleep "$SECS"; } 2> "$W/time" ;;
    nodescope) { time "$NS" record -a -F 99 -d "$SECS" -o "$W/ns.folded" 2> "$W/ns.err"; } 2> "$W/time" ;;
    perf) { time perf record -q -a -g -F 99 -o "$W/perf.data" -- sleep "$SECS" 2> /dev/null; } 2> "$W/time" ;;
    esac
    t1=$(now_ms)
    read -r u s r < <(tail -1 "$W/time")
    if [ "$1" = perf ]; then
        { time perf script -i "$W/perf.data" > /dev/null 2>&1; } 2> "$W/time2"
        read -r u2 s2 _ < <(tail -1 "$W/time2")
        extra=$(awk -v u="$u" -v s="$s" -v u2="$u2" -v s2="$s2" -v r="$r" 'BEGIN { printf "%.4f", (u + s + u2 + s2) / r }')
    fi
    echo "$round $1 $t0 $t1 $(awk -v u="$u" -v s="$s" -v r="$r" 'BEGIN { printf "%.4f", (u + s) / r }') $extra" >> "$W/runs"
    sleep 0.5
}
modes=(plain nodescope perf)
for round in $(seq "$ROUNDS"); do
    for k in 0 1 2; do run "${modes[$(( (round + k) % 3 ))]}"; done
    echo "round $round done ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
# the busy processes' rounds a second in each window (both summed), from their 50 ms reports
rate() {   # t0 t1 -> rounds/s of both busy processes between t0 and t1, and rounds per CPU-second
    for b in 1 2; do
        awk -v a="$1" -v z="$2" '$1 >= a && !f { f = 1; t0 = $1; c0 = $2; u0 = $3 } $1 <= z { t1 = $1; c1 = $2; u1 = $3 }
            END { if (t1 > t0 && u1 > u0) printf "%.3f %.3f\n", (c1 - c0) * 1000 / (t1 - t0), (c1 - c0) * 1e6 / (u1 - u0); else print 0, 0 }' "$W/busy.$b"
    done | awk '{ s += $1; c += $2 } END { printf "%.3f %.3f\n", s, c / 2 }'
}
while read -r rd mode t0 t1 cpu extra; do
    read -r r c < <(rate "$t0" "$t1")
    echo "$rd $mode $r $cpu ${extra:-0} $c"
done < "$W/runs" > "$W/rates"
stats() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit } printf "%.4g [%.4g-%.4g]", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR] }'; }
echo
echo "nodescope's last recording sampled $(grep -c 'sampling pid' "$W/ns.err") processes (22 expected)"
echo "record -a -F 99, 20 idle + 2 busy node processes, $ROUNDS rounds of $SECS s; median [min-max]"
printf '%-10s %-24s %-24s %-26s %s\n' mode "recorder CPU s/s" "busy slowdown %" "slowdown % a CPU-second" "busy rounds/s"
for mode in plain nodescope perf; do
    cpu=$(awk -v m=$mode '$2 == m { print $4 }' "$W/rates" | stats)
    slow=$(awk -v m=$mode '$2 == "plain" { p[$1] = $3 } $2 == m { r[$1] = $3 } END { for (k in r) if (p[k] > 0) printf "%.3f\n", 100 * (1 - r[k] / p[k]) }' "$W/rates" | stats)
    slowc=$(awk -v m=$mode '$2 == "plain" { p[$1] = $6 } $2 == m { r[$1] = $6 } END { for (k in r) if (p[k] > 0) printf "%.3f\n", 100 * (1 - r[k] / p[k]) }' "$W/rates" | stats)
    rps=$(awk -v m=$mode '$2 == m { print $3 }' "$W/rates" | stats)
    [ $mode = plain ] && cpu=- slow=- slowc=-
    printf '%-10s %-24s %-24s %-26s %s\n' $mode "$cpu" "$slow" "$slowc" "$rps"
done
echo "(slowdowns paired with the plain window of the same round; a CPU-second: the busy processes'"
echo " rounds over their own CPU time, which the machine's other load moves less than rounds a second)"
printf '%-10s %-26s\n' "perf+script" "$(awk '$2 == "perf" { print $5 }' "$W/rates" | stats)"
# nodescope's CPU against perf's, round by round
echo "nodescope / perf record CPU, paired by round: $(awk '$2 == "nodescope" { n[$1] = $4 } $2 == "perf" { p[$1] = $4 } END { for (k in n) if (p[k] > 0) printf "%.3f\n", n[k] / p[k] }' "$W/rates" | stats)"
echo "nodescope / (perf record + perf script) CPU: $(awk '$2 == "nodescope" { n[$1] = $4 } $2 == "perf" { p[$1] = $5 } END { for (k in n) if (p[k] > 0) printf "%.3f\n", n[k] / p[k] }' "$W/rates" | stats)"
