#!/bin/bash
# Mappings made after the sampler attached (issue 13): Node 20 reserves its code range and maps
# V8's embedded builtins a second time next to it (node's text at file offset 0x14c4000, at
# 0x7f...) after start, when `record -- node ...` has already read /proc/PID/maps. The sampler
# reads the maps again on a miss and names the builtins at their second address: a program whose
# hot code is in builtins (fixtures/live/builtin_hot.js) gives no frame in node's own file without
# a symbol ("0x... (node+0x...)"), at most 2% of samples with a frame in no known mapping (bare
# "0x..."), and its JS functions by name. tests/unit/test_live_remap.c checks the same at the
# target/ level on a process that maps a page of its own text again. Skips when perf events are
# not allowed here or there is no Node 20.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$(cd "$HERE/../fixtures/live" && pwd -P)
test_dir live_remap
lsan_ignore_libdw
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
NODE=$HERE/../.cache/node/20/bin/node
[ -x "$NODE" ] || skip "no Node 20"
timeout 120 "$NODESCOPE" record -F 299 -o "$dir/r.folded" -- "$NODE" "$FIX/builtin_hot.js" 2.5 > "$dir/out" 2> "$dir/err"
rc=$?
skip_unless_perf_events $rc "$dir/err"
[ $rc -eq 0 ] && [ "$(cat "$dir/out")" = ok ] || { cat "$dir/err"; fail "record exited $rc or the program's output changed"; }
cat "$dir/err"
awk -v file="$FIX/builtin_hot.js" '
    { n = $NF; total += n; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";"); bare = 0
      for (i = 2; i <= k; i++) {
          if (f[i] ~ /^0x[0-9a-f]+ \(node\+0x[0-9a-f]+\)$/) { innode += n; print "in node, no symbol: " f[i] }
          if (f[i] ~ /^0x[0-9a-f]+$/) bare = 1
          if (f[i] == "sort" || f[i] == "map" || f[i] == "filter" || f[i] == "slice" || f[i] == "reduce") named += n
      }
      if (bare) unknown += n }
    END { printf "%d samples: %d with a frame in no known mapping, %d in node without a symbol, %d in sort/slice/map/filter/reduce\n",
                 total, unknown, innode, named
          if (total < 100) { print "too few samples"; exit 1 }
          if (innode > 0 || unknown > 0.02 * total || named < 0.2 * total) exit 1 }' "$dir/r.folded" ||
    fail "frames in node's builtins are not named"
echo ok
