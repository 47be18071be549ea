#!/bin/bash
# The Debian package (scripts/deb-build.sh, `make deb`; docs/install.md), built here from the static
# binary and the manual pages (build/man), then really installed on this machine and removed:
#  - apt-get install ./nodescope_VERSION_ARCH.deb: `man -w nodescope-record` finds its page, the
#    system group nodescope exists, /usr/bin/nodescope is root:nodescope mode 0750 with
#    cap_perfmon,cap_sys_ptrace+ep (getcap), and runs;
#  - apt-get remove: every file `dpkg -L` listed is gone (directories shared with other packages
#    aside), and the group stays; apt-get purge: the group and dpkg's owner override are gone.
# Skips unless root, without apt-get, dpkg-deb, setcap or the man pages, and when this machine has a
# nodescope package, a /usr/bin/nodescope or a group nodescope already (not this test's to remove).
# Two runs on one machine (worktrees) take turns: flock on /var/lib/dpkg, which dpkg does not flock.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
STATIC=$TEST_ROOT/build/static/nodescope
[ "$(id -u)" = 0 ] || skip "needs root (apt-get install)"
for c in apt-get dpkg-deb dpkg-statoverride setcap getcap getent flock man; do command -v $c > /dev/null || skip "no $c"; done
[ -x "$STATIC" ] || skip "no $STATIC (make static)"
ls "$TEST_ROOT"/build/man/nodescope-record.1 > /dev/null 2>&1 || skip "no manual pages (make man)"
test_dir install_deb
exec 9< /var/lib/dpkg
flock -w 300 9 || skip "another run holds the nodescope package for 300 s"
dpkg-query -W nodescope > /dev/null 2>&1 && skip "a nodescope package is installed here"
[ -e /usr/bin/nodescope ] && skip "/usr/bin/nodescope exists"
getent group nodescope > /dev/null && skip "a group nodescope exists"
installed=
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 -y -q "$@"; }
trap '[ -n "$installed" ] && apt_get purge nodescope > /dev/null 2>&1; rm -rf "$dir"' EXIT

"$TEST_ROOT/scripts/deb-build.sh" "$STATIC" "$TEST_ROOT/build/man" "$dir" > "$dir/build.out" || fail "deb-build.sh exited $?"
deb=$(ls "$dir"/nodescope_*_*.deb)
say "$(basename "$deb"): $(stat -c %s "$deb") bytes"
dpkg-deb -f "$deb" Depends | grep -q libcap2-bin || fail "the package does not depend on libcap2-bin (setcap)"

installed=1
apt_get install "$deb" > "$dir/install.out" 2>&1 || { cat "$dir/install.out"; fail "apt-get install exited $?"; }
dpkg-query -W -f '${Status}' nodescope | grep -q "install ok installed" || fail "not installed: $(dpkg-query -W -f '${Status}' nodescope)"
man -w nodescope-record > "$dir/man.txt" 2>&1 && grep -q '^/usr/share/man/man1/nodescope-record\.1' "$dir/man.txt" ||
    fail "man -w nodescope-record: $(cat "$dir/man.txt")"
getent group nodescope > /dev/null || fail "no group nodescope"
[ "$(stat -c '%U %G %a' /usr/bin/nodescope)" = "root nodescope 750" ] || fail "/usr/bin/nodescope is $(stat -c '%U %G %a' /usr/bin/nodescope)"
getcap /usr/bin/nodescope | grep -Eq 'cap_sys_ptrace,cap_perfmon=ep|cap_perfmon,cap_sys_ptrace=ep' ||
    fail "capabilities: $(getcap /usr/bin/nodescope)"
/usr/bin/nodescope --version | grep -q '^build: static' || fail "/usr/bin/nodescope --version"
say "installed: $(stat -c '%U:%G %a' /usr/bin/nodescope), $(getcap /usr/bin/nodescope | cut -d' ' -f2), $(grep -c . < <(dpkg -L nodescope)) paths"

dpkg -L nodescope > "$dir/files.txt"
apt_get remove nodescope > "$dir/remove.out" 2>&1 || { cat "$dir/remove.out"; fail "apt-get remove exited $?"; }
left=
while read -r f; do
    [ -e "$f" ] || continue
    # a directory other packages also use (/usr/bin, /usr/share/man/man1) stays; ours go
    [ -d "$f" ] && [ "${f#/usr/share/doc/nodescope}" = "$f" ] && continue
    left="$left $f"
done < "$dir/files.txt"
[ -z "$left" ] || fail "left after apt-get remove:$left"
getent group nodescope > /dev/null || fail "apt-get remove removed the group (only purge should)"
apt_get purge nodescope > "$dir/purge.out" 2>&1 || { cat "$dir/purge.out"; fail "apt-get purge exited $?"; }
installed=
dpkg-query -W nodescope > /dev/null 2>&1 && fail "still known to dpkg after purge"
getent group nodescope > /dev/null && fail "the group nodescope is left after purge"
dpkg-statoverride --list /usr/bin/nodescope > /dev/null && fail "dpkg's owner override is left after purge"
say "removed: $(grep -c . "$dir/files.txt") paths gone; purged: group and override gone"
echo ok
