#!/bin/bash
# A node in a container, seen from the host: another mount and pid namespace (unshare, as Docker
# makes them) where /usr/bin/node is another Node major than the host's /usr/bin/node (bind-mounted
# over it inside only). /proc/PID/maps names /usr/bin/node, which on the host is the wrong binary;
# nodescope must read the container's through /proc/PID/root. For each major that differs from the
# host's: `record -p` names the hot function in >= 90% of the main thread's samples, `top -p` gives
# it >= 80% self (and no JIT sample unnamed), `core --pid stack` shows the fixture's frames, and a
# gcore of it is read with --root /proc/PID/root and with --node; on the last major `watch --heap`
# takes three censuses of its heap (nothing on stderr: no wrong metadata), and `record --perf -p`
# names it from the container's own perf map (/proc/PID/root/tmp/perf-NSPID.map: the container has
# its own /tmp). MAJORS (default "18 22 24 26") picks the majors; everything started is killed on exit.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
CACHE=$(cd "$HERE/../.cache/node" 2>/dev/null && pwd -P) || { echo "skip: no Node builds (run scripts/setup.sh)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root (unshare --mount --pid)"; exit 77; }
command -v unshare >/dev/null || { echo "skip: no unshare"; exit 77; }
[ -x /usr/bin/node ] || { echo "skip: no /usr/bin/node on the host to mount over"; exit 77; }
host_major=$(/usr/bin/node -p 'process.versions.node.split(".")[0]')
dir=$TEST_TMP/container_target; rm -rf "$dir"; mkdir -p "$dir"
printf "leak:libdw.so\n" > "$dir/lsan.supp"
export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
init=
stop_container() { [ -n "$init" ] && kill -KILL "$init" 2>/dev/null; init=; }
trap 'stop_container; rm -rf "$dir"' EXIT
fail() { echo "FAIL (node $v in a container): $*"; exit 1; }

# starts the fixture in a new mount + pid namespace with node $v at /usr/bin/node; sets $init (the
# namespace's pid 1, a shell, as the host sees it) and $pid (node, as the host sees it). The
# namespace's own /tmp hides the host's, where this tree may be (CI clones there): node and the
# fixture are taken in before it is mounted. node runs in that /tmp: what it writes in its working
# directory (Node 22+ with --perf-basic-prof writes isolate-*-v8.log there) goes with the namespace.
start_container() {
    local node=$CACHE/$v/bin/node
    unshare --mount --pid --fork --mount-proc --propagation private \
        sh -c "mount --bind '$node' /usr/bin/node && exec 3< '$FIX/container_hot.js' &&
               mount -t tmpfs none /tmp && cat <&3 > /tmp/container_hot.js && exec 3<&- && cd /tmp &&
               /usr/bin/node --perf-basic-prof /tmp/container_hot.js; exit 0" &
    local u=$! k
    init= pid=
    for k in $(seq 50); do
        [ -n "$init" ] || init=$(pgrep -P "$u" | head -1)
        [ -n "$init" ] && pid=$(pgrep -P "$init" | head -1)
        [ -n "$pid" ] && [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = /usr/bin/node ] && break
        pid=; sleep 0.1
    done
    [ -n "$pid" ] || fail "the container's node never started"
    awk '/^NSpid:/ { exit !(NF == 3 && $3 != $2) }' "/proc/$pid/status" || fail "node has no pid of its own namespace: $(grep NSpid "/proc/$pid/status")"
    sleep 1   # let main reach hotFunction, optimized
}

