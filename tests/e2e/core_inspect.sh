#!/bin/bash
# The inspectors on known values, on Node 18-26: objects.js holds a derived-class instance,
# one-byte, two-byte (non-ASCII, a surrogate pair), cons and sliced strings, a dictionary-mode
# object, Smi, double and mixed arrays, a Buffer and a heap number as the arguments of a frame
# blocked on a FIFO. Their addresses come from `stack --json`; `str`, `type`, `v8print` and
# `array` must give back exactly the values the program wrote to its truth file. Node 20 runs the
# ASan+UBSan build; the other majors the release build (the ~17 commands per major are then fast).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/core" && pwd -P)
. "$HERE/../lib/core_fixture.sh"
core_setup core_inspect
fail_context() { echo "node $v"; }
check_major() {
    w=$dir/$v
    core_gcore "$w" "$NODE" "$FIX/objects.js" "$w/fifo" "$w/truth.json"
    bin=$NODESCOPE; [ "$v" = 20 ] || bin=${NODESCOPE_RELEASE:-$NODESCOPE}
    ns() { timeout 60 "$bin" core "$core" --node "$NODE" "$@"; }
    ns stack --json > "$w/stack.json" || fail "stack --json exited $?"
    mapfile -t A < <(node -e '
      const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
      const f = d.threads[0].frames.find((f) => f.kind === "js" && f.name === "hold");
      if (f) for (const a of f.arguments) console.log(a.address);' "$w/stack.json")
    [ ${#A[@]} -eq 11 ] || fail "hold's 11 arguments not found (got ${#A[@]})"
    truth() { node -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1])); const v = eval("t." + process.argv[2]); process.stdout.write(typeof v === "string" ? v : JSON.stringify(v));' "$w/truth.json" "$1"; }
    # strings: every representation, byte for byte
    i=1
    for key in oneByte twoByte cons sliced; do
        ns str -v "${A[$i]}" > "$w/str.txt" || fail "str $key exited $?"
        got=$(tail -n +2 "$w/str.txt")
        [ "$got" = "$(truth $key)" ] || fail "str $key: '$got' != '$(truth $key)'"
        i=$((i + 1))
    done
    ns str -v "${A[3]}" | head -1 | grep -q "^ConsString, $(truth cons.length) chars$" || fail "str -v of the cons string: $(ns str -v "${A[3]}" | head -1)"
    head -1 "$w/str.txt" | grep -q '^SlicedString, 65 chars$' || fail "str -v of the sliced string: $(head -1 "$w/str.txt")"
    # a derived-class instance: its own class name and its fields
    ns v8print "${A[0]}" > "$w/dog.txt" || fail "v8print exited $?"
    grep -q 'constructor Dog' "$w/dog.txt" && grep -q '    name: "rex"' "$w/dog.txt" && grep -q '    legs: 4' "$w/dog.txt" &&
        grep -q '    good: true' "$w/dog.txt" || { cat "$w/dog.txt"; fail "v8print of the Dog"; }
    grep -q 'HeapObject.map (Map)' "$w/dog.txt" || fail "v8print shows no map field"
    # a dictionary-mode object: all 29 properties with their values
    ns v8print "${A[5]}" | grep -E '^    key[0-9]+: ' | sed 's/^ *//' | sort > "$w/dict.txt"
    node -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1])); for (const [k, v] of Object.entries(t.dict)) console.log(k + ": " + v)' "$w/truth.json" | sort > "$w/dict.want"
    cmp -s "$w/dict.txt" "$w/dict.want" || { diff "$w/dict.want" "$w/dict.txt" | head; fail "v8print of the dictionary-mode object"; }
    # arrays: Smis, doubles, mixed
    for pair in "6 smis" "7 doubles" "8 mixed"; do
        set -- $pair
        ns array "${A[$1]}" | sed 's/^\[[0-9]*\]: //' > "$w/arr.txt"
        node -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1])); for (const v of t[process.argv[2]]) console.log(String(v))' "$w/truth.json" "$2" > "$w/arr.want"
        cmp -s "$w/arr.txt" "$w/arr.want" || { diff "$w/arr.want" "$w/arr.txt" | head; fail "array $2"; }
    done
    ns type "${A[9]}" | grep -q 'constructor Buffer: <Buffer 20 bytes>' || fail "type of the Buffer: $(ns type "${A[9]}")"
    ns type "${A[10]}" | grep -q 'HEAP_NUMBER_TYPE.*: 12345.678$' || fail "type of the number: $(ns type "${A[10]}")"
    ns type 0x2a00000000 | grep -q '^Smi 42$' || fail "type of a Smi"
    ns str 0x10 > /dev/null 2>&1; [ $? -eq 1 ] || fail "str of an unmapped address should fail with 1"
    # a function (hold itself): each field once, its context by class, and the context's slots
    fn=$(node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1])); console.log(d.threads[0].frames.find((f) => f.kind === "js" && f.name === "hold").function)' "$w/stack.json")
    ns v8print "$fn" > "$w/fn.txt" || fail "v8print of a function exited $?"
    grep -q 'JSFunction.shared (SharedFunctionInfo): .* <SharedFunctionInfo>' "$w/fn.txt" || { cat "$w/fn.txt"; fail "v8print of a function: no shared"; }
    ctx=$(sed -n 's/.*JSFunction.context ([A-Za-z_]*): \(0x[0-9a-f]*\) <Context>$/\1/p' "$w/fn.txt")
    [ -n "$ctx" ] || { cat "$w/fn.txt"; fail "v8print of a function: its context is not shown as <Context>"; }
    dups=$(grep -E '^  \+[0-9]+ ' "$w/fn.txt" | awk '{print $1, $2}' | sort | uniq -d)
    [ -z "$dups" ] || fail "v8print lists a field twice: $dups"
    ns v8print "$ctx" > "$w/ctx.txt" || fail "v8print of a context exited $?"
    grep -q '^  slots:' "$w/ctx.txt" && grep -q '^    \[0\]: <ScopeInfo>' "$w/ctx.txt" || { cat "$w/ctx.txt"; fail "v8print of a context: no slots"; }
    ns v8print --help | grep -q 'usage: nodescope core CORE v8print' || fail "v8print --help"
    # --json, in one prompt session (one JSON line per command): the Dog's properties, every string
    # and array kind, equal to the truth; a context's slots; a Smi
    printf 'v8print --json %s\nstr --json %s\nstr --json %s\nstr --json %s\nstr --json %s\narray --json %s\narray --json %s\narray --json %s\narray --json --limit 2 %s\nv8print --json %s\ntype --json 0x2a00000000\ntype --json %s\n' \
        "${A[0]}" "${A[1]}" "${A[2]}" "${A[3]}" "${A[4]}" "${A[6]}" "${A[7]}" "${A[8]}" "${A[6]}" "$ctx" "${A[0]}" | ns > "$w/json.out" ||
        fail "the --json commands exited $?"
    node -e '
      const fs = require("fs"), t = JSON.parse(fs.readFileSync(process.argv[1]));
      const L = fs.readFileSync(process.argv[2], "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const check = (ok, what) => { if (!ok) { console.error("--json:", what, JSON.stringify(L)); process.exit(1); } };
      const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
      check(L.length === 12, "12 documents");
      const dog = Object.fromEntries(L[0].properties.map((p) => [p.key, p.text]));
      check(L[0].constructor === "Dog" && L[0].fields.some((f) => f.name === "map") &&
            same(dog, { name: JSON.stringify(t.dog.name), legs: String(t.dog.legs), good: String(t.dog.good) }), "v8print of the Dog");
      ["oneByte", "twoByte", "cons", "sliced"].forEach((k, i) =>
        check(L[1 + i].value === t[k] && L[1 + i].length === t[k].length, "str of " + k));
      ["smis", "doubles", "mixed"].forEach((k, i) =>
        check(same(L[5 + i].elements.map((e) => e.text), t[k].map(String)) && !L[5 + i].elements_truncated, "array of " + k));
      check(L[8].elements.length === 2 && L[8].elements_truncated, "array --limit 2");
      check(/ScopeInfo/.test(L[9].slots[0].text), "the slots of a context");
      check(same(L[10], { address: "0x2a00000000", smi: 42 }), "type of a Smi");
      check(L[11].type_name === "JS_OBJECT_TYPE" && L[11].constructor === "Dog", "type of the Dog");' "$w/truth.json" "$w/json.out" ||
        fail "--json output"
    # -a: each value's address, and the address leads to the same value
    obj=$(ns array -a "${A[8]}" | sed -n 's/^\[2\]: <Object: Object> @\(0x[0-9a-f]*\)$/\1/p')
    [ -n "$obj" ] || fail "array -a gives no address for the mixed array's object: $(ns array -a "${A[8]}")"
    ns v8print "$obj" | grep -q '^    three: 3$' || fail "the address array -a gave is not { three: 3 }"
    # the prompt (stdin not a terminal: one command per line): commands share the open core, an
    # error does not end the session, quit does
    printf 'type 0x2a00000000\nbogus command\nstr %s\nhelp\nquit\nstack\n' "${A[1]}" | ns > "$w/prompt.out" 2> "$w/prompt.err" ||
        fail "the prompt exited $?"
    grep -q '^Smi 42$' "$w/prompt.out" && grep -qx "$(truth oneByte)" "$w/prompt.out" && grep -q '^  v8print ' "$w/prompt.out" ||
        { cat "$w/prompt.out"; fail "prompt output"; }
    grep -q "unknown command 'bogus'" "$w/prompt.err" || fail "prompt: no error for an unknown command"
    grep -q '^thread' "$w/prompt.out" && fail "prompt: a command after quit ran"
    rm -f "$core"
}
core_for_each_node check_major
echo ok
