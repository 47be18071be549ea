#!/usr/bin/env bash
# The documentation agrees with the program, because the parts that could differ are generated:
#   - every command of main.c's table (nodescope --help) has a page, docs/commands/CMD.md, whose
#     title's summary is the table's, with DESCRIPTION, EXIT STATUS and EXAMPLES; every core
#     command (nodescope core --help) has docs/commands/core-CMD.md, titled with core's summary;
#   - README.md's command table has one row per command, with the table's summary;
#   - every page builds into a manual page (scripts/mkman.sh) that groff renders without a
#     warning, and whose SYNOPSIS and OPTIONS, rendered, are word for word the command's --help
#     (so they are generated: nothing was copied by hand);
#   - make install puts the binary and the pages where man finds them, and nodescope help CMD
#     shows the page (man's when installed, else --help and the page's text).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$TEST_ROOT"
command -v groff >/dev/null && command -v preconv >/dev/null || skip "no groff (scripts/setup.sh installs groff-base)"
ns=${NODESCOPE_RELEASE:-$NODESCOPE}
[ -x "$ns" ] || ns=$NODESCOPE
test_dir docs
trap 'rm -rf "$dir"' EXIT

commands=$("$ns" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ "$(echo "$commands" | wc -w)" -ge 10 ] || fail "nodescope --help lists too few commands: $commands"
summary() { "$ns" --help | awk -v c="$1" '/^  [a-z]/ && $1 == c { sub(/^  [a-z]+ +/, ""); print; exit }'; }
core_commands=$("$ns" core --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ "$(echo "$core_commands" | wc -w)" -ge 20 ] || fail "nodescope core --help lists too few commands: $core_commands"

# --- pages: one per command, one per core command
for c in $commands; do
    p=docs/commands/$c.md
    [ -f "$p" ] || fail "$c has no page ($p)"
    want="# nodescope $c: $(summary "$c")"
    [ "$(head -n 1 "$p")" = "$want" ] || fail "$p: the title is '$(head -n 1 "$p")', the command table says '$want'"
    for s in DESCRIPTION "EXIT STATUS" EXAMPLES; do grep -qx "## $s" "$p" || fail "$p has no $s section"; done
done
for c in $core_commands; do
    p=docs/commands/core-$c.md
    [ -f "$p" ] || fail "core $c has no page ($p)"
    # the title's summary ends core --help's line for the command (cli/core.c's table)
    t=$(sed -n "1s/^# nodescope core $c: //p" "$p")
    line=$("$ns" core --help | grep "^  $c ")
    [ -n "$t" ] && [ "${line%"$t"}" != "$line" ] || fail "$p: the title's summary '$t' is not core --help's: '$line'"
done

# --- the README's command table
rows=$(grep -E '^\| `nodescope [a-z]+` \|' README.md)
[ "$(echo "$rows" | wc -l)" -eq "$(echo "$commands" | wc -w)" ] ||
    fail "README's table has $(echo "$rows" | wc -l) rows, the command table $(echo "$commands" | wc -w) commands"
for c in $commands; do
    row="| \`nodescope $c\` | $(summary "$c") |"
    grep -qxF "$row" README.md || fail "README's table lacks the row '$row' (the summary in src/main.c)"
done

