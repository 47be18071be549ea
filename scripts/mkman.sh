#!/usr/bin/env bash
# Builds one manual page (roff, man(7) macros) from two sources, so a synopsis and an option list
# exist once: the command's own --help (generated from its option table, src/cli/*.c) gives
# SYNOPSIS, the first paragraphs of DESCRIPTION and OPTIONS; the page docs/commands/NAME.md gives
# the rest (its DESCRIPTION and OPTIONS sections are appended to the generated ones, its other
# sections follow in their order). Nothing but bash and awk: no pandoc.
#   scripts/mkman.sh NODESCOPE NAME [PAGE.md] > nodescope-NAME.1
# NAME is
#   nodescope    the command list (nodescope --help): nodescope.1
#   CMD          a command of main.c's table: nodescope CMD --help
#   CMD-TOPIC    a page of its own about part of CMD (core-stack, watch-heap, record-events):
#                the help is `nodescope core CORE TOPIC --help` for core's subcommands, else
#                `nodescope CMD --TOPIC --help` when that exits 0 with a help of its own, else
#                the page has no generated SYNOPSIS or OPTIONS (a topic of CMD's own options).
# The summary in NAME comes from the command table for a command, from the page's title
# ("# nodescope core stack: SUMMARY", or the whole title) for a topic.
# Markdown understood in pages: ## and ### headings, paragraphs, "- " lists (continued by
# indented lines), ``` fences, | tables | (aligned as text, backquotes dropped), `code`,
# **bold**, [text](link).
set -euo pipefail
bin=$1 name=$2 page=${3:-}
help=$(mktemp) top=$(mktemp)
trap 'rm -f "$help" "$top"' EXIT
"$bin" --help > "$top"
version=$("$bin" --version | sed -n "1s/^nodescope //p")
summary=
case $name in
nodescope)
    cp "$top" "$help"
    summary="where a JavaScript program spends its time, and what it held when it died" ;;
*-*)
    cmd=${name%%-*} topic=${name#*-}
    if [ "$cmd" = core ] && "$bin" core CORE "$topic" --help > "$help" 2>/dev/null; then :
    elif "$bin" "$cmd" "--$topic" --help > "$help" 2>/dev/null &&
        ! cmp -s "$help" <("$bin" "$cmd" --help 2>/dev/null); then :
    else : > "$help"; fi ;;
*)
    "$bin" "$name" --help > "$help"
    summary=$(awk -v c="$name" '$1 == c && /^  [a-z]/ { sub(/^  [a-z]+ +/, ""); print; exit }' "$top") ;;
esac
if [ -z "$summary" ] && [ -n "$page" ]; then   # "# nodescope core stack: SUMMARY", else the title
    summary=$(sed -n '1{/^# /{s/^# //;/: /s/^[^:]*: *//;p}}' "$page")
fi
[ -n "$summary" ] || summary="nodescope ${name/-/ }"

# SEE ALSO: a command's topic pages, a topic's command, every command from nodescope(1)
see=
if [ -n "$page" ]; then
    case $name in
    nodescope) see=$(awk '/^  [a-z]/ { printf "%snodescope-%s(1)", n++ ? ", " : "", $1 }' "$top") ;;
    *-*) see="nodescope-${name%%-*}(1), nodescope(1)" ;;
    *) see=$(cd "$(dirname "$page")" && for f in "$name"-*.md; do [ -e "$f" ] && printf 'nodescope-%s(1), ' "${f%.md}"; done; echo "nodescope(1)") ;;
    esac
fi

