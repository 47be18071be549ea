#!/usr/bin/env bash
# make check-layers: every #include "..." in src/ against the layer table in docs/design.md (the
# fenced ```layers block: each directory under src/, and main.c, with the directories it may
# include), plus two shapes the table cannot express:
#   - a cycle in the header-include graph (a.h includes b.h includes a.h, however long);
#   - a .c file that includes another .c file.
# Prints one line per problem, naming the file (and line) and the rule; exit 0 clean, 1 not.
#   scripts/check-layers.sh [SRC_DIR [DESIGN_MD]]    (default: src docs/design.md of this tree)
# An include is placed by its path: "dir/name.h" is in dir/ (the project writes includes relative
# to src/); a bare "name.h" is the including file's own directory when the file is there, else
# src/NAME, else a generated include (build/gen/*_js.inc, from src/formats/*.js) is "gen".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-$root/src}
design=${2:-$root/docs/design.md}
src=$(cd "$src" 2>/dev/null && pwd || echo "$src")

# Known violations, each with the reason it stays for now: "FILE INCLUDE" (FILE relative to
# src/, INCLUDE as written). An entry that no longer matches anything is itself an error, so the
# list only shrinks. Empty: the tree obeys its table (measured when this script was written).
allow=(
    # e.g. "v8/heap_graph.c cli/core_cmds.h"   # moves to postmortem/ in issue 28
)

[ -d "$src" ] || { echo "check-layers: no directory $src" >&2; exit 2; }
[ -f "$design" ] || { echo "check-layers: no layer table: $design is missing" >&2; exit 2; }
design=$(cd "$(dirname "$design")" && pwd)/$(basename "$design")

show_design=${design#"$root"/} show_src=${src#"$root"/}   # named in messages as the tree names them

cd "$src" || exit 2
files=$(find . -name '*.[ch]' -type f | sed 's|^\./||' | LC_ALL=C sort)
[ -n "$files" ] || { echo "check-layers: no sources under $src" >&2; exit 2; }

# shellcheck disable=SC2086   # file names under src/ have no spaces
awk -v design="$design" -v show_design="$show_design" -v srcdir="$show_src" -v allowlist="$(printf '%s\n' "${allow[@]}")" '
function layer_of(path) { return index(path, "/") ? substr(path, 1, index(path, "/") - 1) : path }
function dirname(path) { return index(path, "/") ? substr(path, 1, match(path, /\/[^\/]*$/) - 1) : "" }
function is_header(path) { return path ~ /\.(h|inc)$/ }
function problem(msg) { print "check-layers: " msg; nproblems++ }
BEGIN {
    # the table: the lines of the ```layers block, "name: dir dir ..." ("#" starts a comment)
    in_block = 0
    while ((getline line < design) > 0) {
        if (line ~ /^```layers[ \t]*$/) { in_block = 1; continue }
        if (in_block && line ~ /^```/) { in_block = 0; continue }
        if (!in_block) continue
        sub(/#.*/, "", line)
        if (line !~ /:/) continue
        name = line; sub(/:.*/, "", name); gsub(/[ \t]/, "", name)
        deps = line; sub(/^[^:]*:/, "", deps)
        n = split(deps, d, /[ \t]+/)
        table[name] = ""
        for (i = 1; i <= n; i++) if (d[i] != "") { may[name, d[i]] = 1; table[name] = table[name] " " d[i] }
        ntable++
    }
    if (!ntable) { print "check-layers: " show_design " has no ```layers block" > "/dev/stderr"; exit 2 }
    n = split(allowlist, a, "\n")
    for (i = 1; i <= n; i++) {
        if (a[i] ~ /^[ \t]*(#|$)/) continue
        split(a[i], w, /[ \t]+/)
        allowed[w[1], w[2]] = 1; allowed_text[w[1], w[2]] = w[1] " includes " w[2]
    }
    for (i = 1; i < ARGC; i++) exists[ARGV[i]] = 1
}
FNR == 1 { f = FILENAME; nodes[++nnodes] = f; fl = layer_of(f)
           if (!(fl in table)) problem(srcdir "/" f ": " (index(f, "/") ? fl "/" : fl) " is not in the layer table of " show_design) }
/^[ \t]*#[ \t]*include[ \t]*"/ {
    inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
    where = srcdir "/" f ":" FNR
    # where the compiler finds it: the including file'"'"'s directory, then src/ (-Isrc), then build/gen
    here = dirname(f); target = ""
    if (here != "" && ((here "/" inc) in exists)) target = here "/" inc
    else if (inc in exists) target = inc
    if (target != "") il = layer_of(target)
    else if (index(inc, "/")) il = layer_of(inc)
    else if (inc ~ /_js\.inc$/) il = "gen"
    else { problem(where ": \"" inc "\" is no file in " (here == "" ? "src/" : here "/ or src/")); next }
    if (inc ~ /\.c$/) {
        if ((f, inc) in allowed) { used[f, inc] = 1 }
        else problem(where ": includes the source file \"" inc "\": include its header instead")
    }
    if (target != "" && is_header(f) && is_header(target)) adj[f, ++nadj[f]] = target
    if ((fl, il) in may) next
    if ((f, inc) in allowed) { used[f, inc] = 1; next }
    if (fl in table)
        problem(where ": " (index(f, "/") ? fl "/" : fl) " may not include \"" inc "\" (" il "/): the layer table (" show_design ") lets it include only" table[fl])
}
function dfs(n,    k, m, i, path) {
    color[n] = 1; stack[++sp] = n; pos[n] = sp
    for (k = 1; k <= nadj[n]; k++) {
        m = adj[n, k]
        if (color[m] == 1) {
            path = ""
            for (i = pos[m]; i <= sp; i++) path = path stack[i] " -> "
            problem("header include cycle: " path m)
        } else if (color[m] == 0) dfs(m)
    }
    sp--; color[n] = 2
}
END {
    if (ntable == 0) exit 2
    for (i = 1; i <= nnodes; i++) if (is_header(nodes[i]) && color[nodes[i]] == 0) dfs(nodes[i])
    for (k in allowed) if (!(k in used)) problem("allowlist entry \"" allowed_text[k] "\" matches nothing: delete it from scripts/check-layers.sh")
    if (nproblems) { print "check-layers: " nproblems " problem" (nproblems > 1 ? "s" : "") > "/dev/stderr"; exit 1 }
}
' $files
