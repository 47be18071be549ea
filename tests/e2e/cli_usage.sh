#!/usr/bin/env bash
# The command line's error handling: a usage error is one line plus a pointer to --help (exit 2);
# "error:" never comes with exit status 0; messages name the bad line and say what is wrong.
set -u
cd "$TEST_TMP"
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }
ns() { "$NODESCOPE" "$@"; }

# --- usage errors: exactly two lines on stderr, exit 2, nothing on stdout
usage_error() {  # expected first line, command...
    local want=$1; shift
    local cmd; cmd=$(sed 's/^nodescope \(.*\): error: .*/\1/' <<<"$want")
    ns "$@" > out.txt 2> err.txt; local rc=$?
    [ $rc -eq 2 ] || FAIL "$*: exit $rc, expected 2"
    [ -s out.txt ] && FAIL "$*: wrote to stdout: $(head -3 out.txt)"
    local n; n=$(wc -l < err.txt)
    [ "$n" -eq 2 ] || FAIL "$*: $n lines on stderr, expected 2: $(cat err.txt)"
    [ "$(sed -n 1p err.txt)" = "$want" ] || FAIL "$*: first line '$(sed -n 1p err.txt)', expected '$want'"
    grep -qx "see 'nodescope $cmd --help'" err.txt || FAIL "$*: no see-help line: $(cat err.txt)"
}
for c in collapse flame diff convert merge top map core; do
    usage_error "nodescope $c: error: unknown option '--bogus'" "$c" --bogus
done
usage_error "nodescope collapse: error: --format needs a value (NAME)" collapse --format
usage_error "nodescope top: error: --limit must be at least 1, not '0'" top -n 0 x.folded
usage_error "nodescope top: error: --by takes function or file, not 'line'" top --by=line x.folded
usage_error "nodescope flame: error: --width expects a number, not 'wide'" flame --width wide x.folded
usage_error "nodescope top: error: --json takes no value" top --json=1
usage_error "nodescope diff: error: diff takes two inputs, BEFORE and AFTER (got 1)" diff a.folded
usage_error "nodescope convert: error: missing -o OUT" convert a.folded
usage_error "nodescope map: error: unknown map command 'grep' (find, tidy, update, stats)" map grep x.map
usage_error "nodescope map: error: map find takes MAP ADDR, not 1 argument" map find x.map
usage_error "nodescope core: error: which core file (or --pid PID)?" core
usage_error "nodescope core: error: --pid expects an integer, not 'abc'" core --pid abc stack
# a core subcommand's usage error comes before the process is attached (no other message)
sleep 30 & sleeper=$!
usage_error "nodescope core stack: error: unknown option '--bogus'" core --pid "$sleeper" stack --bogus
usage_error "nodescope core stack: error: --thread expects an integer, not 'main'" core --pid "$sleeper" stack --thread main
usage_error "nodescope core str: error: 'zz' is not an address (try 0x...)" core --pid "$sleeper" str zz
usage_error "nodescope core v8print: error: which address?" core --pid "$sleeper" v8print --limit=3
usage_error "nodescope core: error: unknown command 'bt' (commands: stack, type, v8print, internal, str, array, print, constructor, buffer, closure, source, exception, objects, diff-objects, instances, find, functions, async, pending, refs, retainers, dominators, heapsnapshot, sample)" core --pid "$sleeper" bt
kill "$sleeper"; wait "$sleeper" 2>/dev/null
# an unknown command: one line and the pointer to the command list
ns frobnicate > out.txt 2> err.txt; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < err.txt)" -eq 2 ] && grep -qx "see 'nodescope --help'" err.txt ||
    FAIL "unknown command: exit $rc: $(cat err.txt)"

# --- the parser's syntax works for real commands: --opt=value, bundled flags, --
printf 'a;b 3\na;c 1\n' > a.folded
ns collapse --output=o1.folded -q a.folded && cmp -s o1.folded a.folded || FAIL "--output=FILE"
ns top -qn1 a.folded > t.txt && [ "$(grep -c '%' t.txt)" -eq 2 ] || FAIL "bundled -qn1: $(cat t.txt)"
cp a.folded ./-dash.folded
ns collapse -- -dash.folded > o2.folded && cmp -s o2.folded a.folded || FAIL "-- before an operand"
ns top --help | grep -q '^  -n, --limit N ' || FAIL "top --help lacks its generated option lines"

