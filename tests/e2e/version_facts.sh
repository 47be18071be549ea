#!/bin/bash
# nodescope --version -p PID (or --node BIN) says which facts nodescope has for the node it is pointed at (issue 41):
#  - on every official major present (18-26): exit 0, the Node version node itself gives
#    (process.version), the V8 version it gives (process.versions.v8), V8 found in the executable,
#    its v8dbg_ constants counted, the table's own entry for its V8 ("V8 X.Y's own entry"), the
#    frame facts; --json the same (node_version, v8_version, facts.fit "exact");
#  - on Node 26 with NODESCOPE_V8_FACTS_HIDE=14.6 (its entry hidden): exit 3, "newer than nodescope
#    knows: source position tables, frame slots, API frames' targets not known", fit "newer";
#  - on Debian's node (V8 in libnode.so.108, run in a mount namespace as distro_node.sh does) when
#    it is there: V8 10.2 from the library, exit 0;
#  - --version CORE (a gcore of Node 26) says what -p PID says;
#  - --version --node BIN (the executable alone, nothing run) says what -p PID says, on every
#    major and on Debian's node (--node ROOT/usr/bin/node --root ROOT: V8 in ROOT's libnode.so.108);
#  - bad input: no such process exits 1; a process or file that is not node (no metadata) exits 1.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
test_dir version_facts
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done; rm -rf "$dir"' EXIT

# start_idle CMD...: a node that waits, its pid in $pid once it has printed "ready"
start_idle() {
    "$@" -e 'setInterval(() => {}, 1000); console.log("ready")' > "$dir/out" 2>&1 & pid=$!
    pids+=("$pid")
    for _ in $(seq 100); do grep -q ready "$dir/out" && return 0; sleep 0.1; done
    fail "node did not start: $(cat "$dir/out")"
}

seen=0
for v in $(node_majors); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || continue
    fail_context() { echo "node $v"; }
    want_v8=$("$NODE" -p process.versions.v8) want_v8=${want_v8%%-*} # "10.2.154.26-node.39": V8 names itself without node's suffix
    want_node=$("$NODE" -p process.version)
    start_idle "$NODE"
    timeout 60 "$NODESCOPE" --version -p "$pid" > "$dir/v.txt" 2> "$dir/v.err" || { cat "$dir/v.err"; fail "--version -p exited $?"; }
    grep -q "^v8: *$want_v8\$" "$dir/v.txt" || { cat "$dir/v.txt"; fail "V8 is not $want_v8"; }
    grep -q "^node: *$want_node\$" "$dir/v.txt" || { cat "$dir/v.txt"; fail "Node is not $want_node"; }
    grep -q "^v8 from: .*(the executable, build id " "$dir/v.txt" || { cat "$dir/v.txt"; fail "V8 not found in the executable"; }
    grep -Eq '^metadata: [1-9][0-9]+ v8dbg_ constants$' "$dir/v.txt" || { cat "$dir/v.txt"; fail "no v8dbg_ count"; }
    mm=${want_v8%.*.*}
    grep -q "^facts: *V8 $mm's own entry\$" "$dir/v.txt" || { cat "$dir/v.txt"; fail "not V8 $mm's own entry"; }
    grep -q '^frame: .*fp_argc -24' "$dir/v.txt" || { cat "$dir/v.txt"; fail "no frame facts"; }
    grep -q 'newer than nodescope knows' "$dir/v.err" && fail "warned: $(cat "$dir/v.err")"
    # the executable alone says the same of its node
    timeout 60 "$NODESCOPE" --version --node "$NODE" > "$dir/n.txt" 2> "$dir/n.err" || { cat "$dir/n.err"; fail "--version --node exited $?"; }
    # (but the path: the process runs the file the tests' cache links to)
    diff <(grep -v '^target:' "$dir/v.txt" | sed 's|^v8 from: .*(|(|') <(grep -v '^target:' "$dir/n.txt" | sed 's|^v8 from: .*(|(|') ||
        fail "--node BIN and -p PID differ"
    timeout 60 "$NODESCOPE" --version -p "$pid" --json > "$dir/v.json" || fail "--version --json exited $?"
    node -e '
        const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const ok = j.v8_version === process.argv[2] && j.node_version === process.argv[3] && j.facts.fit === "exact" &&
            j.facts.entry === process.argv[4] && j.v8_object.is_executable === true && j.metadata_constants > 100 &&
            j.facts.not_known === null && typeof j.facts.used.fp_argc === "number";
        if (!ok) { console.error(JSON.stringify(j)); process.exit(1); }' "$dir/v.json" "$want_v8" "$want_node" "$mm" ||
        fail "--json does not say the same"
    if [ "$v" = 26 ]; then
        NODESCOPE_V8_FACTS_HIDE=14.6 timeout 60 "$NODESCOPE" --version -p "$pid" > "$dir/h.txt" 2> "$dir/h.err"; rc=$?
        [ $rc = 3 ] || { cat "$dir/h.txt" "$dir/h.err"; fail "with 14.6 hidden: exit $rc, not 3"; }
        grep -q "^facts: *V8 $want_v8 is newer than nodescope knows: source position tables, frame slots, API frames' targets not known (taken as on 14.1" "$dir/h.txt" ||
            { cat "$dir/h.txt"; fail "with 14.6 hidden: no unknown-version answer"; }
        grep -q '^table: .* 14.1$' "$dir/h.txt" || { cat "$dir/h.txt"; fail "with 14.6 hidden: the table still lists it"; }
        NODESCOPE_V8_FACTS_HIDE=14.6 timeout 60 "$NODESCOPE" --version -p "$pid" --json 2> /dev/null |
            node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); process.exit(j.facts.fit === "newer" && j.facts.entry === "14.1" && /frame slots/.test(j.facts.not_known) ? 0 : 1)' ||
            fail "with 14.6 hidden: --json does not say newer"
        say "node 26, 14.6 hidden: $(grep '^facts:' "$dir/h.txt")"
        # a core of it says the same (nodescope gcore)
        timeout 60 "$NODESCOPE" gcore -o "$dir/n26.core" "$pid" 2> /dev/null || fail "gcore exited $?"
        timeout 60 "$NODESCOPE" --version "$dir/n26.core" > "$dir/c.txt" 2> "$dir/c.err" || { cat "$dir/c.err"; fail "--version CORE exited $?"; }
        diff <(grep -v '^target:' "$dir/v.txt") <(grep -v '^target:' "$dir/c.txt") || fail "--version CORE and -p PID differ"
        rm -f "$dir/n26.core"
    fi
    say "node $v: $(grep -E '^(node|v8|facts):' "$dir/v.txt" | tr -s ' ' | paste -sd ';')"
    kill "$pid"
    seen=$((seen + 1))
