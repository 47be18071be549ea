#!/bin/bash
# print, constructor, buffer, closure and source on a known heap, on Node 18-26: values.js builds plain, class
# and derived-class objects, a dictionary-mode object, every array and string kind, Buffers, typed
# arrays, Maps/Sets, Promises, a Date, a RegExp, an Error, a cycle, under globalThis.fx, writes
# JSON.stringify of each to its truth file and blocks. `print --json PATH` must equal the program's
# own JSON.stringify for every path; the text form, constructor names and buffer bytes are checked
# against what util.inspect and the program say. One gcore and one prompt session per major; Node
# 20 runs the ASan+UBSan build, the others the release build.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_values
fail_context() { echo "node $v"; }
check_major() {
    w=$dir/$v
    core_gcore "$w" "$NODE" "$FIX/values.js" "$w/fifo" "$w/truth.json"
    bin=$NODESCOPE; [ "$v" = 20 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}
    ns() { timeout 120 "$bin" core "$core" --node "$NODE" "$@"; }
    main=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).main)' "$w/truth.json")
    # one prompt session (one command per line): every path's JSON, the module cache, constructors,
    # buffers, the text form, errors; the session's status is the last command's (an unmapped address)
    { node -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1]));
        for (const p of Object.keys(t.paths)) console.log("print --json globalThis." + p);' "$w/truth.json"
      printf '%s\n' "print --json 'require.cache[\"$main\"].exports.pool'" "print --json module.exports" \
        "constructor globalThis.fx.dog" "constructor globalThis.fx.buffer" "constructor globalThis.app.routes[3]" \
        "buffer --raw -o $w/buf.bin globalThis.fx.buffer" "buffer --raw -o $w/big.bin globalThis.fx.bigBuffer" \
        "print --json globalThis.fx.cycle" "print globalThis.fx.nope" "closure globalThis.fx.counter" \
        "source globalThis.fx.counter" "source -n 3 globalThis.setTimeout" \
        "print -d 4 globalThis.fx" "constructor --json globalThis.fx.dog" "buffer --json globalThis.fx.buffer" \
        "closure --json globalThis.fx.counter" "source --json globalThis.fx.counter" "print 0x1001"
    } > "$w/cmds"
    ns < "$w/cmds" > "$w/got" 2> "$w/err"
    rc=$?
    [ $rc -eq 1 ] || { cat "$w/err"; fail "the session exited $rc, not 1 (print of an unmapped address)"; }
    node -e 'const fs = require("fs"); const t = JSON.parse(fs.readFileSync(process.argv[1]));
      const got = fs.readFileSync(process.argv[2], "utf8").split("\n"); let bad = 0;
      Object.keys(t.paths).forEach((p, i) => { if (got[i] !== t.paths[p]) { bad++;
        console.log(p + ":\n  want " + t.paths[p].slice(0, 300) + "\n  got  " + String(got[i]).slice(0, 300)); } });
      process.exit(bad ? 1 : 0);' "$w/truth.json" "$w/got" || { cat "$w/err"; fail "print --json differs from JSON.stringify"; }
    n=$(node -e 'console.log(Object.keys(JSON.parse(require("fs").readFileSync(process.argv[1])).paths).length)' "$w/truth.json")
    tail -n +$((n + 1)) "$w/got" > "$w/rest"
    [ "$(sed -n 1p "$w/rest")" = '{"size":3}' ] || fail "require.cache[main].exports.pool: $(sed -n 1p "$w/rest")"
    [ "$(sed -n 2p "$w/rest")" = '{"pool":{"size":3}}' ] || fail "module.exports: $(sed -n 2p "$w/rest")"
    [ "$(sed -n 3,5p "$w/rest" | tr '\n' ' ')" = "Dog Buffer Object " ] || fail "constructors: $(sed -n 3,5p "$w/rest" | tr '\n' ' ')"
    for want in "dog: Dog { name: 'rex', legs: 4, good: true }" "point: Point { x: -0, y: 1e+21 }" \
        "map: Map(3) { 'one' => 1, 'two' => { n: 2 }, 3 => 'three' }" "set: Set(3) { 'x', 42, 'y' }" \
        "date: $(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).date)' "$w/truth.json")" \
        "regexp: /ab+c\\/d/gim" "buffer: <Buffer de ad be ef 00 01 7f 80 ff>" "cycle: <ref *1> { name: 'cycle', self: [Circular *1] }" \
        "resolved: Promise { 42 }" "pending: Promise { <pending> }" "nullProto: [Object: null prototype] { k: 'v' }" \
        "bigint: 12345678901234567890123n" "typed: Float64Array(3) [ 1.5, -2, 1e+100 ]" "boxed: [Number: 5]" \
        "holey: [ 1, <1 empty item>, 3, <6 empty items>, 'ten' ]" "weak: WeakMap { <items unknown> }" \
        "arrayBuffer: ArrayBuffer { [Uint8Contents]: <09 08 07>, byteLength: 3 }" "TypeError: bad thing" "code: 'E_BAD'" \
        "counter: [Function: counter] at $FIX/values.js:10" "    label = 'c'" "    count = 4" "    step = 2" \
        "return function counter() { count += step; return label + count; }" "function setTimeout(callback"; do
        grep -qF -- "$want" "$w/rest" || { head -80 "$w/rest"; fail "print fx lacks: $want"; }
    done
    # the --json forms: the four documents before print 0x1001's "<unreadable 0x1001>"
    tail -n 5 "$w/got" | head -n 4 | node -e '
      const fs = require("fs"), t = JSON.parse(fs.readFileSync(process.argv[1]));
      const [ctor, buf, clo, src] = fs.readFileSync(0, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const vars = Object.fromEntries(clo.contexts[0].variables.map((x) => [x.name, x.text]));
      const bad = [];
      if (ctor.constructor !== "Dog" || !/values\.js$/.test(ctor.url) || !(ctor.line > 0)) bad.push("constructor");
      if (buf.hex !== t.bufferHex || buf.length * 2 !== buf.hex.length || !buf.complete) bad.push("buffer");
      if (vars.label !== "\x27c\x27" || vars.count !== "4" || vars.step !== "2") bad.push("closure");
      if (src.name !== "counter" || !src.lines.some((l) => l.text.includes("return function counter()"))) bad.push("source");
      if (bad.length) { console.error(bad.join(", "), JSON.stringify([ctor, buf, clo, src])); process.exit(1); }' "$w/truth.json" ||
        fail "constructor/buffer/closure/source --json"
    grep -q 'circular' "$w/err" || fail "print --json of a cycle must fail like JSON.stringify"
    grep -q "has no property 'nope'" "$w/err" || fail "a missing property's error"
    [ "$(od -An -tx1 "$w/buf.bin" | tr -d ' \n')" = "$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).bufferHex)' "$w/truth.json")" ] ||
        fail "buffer bytes differ"
    [ "$(stat -c %s "$w/big.bin")" = 20000 ] && [ "$(tr -d '\253' < "$w/big.bin" | wc -c)" = 0 ] || fail "the off-heap 20000-byte buffer"
    # --raw never writes over the core it reads
    sz=$(stat -c %s "$core")
    ns buffer --raw -o "$core" globalThis.fx.buffer > /dev/null 2> "$w/e-self"; rc=$?
    [ $rc -eq 1 ] && grep -q "error:" "$w/e-self" && [ "$(stat -c %s "$core")" = "$sz" ] ||
        { cat "$w/e-self"; fail "buffer --raw -o CORE ($rc)"; }
    rm -f "$core"
}
core_for_each_node check_major
# the same on a live process (core --pid: the threads are stopped only while copied), newest major
live=$dir/live; mkdir -p "$live"; mkfifo "$live/fifo"
"$NODE" "$FIX/values.js" "$live/fifo" "$live/truth.json" & pid=$!
for _ in $(seq 100); do [ -s "$live/truth.json" ] && break; sleep 0.1; done
got=$(timeout 60 "${NODESCOPE_RELEASE:-$NODESCOPE}" core --pid "$pid" print --json globalThis.fx.map 2> "$live/err")
rc=$?
if [ $rc -ne 0 ] && grep -q 'ptrace' "$live/err"; then echo "live: ptrace not permitted, not tested"
else [ "$got" = '{}' ] && [ "$(timeout 60 "${NODESCOPE_RELEASE:-$NODESCOPE}" core --pid "$pid" print --json globalThis.fx.dog)" = '{"name":"rex","legs":4,"good":true}' ] ||
    { v=live; cat "$live/err"; fail "print on a live process"; }
fi
kill "$pid"; wait "$pid" 2>/dev/null; pid=
echo ok
