#!/usr/bin/env bash
# Byte-identical outputs of two nodescope binaries over the suite's inputs: the check that a
# refactoring (the arch layer, a file split) changed no answer. Run BEFORE and AFTER on
#   - cores: gdb's gcore of core fixtures (stack_truth, async_world, objects, worker_truth) on
#     several Node majors, kernel cores of --abort-on-uncaught-exception throw_truth.js, and
#     `nodescope gcore` (by BEFORE) of a live stack_truth.js; each read with the core commands
#     below (stack -v, stack -a --async --json, exception, objects, functions, async, pending,
#     dominators, print, heapsnapshot -o FILE), stdout, stderr and exit status compared; and the
#     stack cores read with a stripped copy of their node as --node (builtins named from V8's tables);
#   - profiles: tests/data/ (perf script, DTrace) and tests/fixtures/cpuprofile through collapse
#     and convert's writers (folded, txt, cpuprofile, trace, svg);
#   - a live node blocked on a FIFO, written by both binaries' `nodescope gcore`: the same notes
#     (readelf -n: every thread's registers), and the same stack read from both.
# Cores are made once into CORES (default /tmp/same-output-cores) and reused on later runs.
# Prints each difference and a count; exit 0 when every output is the same, 1 not.
#   scripts/same-output.sh BEFORE AFTER [CORES]      (NODESCOPE_SAME_MAJORS="20 24" to choose)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
before=$(realpath "${1:?usage: same-output.sh BEFORE AFTER [CORES]}")
after=$(realpath "${2:?usage: same-output.sh BEFORE AFTER [CORES]}")
cores=${3:-/tmp/same-output-cores}
majors=${NODESCOPE_SAME_MAJORS:-18 20 22 24 26}
fix=$root/tests/fixtures/core
out=$(mktemp -d /tmp/same-output.XXXXXX)
trap 'rm -rf "$out"' EXIT
mkdir -p "$cores"

# --- the cores, made once -------------------------------------------------------------------
node_of() { echo "$root/tests/.cache/node/$1/bin/node"; }
fixture_core() {    # NAME HOW NODE SCRIPT [ARGS]: HOW gdb|nodescope; blocks on a FIFO first
    local name=$1 how=$2 node=$3; shift 3
    [ -s "$cores/$name.core" ] && return 0
    local w; w=$(mktemp -d /tmp/same-output-w.XXXXXX)
    mkfifo "$w/fifo"
    "$node" "$@" "$w/fifo" "$w/truth.json" >/dev/null 2>&1 & local pid=$!
    for _ in $(seq 150); do [ -s "$w/truth.json" ] && break; sleep 0.1; done
    sleep 0.3
    if [ "$how" = gdb ]; then
        gcore -o "$w/core" "$pid" >/dev/null 2>&1 && mv "$w"/core.* "$cores/$name.core"
    else
        "$before" gcore "$pid" -o "$cores/$name.core" >/dev/null 2>&1
    fi
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    rm -rf "$w"
    [ -s "$cores/$name.core" ] && echo "$(basename "$node" | tr -d /) $name: made" >&2
}
kernel_core() {    # NAME NODE: node --abort-on-uncaught-exception throw_truth.js, ulimit -c
    local name=$1 node=$2
    [ -s "$cores/$name.core" ] && return 0
    local w; w=$(mktemp -d /tmp/same-output-w.XXXXXX)
    (cd "$w" && ulimit -c unlimited && exec "$node" --abort-on-uncaught-exception "$fix/throw_truth.js" \
        "$w/truth.json" >/dev/null 2>&1) 2>/dev/null
    local c; c=$(ls "$w"/core* 2>/dev/null | head -1)
    [ -n "$c" ] && mv "$c" "$cores/$name.core"
    rm -rf "$w"
}
for v in $majors; do
    n=$(node_of "$v"); [ -x "$n" ] || continue
    fixture_core "stack-$v" gdb "$n" "$fix/stack_truth.js"
    kernel_core "throw-$v" "$n"
done
n=$(node_of 24)
if [ -x "$n" ]; then
    fixture_core async-24 gdb "$n" "$fix/async_world.js"
    fixture_core objects-24 gdb "$n" --expose-gc "$fix/heap_objects.js"
    fixture_core values-24 gdb "$n" "$fix/values.js"
    fixture_core worker-24 gdb "$n" "$fix/worker_truth.js"
    fixture_core nsgcore-stack-24 nodescope "$n" "$fix/stack_truth.js"
fi
n=$(node_of 18); [ -x "$n" ] && fixture_core nsgcore-stack-18 nodescope "$n" "$fix/stack_truth.js"
n=$(node_of 22); [ -x "$n" ] && fixture_core async-22 gdb "$n" "$fix/async_world.js"

