#!/bin/bash
# Embedder ("internal") fields of Node's wrapper objects on Node 18-26, read with --pid: `internal
# ADDR 1` names the C++ object a zlib stream's and a TCP server's handle wrap by its class (from the
# vtable's symbol), v8print lists every field with the count V8 gives them, `type` names the API
# object type the metadata leaves unnamed, and wrong uses fail with a message.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
test_dir core_internal
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail_context() { echo "node $v"; }
tested=0
for v in $(node_majors); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || { echo "no Node $v: not tested"; continue; }
    "$NODE" "$FIX/wrappers.js" > "$dir/out" & pid=$!
    for _ in $(seq 50); do grep -q ready "$dir/out" && break; sleep 0.1; done
    bin=$NODESCOPE; [ "$v" = 20 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}   # ASan on one major: ~10 commands each
    ns() { timeout 60 "$bin" core --pid "$pid" "$@"; }
    addr_of() { ns print -a -d 0 "$1" 2> "$dir/err" | head -1 | grep -o '@0x[0-9a-f]*' | head -1 | tr -d @; }
    gz=$(addr_of globalThis.gz._handle); tcp=$(addr_of globalThis.srv._handle); plain=$(addr_of globalThis.plain)
    [ -n "$gz" ] && [ -n "$tcp" ] && [ -n "$plain" ] || { cat "$dir/err"; fail "addresses not found: '$gz' '$tcp' '$plain'"; }
    got=$(ns internal "$gz" 1) || fail "internal of the zlib handle exited $?"
    echo "$got" | grep -q '^0x[0-9a-f]* (C++ node::(anonymous namespace)::ZlibStream)$' || fail "zlib field 1: $got"
    got=$(ns internal --json "$tcp" 1) || fail "internal --json exited $?"
    echo "$got" | node -e 'const j = JSON.parse(require("fs").readFileSync(0)); if (j.kind !== "pointer" || j.field !== 1 || !/node::TCPWrap\)$/.test(j.text)) process.exit(1)' ||
        fail "TCP field 1 as JSON: $got"
    # V8 13 (Node 24) puts a cpp_heap_wrappable word before the fields
    want_off=24; [ "$v" -ge 24 ] && want_off=32
    ns v8print "$tcp" > "$dir/v8print" || fail "v8print exited $?"
    grep -q '^  embedder fields ([0-9]*):$' "$dir/v8print" && grep -q "^    \[0\] +$want_off: " "$dir/v8print" &&
        grep -q '^    \[1\] +[0-9]*: 0x[0-9a-f]* (C++ node::TCPWrap)$' "$dir/v8print" || { cat "$dir/v8print"; fail "v8print's embedder fields"; }
    ns type "$gz" | grep -q '^JS_API_OBJECT_TYPE (JSAPIObjectWithEmbedderSlots, type [0-9]*), constructor Zlib' || fail "type: $(ns type "$gz")"
    # wrong uses: not an API object, a field past the count, no field number
    ns internal "$plain" 0 > /dev/null 2> "$dir/err"; rc=$?
    [ $rc -eq 1 ] && grep -q 'is not an API object' "$dir/err" || fail "a plain object: exit $rc, $(cat "$dir/err")"
    ns internal "$tcp" 99 > /dev/null 2> "$dir/err"; rc=$?
    [ $rc -eq 1 ] && grep -q 'has [0-9]* embedder fields; there is no field 99' "$dir/err" || fail "field 99: exit $rc, $(cat "$dir/err")"
    ns internal "$tcp" > /dev/null 2>&1; rc=$?
    [ $rc -eq 2 ] || fail "no field number: exit $rc"
    kill "$pid"; wait "$pid" 2> /dev/null; pid=
    tested=$((tested + 1))
    echo "node $v ok"
done
[ $tested -gt 0 ] || skip "no Node 18-26"
echo ok