check_major() {
    w=$dir/$v; mkdir -p "$w"
    start_container
    # the container's node is not the host's
    [ "$(nsenter -t "$pid" -m /usr/bin/node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo "$v")" = "$v" ] || fail "the bind mount did not take"
    timeout 60 "$NODESCOPE" record -p "$pid" -d 2 -o "$w/rec.folded" 2> "$w/rec.err" || { cat "$w/rec.err"; fail "record -p exited $?"; }
    read -r hot total < <(awk '/^node \[main\]/ { t += $NF; if ($0 ~ /;hotFunction( |;)/) h += $NF } END { print h + 0, t + 0 }' "$w/rec.folded")
    echo "node $v: record -p: hotFunction in $hot of $total main-thread samples"
    [ "$total" -gt 0 ] && [ $((hot * 100)) -ge $((total * 90)) ] || { head -c 2000 "$w/rec.folded"; cat "$w/rec.err"; fail "hotFunction in $hot of $total main-thread samples (< 90%)"; }
    grep -q "warning" "$w/rec.err" && { cat "$w/rec.err"; fail "record -p warned"; }
    timeout 60 "$NODESCOPE" top -p "$pid" --once -d 1 --json > "$w/top.json" 2> "$w/top.err" || { cat "$w/top.err"; fail "top -p exited $?"; }
    node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const hot = r.rows.find(x => x.name.startsWith("hotFunction "));
        if (!hot || hot.selfPct < 80 || r.jitUnnamed !== 0) { console.log(JSON.stringify(r).slice(0, 800)); process.exit(1); }' "$w/top.json" ||
        fail "top -p: hotFunction not >= 80% self, or JIT samples unnamed"
    timeout 60 "$NODESCOPE" core --pid "$pid" stack > "$w/stack.txt" 2> "$w/stack.err" || { cat "$w/stack.err"; fail "core --pid stack exited $?"; }
    grep -q "^js:     main at .*container_hot.js" "$w/stack.txt" || { cat "$w/stack.txt" "$w/stack.err"; fail "core --pid stack: no main frame"; }
    # watch --heap: each census a copy of the container's node, read with its own node's metadata
    if [ "$v" = "$last" ]; then
        timeout 60 "$NODESCOPE" watch -p "$pid" --heap --every 1s --censuses 3 --json > "$w/watch.json" 2> "$w/watch.err" || { cat "$w/watch.err"; fail "watch --heap exited $?"; }
        node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
            if (r.censuses.length !== 3 || r.read !== "snapshot" || r.copy !== "tracked" || !r.censuses.every(c => c.js_objects > 1000 && c.stop_ms > 0) ||
                !r.classes.some(c => c.name === "Object")) { console.log(JSON.stringify(r).slice(0, 800)); process.exit(1); }' "$w/watch.json" ||
            fail "watch --heap: not 3 censuses of a heap with Objects"
        [ ! -s "$w/watch.err" ] || { cat "$w/watch.err"; fail "watch --heap printed on stderr"; }
    fi
    # --perf: the perf map is the container's /tmp/perf-NSPID.map (its /tmp is its own), read
    # through /proc/PID/root; once, on the last major (perf script takes a while)
    if [ "$v" = "$last" ] && command -v perf >/dev/null; then
        ns=$(awk '/^NSpid:/ { print $NF }' "/proc/$pid/status")
        [ -s "/proc/$pid/root/tmp/perf-$ns.map" ] || fail "no perf map in the container's /tmp"
        timeout 60 "$NODESCOPE" record --perf -p "$pid" -d 2 -o "$w/perf.folded" 2> "$w/perf.err" || { cat "$w/perf.err"; fail "record --perf -p exited $?"; }
        grep -q "no perf map" "$w/perf.err" && { cat "$w/perf.err"; fail "record --perf -p found no perf map"; }
        read -r hot total < <(awk '{ t += $NF; if ($0 ~ /hotFunction/) h += $NF } END { print h + 0, t + 0 }' "$w/perf.folded")
        echo "node $v: record --perf -p: hotFunction in $hot of $total ns"
        [ "$total" -gt 0 ] && [ $((hot * 100)) -ge $((total * 80)) ] || { cat "$w/perf.err"; fail "record --perf -p: hotFunction in $hot of $total"; }
    fi
    if command -v gcore >/dev/null; then
        gcore -o "$w/core" "$pid" > /dev/null 2>&1 || fail "gcore failed"
        core=$(ls "$w"/core.*)
        timeout 60 "$NODESCOPE" core "$core" --root "/proc/$pid/root" stack > "$w/root.txt" 2> "$w/root.err" || { cat "$w/root.err"; fail "core --root stack exited $?"; }
        grep -q "^js:     main at .*container_hot.js" "$w/root.txt" || { cat "$w/root.txt" "$w/root.err"; fail "core --root: no main frame"; }
        timeout 60 "$NODESCOPE" core "$core" --node "$CACHE/$v/bin/node" stack > "$w/node.txt" 2> "$w/node.err" || { cat "$w/node.err"; fail "core --node stack exited $?"; }
        grep -q "^js:     main at .*container_hot.js" "$w/node.txt" || { cat "$w/node.txt" "$w/node.err"; fail "core --node: no main frame"; }
        rm -f "$core"
    else
        echo "node $v: no gcore: the core of a container not tested"
    fi
    stop_container
}

tested=0
last=$(echo ${MAJORS:-18 22 24 26} | awk '{ print $NF }')
for v in ${MAJORS:-18 22 24 26}; do
    [ "$v" != "$host_major" ] || { echo "node $v is the host's: skipped"; continue; }
    [ -x "$CACHE/$v/bin/node" ] || { echo "no Node $v (run scripts/setup.sh): not tested"; continue; }
    check_major
    tested=$((tested + 1))
    echo "node $v ok"
done
[ $tested -gt 0 ] || { echo "skip: no Node major other than the host's"; exit 77; }
echo ok
