#!/bin/bash
# core A diff-objects B on two V8 .heapsnapshot files (issue 31), Node 20 and 24: the program
# writes A, makes 2,500 Sessions (dropping 200 of A's 1,000), 50 closures and 50 regexps, and
# writes B. Checked against the files themselves (JSON.parse, counted by type and name): every
# constructor's counts and self bytes in A and B, and the new ones by node id, for all of them
# (--json); Session's row in the table (+2,300, 2,500 new). Errors: a .heapsnapshot with any
# other command, a core against a snapshot, --all-objects (2), a snapshot cut short (1, the file
# named, nothing printed on stdout).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/leak" && pwd -P)
test_dir core_diff_heapsnapshot
trap 'rm -rf "$dir"' EXIT
fail_context() { echo "node ${v:-}"; }

tested=0
for v in $(node_majors 20 24 26); do
    NODE=$(node_bin "$v")
    [ -x "$NODE" ] || { echo "no Node $v: not tested"; continue; }
    w=$dir/$v; mkdir -p "$w"
    (cd "$w" && "$NODE" "$FIX/two_snapshots.js" a.heapsnapshot b.heapsnapshot) || fail "the program"
    "$NODESCOPE" core "$w/a.heapsnapshot" diff-objects --json "$w/b.heapsnapshot" > "$w/diff.json" 2> "$w/err" ||
        { cat "$w/err"; fail "diff-objects --json exited $?"; }
    "$NODESCOPE" core "$w/a.heapsnapshot" diff-objects "$w/b.heapsnapshot" > "$w/diff.txt" || fail "diff-objects"
    node -e '
        const fs = require("fs");
        const census = f => {   // name -> {count, bytes, ids}, as diff-objects counts
            const s = JSON.parse(fs.readFileSync(f, "utf8")), m = s.snapshot.meta, nf = m.node_fields.length;
            const [ti, ni, ii, si] = ["type", "name", "id", "self_size"].map(k => m.node_fields.indexOf(k));
            const types = m.node_types[ti], out = new Map();
            for (let k = 0; k < s.nodes.length; k += nf) {
                const t = types[s.nodes[k + ti]];
                const name = t === "object" ? s.strings[s.nodes[k + ni]] : t === "closure" ? "(closure)" : t === "regexp" ? "RegExp" : null;
                if (name === null) continue;
                const e = out.get(name) || { count: 0, bytes: 0, ids: new Set() };
                e.count++; e.bytes += s.nodes[k + si]; e.ids.add(s.nodes[k + ii]); out.set(name, e);
            }
            return out;
        };
        const a = census(process.argv[1]), b = census(process.argv[2]);
        const got = new Map(JSON.parse(fs.readFileSync(process.argv[3], "utf8")).classes.map(c => [c.name, c]));
        const allIds = new Map(); for (const [n, e] of a) allIds.set(n, e.ids);
        const bad = []; let rows = 0;
        for (const name of new Set([...a.keys(), ...b.keys()])) {
            const x = a.get(name) || { count: 0, bytes: 0, ids: new Set() }, y = b.get(name) || { count: 0, bytes: 0, ids: new Set() };
            const fresh = [...y.ids].filter(id => !x.ids.has(id)).length;
            const g = got.get(name);
            if (x.count === y.count && x.bytes === y.bytes && !fresh) { if (g) bad.push("unchanged but listed: " + name); continue; }
            rows++;
            if (!g || g.count_a !== x.count || g.count_b !== y.count || g.bytes_a !== x.bytes || g.bytes_b !== y.bytes || g.new !== fresh)
                bad.push(name + ": want " + [x.count, y.count, x.bytes, y.bytes, fresh] + ", got " + (g ? [g.count_a, g.count_b, g.bytes_a, g.bytes_b, g.new] : "none"));
        }
        if (rows !== got.size) bad.push(`rows: ${got.size}, want ${rows}`);
        const s = got.get("Session");
        if (!s || s.count_a !== 1000 || s.count_b !== 3300 || s.new !== 2500) bad.push("Session: " + JSON.stringify(s));
        if (!(got.get("RegExp") && got.get("RegExp").count_b - got.get("RegExp").count_a >= 50)) bad.push("RegExp");
        console.log(`${rows} constructors changed; Session ${s && s.count_a} -> ${s && s.count_b}, ${s && s.new} new`);
        if (bad.length) { console.error(bad.slice(0, 10).join("\n")); process.exit(1); }
    ' "$w/a.heapsnapshot" "$w/b.heapsnapshot" "$w/diff.json" || fail "diff-objects differs from the files"
    grep -Eq "^ +1000 +3300 +\+2300 .* 2500  Session$" "$w/diff.txt" || { head "$w/diff.txt"; fail "the table's Session row"; }
    if [ "$v" = 20 ]; then
        "$NODESCOPE" core "$w/a.heapsnapshot" stack > /dev/null 2> "$w/e1"; [ $? -eq 1 ] && grep -q "only diff-objects" "$w/e1" || fail "another command"
        "$NODESCOPE" core "$w/a.heapsnapshot" diff-objects --all-objects "$w/b.heapsnapshot" > /dev/null 2> "$w/e2"; [ $? -eq 2 ] || fail "--all-objects"
        "$NODESCOPE" core "$w/a.heapsnapshot" diff-objects "$NODE" > /dev/null 2> "$w/e3"; [ $? -eq 1 ] && grep -q "two cores or two .heapsnapshot" "$w/e3" || fail "a snapshot against a non-snapshot"
        head -c 100000 "$w/b.heapsnapshot" > "$w/cut.heapsnapshot"
        "$NODESCOPE" core "$w/a.heapsnapshot" diff-objects "$w/cut.heapsnapshot" > "$w/out4" 2> "$w/e4"; rc=$?
        [ $rc -eq 1 ] && grep -q "cut.heapsnapshot.*error" "$w/e4" && [ ! -s "$w/out4" ] || { cat "$w/e4"; fail "a snapshot cut short ($rc)"; }
    fi
    tested=$((tested + 1))
done
[ $tested -gt 0 ] || skip "no Node build in tests/.cache/node"
say "ok: $tested Node majors"
