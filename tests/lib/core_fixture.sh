# Sourced by the core e2e tests: a work directory, cleanup, and gcore of a fixture that
# blocks on a FIFO after writing its truth file.
#   core_setup NAME              work dir $dir under $TEST_TMP, LSan quiet about libdw, cleanup trap
#   core_gcore W NODE ARGS...    run "NODE ARGS..." (ARGS name W/fifo and W/truth.json), wait for
#                                W/truth.json, gcore it, kill it; sets $core. Skips without gcore
#                                or ptrace, and fails (fail, test-lib.sh) when the fixture never gets ready.
#   core_for_each_node FN [MAJORS]  FN for each installed Node major ($v, $NODE): MAJORS
#                                (default: node_majors)
. "$(dirname "${BASH_SOURCE[0]}")/test-lib.sh"
core_setup() {
    command -v gcore >/dev/null || skip "no gcore"
    test_dir "$1"
    lsan_ignore_libdw
    pid=
    trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
}

core_gcore() {
    local w=$1; shift
    mkdir -p "$w"; mkfifo "$w/fifo"
    "$@" & pid=$!
    for _ in $(seq 100); do [ -s "$w/truth.json" ] && break; sleep 0.1; done
    [ -s "$w/truth.json" ] || fail "fixture never got ready"
    sleep 0.3    # let it reach the blocking read
    gcore -o "$w/core" "$pid" >/dev/null 2>&1 || skip "gcore failed (ptrace not permitted?)"
    kill "$pid"; wait "$pid" 2>/dev/null; pid=
    core=$(ls "$w"/core.*)
}

# core_for_each_node FN: calls FN once per official Node build installed by scripts/setup.sh
# (18-26, node_majors) with $v the major and $NODE the binary, then "node $v ok"; exits 77 (skip)
# when none is installed.
core_for_each_node() {
    local tested=0
    local majors
    if [ $# -ge 2 ]; then majors=$2; else majors=$(node_majors); fi
    for v in $majors; do
        NODE=$(node_bin "$v")
        [ -x "$NODE" ] || { echo "no Node $v at $NODE (run scripts/setup.sh): not tested"; continue; }
        "$1"
        tested=$((tested + 1))
        echo "node $v ok"
    done
    [ $tested -gt 0 ] || skip "no Node builds (run scripts/setup.sh)"
}