# --- the comparison ---------------------------------------------------------------------------
compared=0 differ=0
same() {    # LABEL, then the command line after the binary; {OUT} is a file path the run writes
    local label=$1; shift
    local b=() a=() arg
    for arg in "$@"; do b+=("${arg//\{OUT\}/$out/b.file}"); a+=("${arg//\{OUT\}/$out/a.file}"); done
    rm -f "$out"/b.* "$out"/a.*
    (cd "$out" && "$before" "${b[@]}" >"$out/b.out" 2>"$out/b.err"; echo "exit $?" >>"$out/b.err")
    (cd "$out" && "$after" "${a[@]}" >"$out/a.out" 2>"$out/a.err"; echo "exit $?" >>"$out/a.err")
    compared=$((compared + 1))
    local d=""
    cmp -s "$out/b.out" "$out/a.out" || d="$d stdout"
    cmp -s "$out/b.err" "$out/a.err" || d="$d stderr"
    if [ -e "$out/b.file" ] || [ -e "$out/a.file" ]; then
        cmp -s "$out/b.file" "$out/a.file" || d="$d file"
    fi
    if [ -n "$d" ]; then
        differ=$((differ + 1)); echo "DIFFERS ($d ): $label: $*"
        diff "$out/b.out" "$out/a.out" | head -10; diff "$out/b.err" "$out/a.err" | head -6
    fi
}
ncores=0
for c in "$cores"/*.core; do
    [ -s "$c" ] || continue
    ncores=$((ncores + 1)); name=$(basename "$c" .core)
    same "$name" core "$c" stack -v
    same "$name" core "$c" stack -a --async --json
    same "$name" core "$c" stack --all-threads
    same "$name" core "$c" exception
    same "$name" core "$c" exception --json
    case $name in throw-*) continue ;; esac   # aborted mid-throw: the heap commands add little
    same "$name" core "$c" objects
    same "$name" core "$c" functions --min 5
    same "$name" core "$c" async --json
    same "$name" core "$c" pending
    same "$name" core "$c" dominators --top 15
    same "$name" core "$c" print -d 1 process.versions
    same "$name" core "$c" heapsnapshot -o '{OUT}'
done
# A node stripped of .symtab (strip --strip-all, as distributions ship libnode): V8's builtins are
# named from V8's own tables, found by reading the code of functions it exports (arch_t.getter,
# .name_table); each stack core read with it as --node.
for v in $majors; do
    c=$cores/stack-$v.core n=$(node_of "$v")
    [ -s "$c" ] && [ -x "$n" ] && command -v strip >/dev/null || continue
    [ -x "$cores/node-$v-stripped" ] || strip --strip-all -o "$cores/node-$v-stripped" "$n" 2>/dev/null || continue
    same "stack-$v, stripped node" core "$c" --node "$cores/node-$v-stripped" stack -v
done
nprof=0
for f in "$root"/tests/data/perf/*.txt "$root"/tests/data/dtrace/*.txt "$root"/tests/fixtures/cpuprofile/*.cpuprofile; do
    [ -f "$f" ] || continue
    nprof=$((nprof + 1)); name=$(basename "$f")
    same "$name" collapse "$f"
    for to in txt cpuprofile trace svg; do same "$name" convert "$f" --to "$to" -o '{OUT}'; done
done
# A live process is not the same twice, but one blocked on a FIFO is still: BEFORE's and AFTER's
# `nodescope gcore` of it must hold the same notes (every thread's NT_PRSTATUS registers, NT_FILE,
# NT_AUXV; readelf -n), and AFTER must read the same stack from both.
live=0
n=$(node_of 24)
if [ -x "$n" ] && command -v readelf >/dev/null; then
    w=$(mktemp -d /tmp/same-output-w.XXXXXX)
    mkfifo "$w/fifo"
    "$n" "$fix/stack_truth.js" "$w/fifo" "$w/truth.json" >/dev/null 2>&1 & pid=$!
    for _ in $(seq 150); do [ -s "$w/truth.json" ] && break; sleep 0.1; done
    sleep 0.3
    "$before" gcore "$pid" -o "$w/b.core" >/dev/null 2>&1
    "$after" gcore "$pid" -o "$w/a.core" >/dev/null 2>&1
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    if [ -s "$w/b.core" ] && [ -s "$w/a.core" ]; then
        live=1 compared=$((compared + 2))
        readelf -n "$w/b.core" >"$w/b.notes"; readelf -n "$w/a.core" >"$w/a.notes"
        cmp -s "$w/b.notes" "$w/a.notes" || { differ=$((differ + 1)); echo "DIFFERS: gcore notes"; diff "$w/b.notes" "$w/a.notes" | head; }
        for x in b a; do "$after" core "$w/$x.core" stack -v 2>&1 | sed "s|$w/$x.core|CORE|" >"$w/$x.stack"; done
        cmp -s "$w/b.stack" "$w/a.stack" || { differ=$((differ + 1)); echo "DIFFERS: stack -v of the two gcores"; diff "$w/b.stack" "$w/a.stack" | head; }
    else
        echo "same-output: gcore of a live node failed (ptrace?): not compared"
    fi
    rm -rf "$w"
fi
echo "same-output: $ncores cores, $nprof profiles, $live live gcore pair, $compared runs compared, $differ differ"
[ "$differ" -eq 0 ]