done
[ $seen -gt 0 ] || skip "no official node (run scripts/setup.sh)"
unset -f fail_context

# Debian's node: V8 in libnode.so.108
DEB=$TEST_ROOT/tests/.cache/debian-node/root
if [ -e "$DEB/usr/lib/x86_64-linux-gnu/libnode.so.108" ] &&
    unshare -m sh -c 'mount -t overlay overlay -o "lowerdir=$0/usr:/usr" /usr && exec /usr/bin/node -e 0' "$DEB" 2> /dev/null; then
    unshare -m sh -c 'mount -t overlay overlay -o "lowerdir=$0/usr:/usr" /usr && exec /usr/bin/node -e "setInterval(() => {}, 1000); console.log(\"ready\")"' "$DEB" > "$dir/out" 2>&1 & pid=$!
    pids+=("$pid")
    for _ in $(seq 100); do grep -q ready "$dir/out" && break; sleep 0.1; done
    timeout 60 "$NODESCOPE" --version -p "$pid" > "$dir/d.txt" 2> "$dir/d.err" || { cat "$dir/d.err"; fail "Debian's node: --version -p exited $?"; }
    grep -q '^v8: *10\.2\.154\.26' "$dir/d.txt" && grep -q '^node: *v18\.20\.4$' "$dir/d.txt" &&
        grep -q '^v8 from: */usr/lib/x86_64-linux-gnu/libnode.so.108 (a library' "$dir/d.txt" &&
        grep -q "^facts: *V8 10.2's own entry" "$dir/d.txt" || { cat "$dir/d.txt"; fail "Debian's node: not V8 10.2 from libnode.so.108"; }
    timeout 60 "$NODESCOPE" --version --node "$DEB/usr/bin/node" --root "$DEB" > "$dir/dn.txt" 2> "$dir/dn.err" ||
        { cat "$dir/dn.err"; fail "Debian's node: --version --node --root exited $?"; }
    diff <(grep -v '^target:' "$dir/d.txt") <(grep -v '^target:' "$dir/dn.txt") || fail "Debian's node: --node BIN --root DIR and -p PID differ"
    say "Debian's node: $(grep -E '^(node|v8|v8 from|facts):' "$dir/d.txt" | tr -s ' ' | paste -sd ';')"
    kill "$pid"
else
    say "Debian's node: not here (scripts/fetch-debian-node.sh), or no mount namespace"
fi

# bad input
"$NODESCOPE" --version -p 2147483000 > /dev/null 2>&1; rc=$?
[ $rc = 1 ] || fail "no such process: exit $rc, not 1"
sleep 60 & sp=$!
pids+=("$sp")
"$NODESCOPE" --version -p "$sp" > /dev/null 2> "$dir/s.err"; rc=$?
[ $rc = 1 ] && grep -q 'no V8 postmortem metadata' "$dir/s.err" || { cat "$dir/s.err"; fail "not node: exit $rc, not 1 with no metadata"; }
timeout 60 "$NODESCOPE" --version --node /bin/sleep > /dev/null 2> "$dir/b.err"; rc=$?
[ $rc = 1 ] && grep -q 'no V8 postmortem metadata' "$dir/b.err" || { cat "$dir/b.err"; fail "--node /bin/sleep: exit $rc, not 1 with no metadata"; }
"$NODESCOPE" --version --node /nonexistent > /dev/null 2>&1; rc=$?
[ $rc = 1 ] || fail "--node /nonexistent: exit $rc, not 1"
"$NODESCOPE" --version -p 1 x > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "a core and -p: exit $rc, not 2"
echo ok
