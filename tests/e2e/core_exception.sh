#!/bin/bash
# core exception on kernel cores (ulimit -c) of Node 18-26:
#  - node --abort-on-uncaught-exception throw_truth.js: the Error it threw (message written by the
#    program), "thrown", at descend;
#  - node --abort-on-uncaught-exception throw_renamed.js (a timer callback, a function and a class
#    method called under other property names, a getter, a static method, a constructor): the
#    frames `exception` decodes from the unformatted Error equal, line for line, those node prints
#    on stderr when it runs the program without the flag (V8's " [as NAME]" included);
#  - (Node 20, 24) an uncaughtException handler that calls process.abort(): the TypeError the
#    handler was given; process.abort() with no exception: says there is none ({"exception":null}).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_exception
fail_context() { echo "node $v"; }
kernel_core() {   # DIR ARGS...: runs node in DIR with a core limit; prints the core's path
    local w=$1; shift
    rm -f "$w"/core "$w"/core.[0-9]*
    (cd "$w" && ulimit -c unlimited && "$NODE" "$@" > /dev/null 2>&1)
    ls "$w"/core "$w"/core.[0-9]* 2> /dev/null | head -1
}
check_major() {
    w=$dir/$v; mkdir -p "$w"
    kcore=$(kernel_core "$w" --abort-on-uncaught-exception "$FIX/throw_truth.js" "$w/truth.json")
    if [ -z "$kcore" ]; then
        echo "node $v: no kernel core (core_pattern: $(cat /proc/sys/kernel/core_pattern)): skipped"; return 0
    fi
    timeout 60 "$NODESCOPE" core "$kcore" --node "$NODE" exception --json > "$w/e1.json" || fail "exception exited $?"
    node -e '
        const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).exception;
        const truth = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8")).stack.split("\n")[0];
        if (!e || e.how !== "thrown") throw new Error("not thrown: " + JSON.stringify(e));
        if (e.value.split("\n")[0] !== truth) throw new Error("value " + JSON.stringify(e.value.split("\n")[0]) + " is not " + JSON.stringify(truth));
        if (!/^descend \(.*throw_truth\.js:15:\d+\)$/.test(e.where)) throw new Error("where: " + e.where);
    ' "$w/e1.json" "$w/truth.json" || fail "--abort-on-uncaught-exception: $(head -c 400 "$w/e1.json")"
    timeout 60 "$NODESCOPE" core "$kcore" --node "$NODE" exception > "$w/e1.txt" || fail "exception (text) exited $?"
    head -1 "$w/e1.txt" | grep -q "^thrown at descend (" || { head -3 "$w/e1.txt"; fail "text output"; }
    rm -f "$kcore"

    kcore=$(kernel_core "$w" --abort-on-uncaught-exception "$FIX/throw_renamed.js")
    [ -n "$kcore" ] || fail "no kernel core from throw_renamed.js"
    "$NODE" "$FIX/throw_renamed.js" 2> "$w/renamed.err" && fail "throw_renamed.js did not throw"
    timeout 60 "$NODESCOPE" core "$kcore" --node "$NODE" exception > "$w/renamed.exc" || fail "exception (renamed) exited $?"
    grep -q ' \[as _onTimeout\] ' "$w/renamed.err" || fail "node printed no [as _onTimeout]: $(cat "$w/renamed.err")"
    diff <(grep '^    at ' "$w/renamed.err") <(grep '^    at ' "$w/renamed.exc") > "$w/renamed.diff" ||
        { cat "$w/renamed.diff"; fail "renamed methods: the frames differ from node's"; }
    rm -f "$kcore"

    case $v in 20|24) ;; *) return 0 ;; esac   # the two cases below on two majors: kernel cores are slow to write
    kcore=$(kernel_core "$w" "$FIX/exception_handler.js" "$w/truth2.json")
    [ -n "$kcore" ] || fail "no kernel core from the handler's abort"
    timeout 60 "$NODESCOPE" core "$kcore" --node "$NODE" exception --json > "$w/e2.json" || fail "exception exited $?"
    node -e '
        const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).exception;
        const t = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
        if (!e || !/^uncaught/.test(e.how)) throw new Error("not uncaught: " + JSON.stringify(e));
        // with its stack as util.inspect shows it, or bracketed when V8 had not formatted the stack yet
        const head = t.name + ": " + t.message;
        if (!e.value.startsWith(head + "\n") && e.value !== "[" + head + "]") throw new Error("value " + JSON.stringify(e.value.slice(0, 80)));
    ' "$w/e2.json" "$w/truth2.json" || fail "handler abort: $(head -c 400 "$w/e2.json")"
    rm -f "$kcore"

    kcore=$(kernel_core "$w" "$FIX/exception_handler.js" "$w/truth3.json" plain)
    [ -n "$kcore" ] || fail "no kernel core from process.abort()"
    timeout 60 "$NODESCOPE" core "$kcore" --node "$NODE" exception --json > "$w/e3.json" || fail "exception exited $?"
    grep -qx '{"exception":null}' "$w/e3.json" || fail "an exception found where there is none: $(head -c 300 "$w/e3.json")"
    rm -f "$kcore"
}
core_for_each_node check_major
echo ok
