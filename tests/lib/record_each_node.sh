# Sourced by e2e tests that record a fixture of tests/fixtures/live on every Node in tests/.cache.
#   record_each_node FIXTURE SECONDS CHECK
# For every Node major (node_majors, those present): `nodescope record -F 499 -o prof.folded -- node
# FIXTURE SECONDS`; the program must print exactly "done"; then CHECK FOLDED runs (a function of
# the test: prints what it found, returns non-zero when wrong). Fails naming the Node version; skips
# (exit 77) when perf events are not allowed or no Node is present. Leaves nothing behind.
. "$(dirname "${BASH_SOURCE[0]}")/test-lib.sh"
record_each_node() {
    local fixture=$1 secs=$2 check=$3 fix dir v node w rc tested=0
    fix=$(cd "$TEST_ROOT/tests/fixtures/live" && pwd -P)
    test_dir record_each_node
    lsan_ignore_libdw
    trap 'rm -rf "$TEST_TMP/record_each_node"' EXIT
    for v in $(node_majors); do
        node=$(node_bin "$v")
        [ -x "$node" ] || { echo "no Node $v: not tested"; continue; }
        w=$dir/$v; mkdir -p "$w"
        timeout 120 "$NODESCOPE" record -F 499 -o "$w/prof.folded" -- "$node" "$fix/$fixture" "$secs" > "$w/out" 2> "$w/ns.err"
        rc=$?
        skip_unless_perf_events $rc "$w/ns.err"
        [ $rc -eq 0 ] || { cat "$w/ns.err"; fail "record exited $rc"; }
        [ "$(cat "$w/out")" = done ] || fail "the program's output changed: $(cat "$w/out")"
        "$check" "$w/prof.folded" || fail "$fixture's profile is wrong (above)"
        tested=$((tested + 1))
        echo "node $v ok"
    done
    [ $tested -gt 0 ] || skip "no Node 18-26"
    echo ok
}
# fail's context: the Node major record_each_node is at (its local v)
fail_context() { echo "node $v"; }
