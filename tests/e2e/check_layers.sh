#!/usr/bin/env bash
# make check-layers (scripts/check-layers.sh): the tree obeys the layer table in docs/design.md;
# a copy of src/ with a planted back-edge (util/ including cli/), a header cycle, an included
# .c file or a cycle among the files of one folder fails, and each message names the file, the
# line and the rule it breaks; a group listed in the design's one-idea block counts as one unit.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$(dirname "$0")/../.."
root=$PWD
check=scripts/check-layers.sh

out=$("$check" 2>&1) || fail "the tree breaks its own layer table: $out"
[ -z "$out" ] || fail "a clean tree printed: $out"

w=$TEST_TMP/layers
planted() {  # a fresh copy of src/ in $w/src
    rm -rf "$w"; mkdir -p "$w"; cp -r "$root/src" "$w/src"
}
only_problem() {  # what, the message expected, the pattern of its kind: the check of $w/src exits 1
    local what=$1 msg=$2 kind=$3 rc=0
    out=$("$check" "$w/src" 2>&1) || rc=$?
    [ $rc -eq 1 ] || fail "$what: exit $rc, expected 1: $out"
    grep -qF "$msg" <<<"$out" || fail "$what: the message names no file, line or rule: $out"
    [ "$(grep -c "$kind" <<<"$out")" -eq 1 ] || fail "$what: more than the one problem: $out"
}

# a back-edge: util/ may include only util/
planted
n=$(($(wc -l < "$w/src/util/buf.c") + 1))
echo '#include "cli/common.h"' >> "$w/src/util/buf.c"
only_problem back-edge "$w/src/util/buf.c:$n: util/ may not include \"cli/common.h\" (cli/): the layer table (docs/design.md) lets it include only util" 'may not include'

# a cycle among headers, even within one directory (the table allows util/ -> util/)
planted
echo '#include "util/input.h"' >> "$w/src/util/progress.h"
out=$("$check" "$w/src" 2>&1) && fail "header cycle: exit 0"
grep -qF "header include cycle: util/input.h -> util/progress.h -> util/input.h" <<<"$out" ||
    fail "header cycle: not named: $out"

# a .c file included
planted
echo '#include "util/hash.c"' >> "$w/src/util/xalloc.c"
out=$("$check" "$w/src" 2>&1) && fail "included .c: exit 0"
grep -qF "$w/src/util/xalloc.c:" <<<"$out" && grep -qF 'includes the source file "util/hash.c"' <<<"$out" ||
    fail "included .c: not named: $out"

# a cycle inside a folder: buf.c includes xalloc.h (xalloc below buf); xalloc.c calling buf.c
# closes the circle, though no header includes another
planted
n=$(($(wc -l < "$w/src/util/xalloc.c") + 1))
echo 'void xalloc_planted(void) { buf_reserve(0, 0); }' >> "$w/src/util/xalloc.c"
only_problem "cycle inside util/" "order inside util/: util/buf -> util/xalloc -> util/buf (util/buf.c:2 includes xalloc.h; util/xalloc.c:$n uses buf_reserve (util/buf.c))" 'check-layers: order inside'
# ... and an include closes it as well
sed -i '$d' "$w/src/util/xalloc.c"; echo '#include "util/buf.h"' >> "$w/src/util/xalloc.c"
only_problem "include cycle inside util/" "order inside util/: util/buf -> util/xalloc -> util/buf (util/buf.c:2 includes xalloc.h; util/xalloc.c:$n includes buf.h)" 'check-layers: order inside'
# listed as one idea (with a reason) the two count as one unit; without a reason the entry is refused
cp docs/design.md "$w/design.md"
printf '%s\n' '```one-idea' 'util: buf xalloc  # planted by the test' '```' >> "$w/design.md"
out=$("$check" "$w/src" "$w/design.md" 2>&1) || fail "a one-idea group still fails: $out"
printf '%s\n' '```one-idea' 'util: buf hash' '```' >> "$w/design.md"
out=$("$check" "$w/src" "$w/design.md" 2>&1) && fail "a one-idea entry without a reason: exit 0"
grep -qF 'one-idea entry "util: buf hash" needs' <<<"$out" || fail "a one-idea entry without a reason: not named: $out"

# a directory the table does not know
planted
mkdir "$w/src/newlayer"; echo '#include "util/buf.h"' > "$w/src/newlayer/x.c"
out=$("$check" "$w/src" 2>&1) && fail "unknown directory: exit 0"
grep -qF "$w/src/newlayer/x.c: newlayer/ is not in the layer table" <<<"$out" || fail "unknown directory: not named: $out"
rm -rf "$w"
echo "ok"
