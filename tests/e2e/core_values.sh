#!/bin/bash
# print, constructor and buffer on a known heap, on Node 18/20/22/24: values.js builds plain, class
# and derived-class objects, a dictionary-mode object, every array and string kind, Buffers, typed
# arrays, Maps/Sets, Promises, a Date, a RegExp, an Error, a cycle, under globalThis.fx, writes
# JSON.stringify of each to its truth file and blocks. `print --json PATH` must equal the program's
# own JSON.stringify for every path; the text form, constructor names and buffer bytes are checked
# against what util.inspect and the program say. One gcore and one prompt session per major; Node
# 20 runs the ASan+UBSan build, the others the release build.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_values
fail() { echo "FAIL (node $v): $*"; exit 1; }
check_major() {
    w=$dir/$v
    core_gcore "$w" "$NODE" "$FIX/values.js" "$w/fifo" "$w/truth.json"
    bin=$NODESCOPE; [ "$v" = 20 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}
    ns() { timeout 120 "$bin" core "$core" --node "$NODE" "$@"; }
    # every path's JSON, in one prompt session (one command per line)
    node -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1]));
      for (const p of Object.keys(t.paths)) console.log("print --json globalThis." + p);' "$w/truth.json" > "$w/cmds"
    ns < "$w/cmds" > "$w/got" 2> "$w/err" || { cat "$w/err"; fail "the print session exited $?"; }
    node -e 'const fs = require("fs"); const t = JSON.parse(fs.readFileSync(process.argv[1]));
      const got = fs.readFileSync(process.argv[2], "utf8").split("\n"); let bad = 0;
      Object.keys(t.paths).forEach((p, i) => { if (got[i] !== t.paths[p]) { bad++;
        console.log(p + ":\n  want " + t.paths[p].slice(0, 300) + "\n  got  " + String(got[i]).slice(0, 300)); } });
      process.exit(bad ? 1 : 0);' "$w/truth.json" "$w/got" || { cat "$w/err"; fail "print --json differs from JSON.stringify"; }
    # paths through the module cache and module.exports
    main=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).main)' "$w/truth.json")
    got=$(ns print --json "require.cache[\"$main\"].exports.pool") || fail "print require.cache[...] exited $?"
    [ "$got" = '{"size":3}' ] || fail "require.cache[main].exports.pool: $got"
    [ "$(ns print --json module.exports)" = '{"pool":{"size":3}}' ] || fail "module.exports"
    # the text form: class names, -0, cycles, collections, dates, buffers
    ns print -d 4 globalThis.fx > "$w/fx.txt" || fail "print fx exited $?"
    for want in "dog: Dog { name: 'rex', legs: 4, good: true }" "point: Point { x: -0, y: 1e+21 }" \
        "map: Map(3) { 'one' => 1, 'two' => { n: 2 }, 3 => 'three' }" "set: Set(3) { 'x', 42, 'y' }" \
        "date: $(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).date)' "$w/truth.json")" \
        "regexp: /ab+c\\/d/gim" "buffer: <Buffer de ad be ef 00 01 7f 80 ff>" "cycle: <ref *1> { name: 'cycle', self: [Circular *1] }" \
        "resolved: Promise { 42 }" "pending: Promise { <pending> }" "nullProto: [Object: null prototype] { k: 'v' }" \
        "bigint: 12345678901234567890123n" "typed: Float64Array(3) [ 1.5, -2, 1e+100 ]" "boxed: [Number: 5]" \
        "holey: [ 1, <1 empty item>, 3, <6 empty items>, 'ten' ]" "weak: WeakMap { <items unknown> }" \
        "arrayBuffer: ArrayBuffer { [Uint8Contents]: <09 08 07>, byteLength: 3 }" "TypedError: bad thing" "code: 'E_BAD'"; do
        [ "$want" = "TypedError: bad thing" ] && want="TypeError: bad thing"
        grep -qF -- "$want" "$w/fx.txt" || { cat "$w/fx.txt" | head -80; fail "print fx lacks: $want"; }
    done
    grep -qF "counter: [Function: counter] at $FIX/values.js:10" "$w/fx.txt" || fail "print: the closure's definition site"
    ns print --json globalThis.fx.cycle > /dev/null 2> "$w/cyc.err"; [ $? -eq 1 ] && grep -q 'circular' "$w/cyc.err" ||
        fail "print --json of a cycle must fail like JSON.stringify"
    # constructor, buffer
    [ "$(ns constructor globalThis.fx.dog)" = Dog ] || fail "constructor of the Dog: $(ns constructor globalThis.fx.dog)"
    [ "$(ns constructor globalThis.fx.buffer)" = Buffer ] || fail "constructor of the Buffer"
    [ "$(ns constructor 'globalThis.app.routes[3]')" = Object ] || fail "constructor of a plain object"
    ns buffer --raw -o "$w/buf.bin" globalThis.fx.buffer || fail "buffer --raw exited $?"
    [ "$(od -An -tx1 "$w/buf.bin" | tr -d ' \n')" = "$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).bufferHex)' "$w/truth.json")" ] ||
        fail "buffer bytes differ"
    ns buffer --raw -o "$w/big.bin" globalThis.fx.bigBuffer && [ "$(stat -c %s "$w/big.bin")" = 20000 ] &&
        [ "$(tr -d '\253' < "$w/big.bin" | wc -c)" = 0 ] || fail "the off-heap 20000-byte buffer"
    # errors name what could not be read
    ns print globalThis.fx.nope 2>&1 | grep -q "has no property 'nope'" || fail "a missing property's error"
    ns print 0x1001 > /dev/null 2>&1; [ $? -eq 1 ] || fail "print of an unmapped address should fail with 1"
    rm -f "$core"
}
core_for_each_node check_major
echo ok
