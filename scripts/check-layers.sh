#!/usr/bin/env bash
# make check-layers: every #include "..." in src/ against the layer table in docs/design.md (the
# fenced ```layers block: each directory under src/, and main.c, with the directories it may
# include), plus three shapes the table cannot express:
#   - a cycle in the header-include graph (a.h includes b.h includes a.h, however long);
#   - a .c file that includes another .c file;
#   - the order inside a folder: its files, taken as units (x.c, x.h and x_internal.h, the
#     private half of x.h, are one unit "x"), form a one-way order. Unit x depends on unit y of the same folder when one of x's files includes
#     y.h, or when x.c uses a name (a function or variable) that y.c defines without "static".
#     A cycle among units is a problem unless its units are listed as one idea in several files
#     in the ```one-idea block of docs/design.md ("folder: unit unit ...  # the reason"), where
#     they count as one unit.
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

# The order inside each folder (see the top): prints one line per cycle; exit 0 clean, 1 not.
folder_order() {
    awk -v design="$design" -v show_design="$show_design" -v srcdir="$show_src" '
function folder(path) { return index(path, "/") ? substr(path, 1, match(path, /\/[^\/]*$/) - 1) : "" }
function unit(path,    b) {    # x.c, x.h and x_internal.h (the private half of x.h) are unit x
    b = path; sub(/^.*\//, "", b); sub(/\.[^.]*$/, "", b)
    if (path ~ /_internal\.h$/) sub(/_internal$/, "", b)
    return b
}
function problem(msg) { print "check-layers: " msg; nproblems++ }
function edge(from, to, why) {    # from, to: "folder/unit"; the first reason seen is kept
    from = (from in merged) ? merged[from] : from; to = (to in merged) ? merged[to] : to
    if (from == to || (from, to) in reason) return
    reason[from, to] = why; adj[from, ++nadj[from]] = to
}
BEGIN {
    # the one-idea groups: "folder: unit unit ...  # reason" in the ```one-idea block
    while ((getline line < design) > 0) {
        if (line ~ /^```one-idea[ \t]*$/) { in_block = 1; continue }
        if (in_block && line ~ /^```/) { in_block = 0; continue }
        if (!in_block || line ~ /^[ \t]*$/) continue
        why = index(line, "#") ? substr(line, index(line, "#") + 1) : ""
        sub(/#.*/, "", line)
        if (line !~ /:/ || why !~ /[^ \t]/) {
            problem(show_design ": one-idea entry \"" line "\" needs \"folder: unit unit ...  # reason\""); continue }
        dir = line; sub(/:.*/, "", dir); gsub(/[ \t]/, "", dir)
        rest = line; sub(/^[^:]*:/, "", rest)
        n = split(rest, u, /[ \t]+/); group = ""
        for (i = 1; i <= n; i++) if (u[i] != "") group = group (group == "" ? "" : ",") u[i]
        for (i = 1; i <= n; i++) if (u[i] != "") merged[dir "/" u[i]] = dir "/{" group "}"
    }
    for (i = 1; i < ARGC; i++) {
        f = ARGV[i]; exists[f] = 1
        if (folder(f) != "") units[folder(f) "/" unit(f)] = 1
    }
    for (k in merged) if (!(k in units))
        problem(show_design ": one-idea entry names " k ", which is no file in " srcdir "/")
}
FNR == 1 {
    f = FILENAME; dir = folder(f); me = dir "/" unit(f); in_comment = 0; is_c = (f ~ /\.c$/)
    files[++nfiles] = f
}
dir == "" { next }
/^[ \t]*#[ \t]*include[ \t]*"/ {
    inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
    if ((dir "/" inc) in exists) t = dir "/" inc
    else if (inc in exists && folder(inc) == dir) t = inc
    else next
    if (t ~ /\.h$/) edge(me, dir "/" unit(t), f ":" FNR " includes " unit(t) ".h")
    next
}
is_c {
    line = $0
    # comments, strings and characters out (a block comment may span lines)
    if (in_comment) { if (!sub(/^.*\*\//, "", line)) next; in_comment = 0 }
    gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", line)
    if (match(line, /\/\*/)) { line = substr(line, 1, RSTART - 1); in_comment = 1 }
    gsub(/"([^"\\]|\\.)*"/, "\"\"", line); gsub(/\x27([^\x27\\]|\\.)*\x27/, "0", line)
    sub(/\/\/.*/, "", line)
    if (line ~ /^#/) next
    # a definition: at the start of a line, not static, the name before "(", " =", "[" or ";"
    if (line ~ /^[A-Za-z_]/ && line !~ /^(static|typedef|extern|enum|union|struct [A-Za-z0-9_]* *\{)/ &&
        (line !~ /;[ \t]*$/ || line ~ /^[^(]*[^=!<>]=[^=]/)) {
        d = line; sub(/[ \t]*(\(|=|\[|\{|;).*/, "", d)
        if (match(d, /[A-Za-z_][A-Za-z0-9_]*$/)) {
            name = substr(d, RSTART, RLENGTH)
            if (!((dir, name) in defined)) { defined[dir, name] = me; defined_in[dir, name] = f }
        }
    }
    # the names used, for after all definitions are known
    n = split(line, tok, /[^A-Za-z0-9_]+/)
    for (i = 1; i <= n; i++) if (tok[i] ~ /^[A-Za-z_]/ && !((me, tok[i]) in seen)) {
        seen[me, tok[i]] = 1; uses[++nuses] = me SUBSEP tok[i] SUBSEP f ":" FNR
    }
}
function dfs(n,    k, m, i, j, len, start, cyc, path, why) {
    color[n] = 1; stack[++sp] = n; pos[n] = sp
    for (k = 1; k <= nadj[n]; k++) {
        m = adj[n, k]
        if (color[m] == 1) {    # a cycle: stack[pos[m]..sp], named from its first unit by name
            len = sp - pos[m] + 1; start = 0
            for (i = 0; i < len; i++) if (stack[pos[m] + i] < stack[pos[m] + start]) start = i
            for (i = 0; i < len; i++) cyc[i] = stack[pos[m] + (start + i) % len]
            path = ""; why = ""
            for (i = 0; i < len; i++) {
                j = (i + 1) % len
                path = path cyc[i] " -> "; why = why (i ? "; " : "") reason[cyc[i], cyc[j]]
            }
            problem("order inside " folder(m) "/: " path cyc[0] " (" why ")")
        } else if (color[m] == 0) dfs(m)
    }
    sp--; color[n] = 2
}
END {
    for (i = 1; i <= nuses; i++) {
        split(uses[i], w, SUBSEP); me = w[1]; name = w[2]; dir = folder(me)
        if (!((dir, name) in defined)) continue
        edge(me, defined[dir, name], w[3] " uses " name " (" defined_in[dir, name] ")")
    }
    for (k in adj) { split(k, w, SUBSEP); node[w[1]] = 1 }
    nn = 0; for (k in node) order[++nn] = k
    for (i = 2; i <= nn; i++) { v = order[i]; for (j = i - 1; j >= 1 && order[j] > v; j--) order[j + 1] = order[j]; order[j + 1] = v }
    for (i = 1; i <= nn; i++) if (color[order[i]] == 0) dfs(order[i])
    exit nproblems ? 1 : 0
}
' "$@"
}

# shellcheck disable=SC2086   # file names under src/ have no spaces
order_problems=$(folder_order $files); order_rc=$?
[ -z "$order_problems" ] || printf '%s\n' "$order_problems"
[ $order_rc -le 1 ] || exit $order_rc
norder=$(printf '%s' "$order_problems" | grep -c '^check-layers: ')

# shellcheck disable=SC2086
awk -v norder="$norder" -v design="$design" -v show_design="$show_design" -v srcdir="$show_src" -v allowlist="$(printf '%s\n' "${allow[@]}")" '
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
    nproblems += norder
    if (nproblems) { print "check-layers: " nproblems " problem" (nproblems > 1 ? "s" : "") > "/dev/stderr"; exit 1 }
}
' $files