# --- "error:" means a non-zero exit, whatever the command
sleep 30 & sleeper=$!
ns core --pid "$sleeper" stack > out.txt 2> err.txt; rc=$?
grep -q 'error:' err.txt || FAIL "core --pid of a sleep: no error printed: $(cat err.txt)"
[ $rc -eq 1 ] || FAIL "core --pid of a non-node process printed an error and exited $rc"
# a live process we may not trace: the error comes with a hint saying why and what to do
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$NODESCOPE" core --pid "$sleeper" stack \
        > out.txt 2> err.txt; rc=$?
    if grep -q 'Operation not permitted' err.txt; then
        [ $rc -eq 1 ] || FAIL "ptrace refused: exit $rc"
        grep -q '^nodescope: hint: .*uid' err.txt || FAIL "ptrace refused: no hint: $(cat err.txt)"
    fi
fi
kill "$sleeper" 2>/dev/null; wait "$sleeper" 2>/dev/null
ns merge a.folded missing.folded -o m.folded 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q 'missing.folded.*error' err.txt || FAIL "merge of a missing file: exit $rc"

# --- folded input: the bad line is named, not line 1
printf 'a;b 1\nthis is not a stack\nc;d 2\n' > bad.txt
ns collapse bad.txt > out.txt 2> err.txt || FAIL "folded with one bad line: exit $?"
grep -q '^nodescope: bad.txt:2: warning: ' err.txt || FAIL "folded bad line: $(cat err.txt)"
ns collapse - < bad.txt > /dev/null 2> err.txt
grep -q '^nodescope: <stdin>:2: warning: ' err.txt || FAIL "folded bad line on stdin: $(cat err.txt)"
printf 'a;b 1\nc;d 2\na;b 1\nc;d 2\n\nbad line five\n' > bad5.folded
ns collapse bad5.folded > /dev/null 2> err.txt
grep -q '^nodescope: bad5.folded:6: warning: ' err.txt || FAIL "folded bad line 6: $(cat err.txt)"
printf 'no stacks\nat all here\n' > none.folded
ns collapse none.folded > /dev/null 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q '^nodescope: none.folded:1: error: not a folded stack' err.txt ||
    FAIL "a .folded file without stacks: exit $rc: $(cat err.txt)"

# --- a detected (or named) cpuprofile says what is wrong with it
echo '{"nodes":5}' > x.cpuprofile
cp x.cpuprofile x.json
for f in x.cpuprofile x.json; do
    ns collapse "$f" > /dev/null 2> err.txt; rc=$?
    [ $rc -eq 1 ] && grep -q "^nodescope: $f:1: error: not a valid cpuprofile: 'nodes' should be an array" err.txt ||
        FAIL "$f: exit $rc: $(cat err.txt)"
done
echo '{"other": 1}' > y.cpuprofile
ns collapse y.cpuprofile > /dev/null 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q "y.cpuprofile: error: not a valid cpuprofile" err.txt || FAIL "y.cpuprofile: $(cat err.txt)"

# --- convert --to: the help, the error and what is accepted are one list (the writer registry)
listed=$(ns convert --help | sed -n 's/^ *--to NAME *output format: //p')
[ -n "$listed" ] || FAIL "convert --help does not list --to's formats"
ns convert a.folded --to nope -o - 2> err.txt
grep -q "known: $listed)" err.txt || FAIL "--to error lists '$(cat err.txt)', help lists '$listed'"
[ "$(echo "$listed" | tr -cd ',' | wc -c)" -ge 4 ] || FAIL "--to lists fewer than 5 formats: $listed"
for f in ${listed//,/ }; do
    ns convert a.folded --to "$f" -o - > /dev/null 2> err.txt || FAIL "convert --to $f: $(cat err.txt)"
done

# --- map stats on a map without symbols: an error
: > perf-1.map
ns map stats perf-1.map > /dev/null 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q 'perf-1.map: error: no symbols' err.txt || FAIL "empty map: exit $rc: $(cat err.txt)"

# every core command's --help and usage error is printed once (it was twice where a command
# checked a value after parsing and then parsed again)
for c in stack print exception objects async pending refs retainers dominators heapsnapshot; do
    n=$(ns core /nonexistent "$c" --help 2>&1 | grep -c '^usage')
    [ "$n" = 1 ] || FAIL "core $c --help printed its usage $n times"
done
n=$(ns core /nonexistent retainers --max-paths 0 x 2>&1 | grep -c 'error:')
[ "$n" = 1 ] || FAIL "core retainers --max-paths 0: $n errors"

[ $fail -eq 0 ] && echo ok
exit $fail
