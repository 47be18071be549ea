#!/bin/bash
# The npm packages (scripts/npm-pack.sh, `make npm`; docs/install.md), packed here from the static
# binary and installed with no network (npm_config_offline, an empty cache of its own):
#  - npm publish --dry-run accepts both tarballs;
#  - npm install of the two in a new project, then `npx nodescope record -o out.svg -- node
#    inlined_shares.js`: the program's output passes through and the flame graph has hot();
#  - the launcher passes the exit status through (1, 2), the process group's SIGINT reaches the
#    binary (record stops and writes its output, exit 0), and a binary killed by a signal makes the
#    launcher end by the same signal;
#  - npm i -g --prefix DIR puts nodescope in DIR/bin, and it runs.
# Skips without npm or the static binary (make static).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
FIX=$TEST_ROOT/tests/fixtures
STATIC=$TEST_ROOT/build/static/nodescope
command -v npm > /dev/null && command -v node > /dev/null || skip "no npm"
command -v setsid > /dev/null || skip "no setsid"
[ -x "$STATIC" ] || skip "no $STATIC (make static)"
v=
for m in 22 24 20 26 18 25; do [ -x "$(node_bin $m)" ] && { v=$m; break; }; done
[ -n "$v" ] || skip "no Node build (scripts/setup.sh)"
NODE=$(node_bin $v)
test_dir install_npm
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$dir"' EXIT
export npm_config_offline=true npm_config_cache=$dir/cache npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

"$TEST_ROOT/scripts/npm-pack.sh" "$dir/pkgs" "$STATIC" > "$dir/pack.out" || fail "npm-pack.sh exited $?"
version=$("$STATIC" --version | sed -n '1s/^nodescope //p')
main=$dir/pkgs/nodescope-$version.tgz plat=$dir/pkgs/nodescope-linux-x64-$version.tgz
[ -s "$main" ] && [ -s "$plat" ] || { ls -l "$dir/pkgs"; fail "no tarballs for version $version"; }
say "nodescope-$version.tgz $(stat -c %s "$main") bytes, nodescope-linux-x64-$version.tgz $(stat -c %s "$plat") bytes"
for t in "$main" "$plat"; do
    (cd "$dir" && npm publish --dry-run "$t" > "$dir/publish.out" 2>&1) || { cat "$dir/publish.out"; fail "npm publish --dry-run $(basename "$t") exited $?"; }
done
tar -xzOf "$main" package/package.json | node -e '
    const p = JSON.parse(require("fs").readFileSync(0, "utf8"));
    if (p.scripts && Object.keys(p.scripts).length) { console.log(p.scripts); process.exit(1); }
    if (JSON.stringify(p.optionalDependencies) !== JSON.stringify({ "@nodescope/linux-x64": p.version })) { console.log(p); process.exit(1); }' ||
    fail "the nodescope package has install scripts, or optionalDependencies other than @nodescope/linux-x64 at its version"

# a new project, no network
mkdir "$dir/proj"
cd "$dir/proj"
echo '{ "name": "t", "version": "1.0.0", "private": true }' > package.json
npm install "$main" "$plat" > "$dir/install.out" 2>&1 || { cat "$dir/install.out"; fail "npm install exited $?"; }
npx nodescope record -o out.svg -- "$NODE" "$FIX/live/inlined_shares.js" 2 > "$dir/rec.out" 2> "$dir/rec.err" ||
    { cat "$dir/rec.err"; fail "npx nodescope record exited $?"; }
grep -qx done "$dir/rec.out" || fail "the program's output did not pass through: $(head -3 "$dir/rec.out")"
node -e '
    const frames = require(process.argv[1])(process.argv[2]);
    const hot = frames.filter((f) => /^\S*hot .*inlined_shares\.js/.test(f.name)).reduce((s, f) => s + f.value, 0);
    console.log(`npx nodescope record: hot() in ${hot} of ${frames.total} samples`);
    process.exit(hot > 0 ? 0 : 1);' "$TEST_ROOT/tests/lib/flame_data.js" "$dir/proj/out.svg" || fail "the flame graph has no hot()"

# the launcher: exit status and signals
bin=node_modules/.bin/nodescope
"$bin" core /nonexistent 2> /dev/null; rc=$?
[ $rc = 1 ] || fail "a failing command: launcher exit $rc, not 1"
"$bin" record --no-such-option 2> /dev/null; rc=$?
[ $rc = 2 ] || fail "a usage error: launcher exit $rc, not 2"
"$NODE" "$FIX/live/inlined_shares.js" 120 > /dev/null & pid=$!
binary_of() {  # OUT: the pid of the binary (not the launcher) writing OUT, once it runs
    local b=
    for _ in $(seq 100); do b=$(pgrep -f "linux-x64/bin/nodescope record -p $pid -d 60 -o $1"); [ -n "$b" ] && break; sleep 0.1; done
    [ -n "$b" ] || fail "the binary never started"
    echo "$b"
}
# Ctrl-C: SIGINT to the process group (launcher and binary): record stops, writes, exits 0
setsid sh -c 'echo $$ > sid; exec "$0" record -p "$1" -d 60 -o int.folded > /dev/null 2> int.err' "$bin" "$pid" &
waiter=$!
b=$(binary_of int.folded)
# the binary's SIGINT handler set (SigCgt), then half a second of the target's CPU time sampled
for _ in $(seq 100); do m=$(awk '/^SigCgt:/ { print $2 }' "/proc/$b/status" 2> /dev/null); [ -n "$m" ] && (((16#$m >> 1) & 1)) && break; sleep 0.1; done
t0=$(cpu_ticks "$pid") half=$(($(getconf CLK_TCK) / 2))
for _ in $(seq 300); do [ $(($(cpu_ticks "$pid") - t0)) -ge $half ] && break; sleep 0.1; done
kill -INT -- -"$(cat sid)"
wait $waiter; rc=$?
[ $rc = 0 ] && [ -s int.folded ] || { cat int.err; fail "SIGINT to the group: launcher exit $rc, output $(ls int.folded 2>&1)"; }
# the binary killed: the launcher ends by the same signal
setsid sh -c 'exec "$0" record -p "$1" -d 60 -o kill.folded > /dev/null 2> kill.err' "$bin" "$pid" &
waiter=$!
kill -KILL "$(binary_of kill.folded)"
wait $waiter 2> /dev/null; rc=$?
[ $rc = 137 ] || { cat kill.err; fail "the binary killed by SIGKILL: launcher exit $rc, not 137"; }
kill "$pid"; wait "$pid" 2> /dev/null; pid=
say "launcher: exit 1 and 2 passed through, SIGINT to the group wrote int.folded, SIGKILL: 137"

# global, under a prefix
cd "$dir"
npm i -g --prefix "$dir/global" "$main" "$plat" > "$dir/global.out" 2>&1 || { cat "$dir/global.out"; fail "npm i -g exited $?"; }
[ -x "$dir/global/bin/nodescope" ] || fail "no $dir/global/bin/nodescope"
"$dir/global/bin/nodescope" --version | grep -q "^nodescope $version$" || fail "DIR/bin/nodescope --version"
say "npm i -g --prefix: $(readlink "$dir/global/bin/nodescope")"
echo ok