# --- manual pages: built, warning-free, SYNOPSIS and OPTIONS the --help's words
words() {  # normalise rendered or --help text into one word a line
    sed 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g; s/\xe2\x80\x98/`/g; s/\xe2\x80\x99/'"'"'/g; s/\xe2\x80\x9c/"/g; s/\xe2\x80\x9d/"/g' | tr -s ' \t\n' '\n\n\n' | sed '/^$/d'
}
render() { groff -man -Tutf8 -rLL=250n -P-cbou "$1" 2>/dev/null; }
section() {  # the rendered text of section $2 (to the next heading, or to "More on the options")
    awk -v s="$2" '$0 == s { on = 1; next } on && (/^[A-Z]/ || /^   More on the options$/) { exit } on' "$1"
}
help_of() {  # the --help a page is built from (scripts/mkman.sh's rule), or nothing
    local name=$1 cmd=${1%%-*} topic=${1#*-}
    if [ "$name" = nodescope ]; then "$ns" --help
    elif [ "$cmd" = "$name" ]; then "$ns" "$name" --help
    elif [ "$cmd" = core ] && "$ns" core CORE "$topic" --help 2>/dev/null; then :
    elif out=$("$ns" "$cmd" "--$topic" --help 2>/dev/null) && [ "$out" != "$("$ns" "$cmd" --help)" ]; then echo "$out"
    fi
}
mkdir -p "$dir/man1"
checked=0
for p in docs/commands/*.md; do
    name=$(basename "$p" .md)
    page=$dir/man1/$([ "$name" = nodescope ] && echo nodescope || echo "nodescope-$name").1
    scripts/mkman.sh "$ns" "$name" "$p" > "$page" 2> "$dir/err" || fail "$p: scripts/mkman.sh failed: $(cat "$dir/err")"
    warn=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
    [ -z "$warn" ] || fail "$page: groff warns: $warn"
    render "$page" > "$dir/rendered"
    help_of "$name" > "$dir/help"
    [ -s "$dir/help" ] || continue   # a topic page without a help of its own
    # SYNOPSIS: the usage lines, without "usage:" / "or:"
    awk '/^$/ { exit } /^ *(usage|or):/ || /^ +nodescope/ { sub(/^ *(usage|or): */, ""); print }' "$dir/help" | words > "$dir/want"
    section "$dir/rendered" SYNOPSIS | words > "$dir/got"
    cmp -s "$dir/want" "$dir/got" || { diff "$dir/want" "$dir/got" | head; fail "$page: SYNOPSIS is not $name's usage"; }
    # OPTIONS: from the first option line to the end of --help
    if [ "$name" != nodescope ]; then
        awk 'on || /^ +-/ { on = 1; print }' "$dir/help" | words > "$dir/want"
        section "$dir/rendered" OPTIONS | words > "$dir/got"
        cmp -s "$dir/want" "$dir/got" || { diff "$dir/want" "$dir/got" | head; fail "$page: OPTIONS are not $name's --help"; }
    fi
    checked=$((checked + 1))
done
say "$checked manual pages agree with their --help"
# nodescope(1) lists every command
render "$dir/man1/nodescope.1" > "$dir/rendered"
for c in $commands; do grep -q "nodescope-$c(1)" "$dir/rendered" || fail "nodescope.1 does not list $c"; done

# --- nodescope help CMD: without man's page, --help then the page's text
NODESCOPE_HELP_NO_MAN=1 "$ns" help record > "$dir/help.txt" || fail "help record exited $?"
head -n 1 "$dir/help.txt" | grep -q '^usage: nodescope record' || fail "help record does not start with record's usage"
grep -qx '## EXIT STATUS' "$dir/help.txt" || fail "help record does not show docs/commands/record.md"
"$ns" help nosuch 2> "$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "help of an unknown command exited $rc, not 2"

# --- make install: the binary and the pages, where man finds them
if command -v man >/dev/null && [ -x build/nodescope ]; then
    inst=$dir/inst
    # a make of its own (not the jobserver of a `make test` this runs under)
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install DESTDIR="$inst" PREFIX=/usr > "$dir/make.log" 2>&1 || { cat "$dir/make.log"; fail "make install failed"; }
    [ -x "$inst/usr/bin/nodescope" ] || fail "make install put no binary in \$DESTDIR\$PREFIX/bin"
    for c in $commands; do [ -f "$inst/usr/share/man/man1/nodescope-$c.1" ] || fail "make install put no nodescope-$c.1"; done
    MANPATH=$inst/usr/share/man MANWIDTH=100 man nodescope-record 2>/dev/null | grep -q 'EXIT STATUS' ||
        fail "man nodescope-record finds no page after make install"
    MANPATH=$inst/usr/share/man MANWIDTH=100 MANPAGER=cat "$inst/usr/bin/nodescope" help record 2>/dev/null | grep -q 'NODESCOPE-RECORD(1)' ||
        fail "nodescope help record does not show the installed manual page"
fi
say "ok"