awk -v name="$name" -v summary="$summary" -v version="$version" -v src="${page:-none}" -v see="$see" '
function esc(s) {   # plain text to roff: backslashes, hyphens as minus signs, no control lines
    gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s)
    if (s ~ /^[.\047]/) s = "\\&" s
    return s
}
function inl(s,   out, pre, code, i) {   # markdown inline: `code`, **bold**, [text](link)
    out = ""
    while ((i = index(s, "`")) > 0) {
        pre = substr(s, 1, i - 1); s = substr(s, i + 1)
        i = index(s, "`"); if (i == 0) { s = pre "`" s; break }
        code = substr(s, 1, i - 1); s = substr(s, i + 1)
        out = out span(pre) "\\fB" esc(code) "\\fR"
    }
    out = out span(s)
    if (out ~ /^[.\047]/) out = "\\&" out
    return out
}
function span(s) {
    s = esc(s)
    while (match(s, /\*\*[^*]+\*\*/)) s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR" substr(s, RSTART + RLENGTH)
    while (match(s, /\[[^]]+\]\([^)]+\)/)) { t = substr(s, RSTART + 1, RLENGTH); sub(/\].*/, "", t); s = substr(s, 1, RSTART - 1) t substr(s, RSTART + RLENGTH) }
    return s
}
function emit(sec, line) { body[sec] = body[sec] line "\n" }
function flush_table(   r, c, w, line, n, cell, k) {
    if (!trows) return
    for (r = 1; r <= trows; r++) { n = split(trow[r], cell, "|"); for (c = 2; c < n; k = c++) { t = cell[c]; gsub(/^ +| +$/, "", t); gsub(/`/, "", t); tc[r, c] = t; if (length(t) > w[c]) w[c] = length(t) } tn[r] = n }
    emit(cur, ".PP"); emit(cur, ".nf")
    for (r = 1; r <= trows; r++) {
        line = ""
        for (c = 2; c < tn[r]; c++) line = line (c > 2 ? "  " : "") sprintf("%-" w[c] "s", tc[r, c])
        sub(/ +$/, "", line); emit(cur, esc(line))
    }
    emit(cur, ".fi"); trows = 0; delete w; delete tc
}
# --- the command help (first file) ---
FILENAME == ARGV[1] {
    if (hstate == 0) {
        if ($0 ~ /^ *(usage|or):/ || (NR > 1 && $0 ~ /^ +nodescope/)) { l = $0; sub(/^ *(usage|or): */, "", l); sub(/^ +/, "", l); syn = syn esc(l) "\n"; next }
        if ($0 == "") { hstate = 1; next }
        hstate = 1   # no (more) usage lines: the description
    }
    if (hstate == 1) {
        if (name == "nodescope" && $0 == "commands:") { hstate = 3; next }
        if ($0 ~ /^ +-/) hstate = 2
        else if ($0 == "") { if (hdesc != "" && hdesc !~ /\.PP\n$/) { if (innf) { hdesc = hdesc ".fi\n"; innf = 0 } hdesc = hdesc ".PP\n" } next }
        else if ($0 ~ /^ /) { if (!innf) { hdesc = hdesc ".nf\n"; innf = 1 } hdesc = hdesc esc($0) "\n"; next }
        else { if (innf) { hdesc = hdesc ".fi\n"; innf = 0 } hdesc = hdesc esc($0) "\n"; next }
    }
    if (hstate == 3) {   # nodescope --help: the command table
        if ($0 ~ /^  [a-z]/) { c = $1; l = $0; sub(/^  [a-z]+ +/, "", l); cmds = cmds ".TP\n\\fBnodescope\\-" c "\\fR(1)\n" esc(l) "\n" }
        else if ($0 != "") tail = tail esc($0) "\n"
        next
    }
    # hstate 2: options; a non-indented line heads a group, an indented one is an entry
    # (the text before its first run of two spaces is the tag), a deeper one continues it
    if ($0 == "") next
    if ($0 ~ /^[^ ]/) { opts = opts ".SS " esc($0) "\n"; next }
    if ($0 ~ /^        / && opts ~ /\n$/ && opts != "") { l = $0; sub(/^ +/, "", l); opts = opts esc(l) "\n"; next }
    l = $0; sub(/^ +/, "", l)
    if (match(l, /  +/)) { tag = substr(l, 1, RSTART - 1); rest = substr(l, RSTART + RLENGTH) } else { tag = l; rest = "" }
    opts = opts ".TP\n" esc(tag) "\n" (rest != "" ? esc(rest) "\n" : "")
    next
}
# --- the page (second file) ---
FILENAME != ARGV[1] && FNR == 1 && /^# / { next }
/^```/ { if (infence) { emit(cur, ".fi"); emit(cur, ".RE"); infence = 0 } else { flush_table(); emit(cur, ".PP"); emit(cur, ".RS 4"); emit(cur, ".nf"); infence = 1 } next }
infence { l = $0; gsub(/\\/, "\\e", l); gsub(/-/, "\\-", l); if (l ~ /^[.\047]/) l = "\\&" l; emit(cur, l); next }
/^\|/ { if ($0 !~ /^\| *:?-/) trow[++trows] = $0; next }
{ flush_table() }
/^## / { cur = toupper(substr($0, 4)); if (!(cur in body)) order[++nsec] = cur; para = 0; next }
/^###+ / { l = $0; sub(/^#+ /, "", l); emit(cur, ".SS " inl(l)); para = 0; next }
/^$/ { para = 0; next }
/^[-*] / { l = substr($0, 3); emit(cur, ".IP \\(bu 2"); emit(cur, inl(l)); para = 2; next }
{ l = $0; if (para == 2 && l ~ /^ /) { sub(/^ +/, "", l); emit(cur, inl(l)); next }
  sub(/^ +/, "", l); if (!para) { emit(cur, ".PP"); para = 1 } emit(cur, inl(l)) }
END {
    flush_table()
    if (infence) { emit(cur, ".fi"); emit(cur, ".RE") }
    if (innf) hdesc = hdesc ".fi\n"
    sub(/\.PP\n$/, "", hdesc)
    print ".\\\" Generated by scripts/mkman.sh from `nodescope " name " --help` and " src ": edit those, not this."
    printf ".TH %s 1 \"\" \"nodescope %s\" \"nodescope manual\"\n", toupper(name == "nodescope" ? name : "nodescope-" name), version
    print ".nh\n.ad l"
    print ".SH NAME"
    print (name == "nodescope" ? "nodescope" : "nodescope\\-" esc(name)) " \\- " esc(summary)
    if (syn != "") printf ".SH SYNOPSIS\n.nf\n%s.fi\n", syn
    if (hdesc != "" || ("DESCRIPTION" in body)) { print ".SH DESCRIPTION"; printf "%s", hdesc; printf "%s", body["DESCRIPTION"] }
    if (cmds != "") { print ".SH COMMANDS"; printf "%s", cmds; if (tail != "") printf ".PP\n%s", tail }
    if (opts != "" || ("OPTIONS" in body)) { print ".SH OPTIONS"; printf "%s", opts; if (opts != "" && body["OPTIONS"] != "") print ".SS More on the options"; printf "%s", body["OPTIONS"] }
    for (i = 1; i <= nsec; i++) { s = order[i]; if (s == "DESCRIPTION" || s == "OPTIONS" || s == "SYNOPSIS" || s == "SEE ALSO") continue; print ".SH " esc(s); printf "%s", body[s] }
    if (see != "" || ("SEE ALSO" in body)) { print ".SH SEE ALSO"; printf "%s", body["SEE ALSO"]; if (see != "") { if (body["SEE ALSO"] != "") print ".PP"; print esc(see) } }
}' "$help" "${page:-/dev/null}" | preconv -e UTF-8 | grep -v '^\.lf '
# preconv: every character beyond ASCII as a groff escape (\[u00D7]), so the page renders alike
# with or without man's own preconv step
