#!/usr/bin/env bash
# Benchmark: `nodescope core CORE stack -v` on a ~1 GB gcore of Node 20 (a program that holds
# ~900 MB of objects and strings, then blocks under 1000 JS frames), against `gdb -batch -ex bt`
# on the same core (native frames only: what people use today without llnode). Prints wall
# time, peak RSS and ratios. The core is mapped, never read whole: RSS stays far below its size.
# Not a test. Needs gcore (gdb) and the Node 20 that scripts/setup.sh installs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=${NODESCOPE:-$ROOT/build/nodescope}
NODE=${NODE:-$ROOT/tests/.cache/node/20/bin/node}
W=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$W"' EXIT
mkfifo "$W/fifo"
cat > "$W/big.js" <<'JS'
// ~900 MB of live objects, strings and arrays, then the 1000-frame stack of stack_truth.js.
const keep = [];
for (let i = 0; i < 3000000; i++) keep.push({ id: i, name: 'item-' + i, tags: [i, i + 1], when: i * 1.5 });
for (let i = 0; i < 200; i++) keep.push('x'.repeat(1 << 20) + i);
globalThis.keep = keep;
process.argv.splice(2, 0);
require(process.env.STACK_TRUTH);
JS
STACK_TRUTH=$ROOT/tests/fixtures/core/stack_truth.js "$NODE" --max-old-space-size=4096 "$W/big.js" "$W/fifo" "$W/truth.json" &
pid=$!
for _ in $(seq 600); do [ -s "$W/truth.json" ] && break; sleep 0.1; done
gcore -o "$W/core" "$pid" > /dev/null 2>&1
kill "$pid"; pid=
core=$(ls "$W"/core.*)
measure() { /usr/bin/time -f '%e %M' -o "$W/t" "$@" > "$W/out" 2> /dev/null || true; cat "$W/t"; }
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
read -r cold_t cold_m < <(measure "$NS" core "$core" --node "$NODE" stack -v)
read -r ns_t ns_m < <(measure "$NS" core "$core" --node "$NODE" stack -v)
js=$(grep -c '^js:' "$W/out" || true)
read -r gdb_t gdb_m < <(measure gdb -batch -ex bt "$NODE" "$core")
printf 'core: %d MB (Node 20 gcore), %d JS frames\n' $(( $(stat -c %s "$core") / 1000000 )) "$js"
printf 'nodescope core stack -v: %5.2f s (first run, cold cache %5.2f s)  peak %4d MB\n' "$ns_t" "$cold_t" $((ns_m / 1024))
printf 'gdb -batch -ex bt:       %5.2f s  peak %4d MB (native frames only)\n' "$gdb_t" $((gdb_m / 1024))
printf 'time ratio (gdb / nodescope): %.1fx   memory ratio: %.1fx\n' "$(echo "$gdb_t / $ns_t" | bc -l)" "$(echo "$gdb_m / $ns_m" | bc -l)"
