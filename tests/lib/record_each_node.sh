# Sourced by e2e tests that record a fixture of tests/fixtures/live on every Node in tests/.cache.
#   record_each_node FIXTURE SECONDS CHECK
# For Node 18, 20, 22 and 24 (those present): `nodescope record -F 499 -o prof.folded -- node
# FIXTURE SECONDS`; the program must print exactly "done"; then CHECK FOLDED runs (a function of
# the test: prints what it found, returns non-zero when wrong). Fails naming the Node version; skips
# (exit 77) when perf events are not allowed or no Node is present. Leaves nothing behind.
record_each_node() {
    local fixture=$1 secs=$2 check=$3 here fix dir v node w rc tested=0
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    fix=$(cd "$here/../fixtures/live" && pwd -P)
    dir=$TEST_TMP/record_each_node; rm -rf "$dir"; mkdir -p "$dir"
    printf "leak:libdw.so\n" > "$dir/lsan.supp"
    export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    trap 'rm -rf "$TEST_TMP/record_each_node"' EXIT
    for v in 18 20 22 24; do
        node=$here/../.cache/node/$v/bin/node
        [ -x "$node" ] || { echo "no Node $v: not tested"; continue; }
        w=$dir/$v; mkdir -p "$w"
        timeout 120 "$NODESCOPE" record -F 499 -o "$w/prof.folded" -- "$node" "$fix/$fixture" "$secs" > "$w/out" 2> "$w/ns.err"
        rc=$?
        if [ $rc -ne 0 ] && grep -q perf_event "$w/ns.err"; then cat "$w/ns.err"; echo "skip: perf events not allowed"; exit 77; fi
        [ $rc -eq 0 ] || { cat "$w/ns.err"; echo "FAIL (node $v): record exited $rc"; exit 1; }
        [ "$(cat "$w/out")" = done ] || { echo "FAIL (node $v): the program's output changed: $(cat "$w/out")"; exit 1; }
        "$check" "$w/prof.folded" || { echo "FAIL (node $v): $fixture's profile is wrong (above)"; exit 1; }
        tested=$((tested + 1))
        echo "node $v ok"
    done
    [ $tested -gt 0 ] || { echo "skip: no Node 18-24"; exit 77; }
    echo ok
}
