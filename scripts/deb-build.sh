#!/usr/bin/env bash
# The Debian package (`make deb`; docs/install.md):
#   scripts/deb-build.sh BIN MANDIR OUTDIR      -> OUTDIR/nodescope_VERSION_ARCH.deb
# BIN is the static binary (build/static/nodescope: the package then depends on no library and
# installs on any Debian or Ubuntu release of its architecture), MANDIR the manual pages `make man`
# wrote (build/man). The package holds /usr/bin/nodescope, the pages (gzipped, man1) and the
# command pages `nodescope help` reads (/usr/share/doc/nodescope/commands), all root's.
# Its postinst does what `make install-caps` does, the Debian way: the system group nodescope,
# and the binary root:nodescope mode 0750 through dpkg-statoverride (kept by dpkg on upgrades;
# an override the administrator set is left alone), then cap_perfmon,cap_sys_ptrace+ep (setcap,
# libcap2-bin: a dependency; dpkg writes a file without its capabilities, so every configure sets
# them again). Removing it removes every file it installed; purging also removes the override
# and the group. Built with dpkg-deb --root-owner-group: no root needed to build.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: scripts/deb-build.sh BIN MANDIR OUTDIR" >&2; exit 2; }
bin=$1 mandir=$2 out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "deb-build: $*" >&2; exit 1; }
command -v dpkg-deb > /dev/null || die "no dpkg-deb (dpkg)"
. "$root/scripts/lib/static_bin.sh"
machine=$(static_bin_arch "$bin") || exit 1
case $machine in x86-64) arch=amd64 ;; aarch64) arch=arm64 ;; esac
ls "$mandir"/nodescope*.1 > /dev/null 2>&1 || die "$mandir: no manual pages (make man)"
version=$(nodescope_version) || exit 1
[ "$("$bin" --version | sed -n '1s/^nodescope //p')" = "$version" ] || die "$bin is not version $version: rebuild it"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pkg=$stage/nodescope
install -d -m 0755 "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/share/man/man1" "$pkg/usr/share/doc/nodescope/commands"
install -m 0755 "$bin" "$pkg/usr/bin/nodescope"
for page in "$mandir"/nodescope*.1; do
    gzip -9n < "$page" > "$pkg/usr/share/man/man1/$(basename "$page").gz"
done
install -m 0644 "$root"/docs/commands/*.md "$pkg/usr/share/doc/nodescope/commands/"
chmod 0644 "$pkg"/usr/share/man/man1/*.gz

cat > "$pkg/DEBIAN/control" << EOF
Package: nodescope
Version: $version
Architecture: $arch
Maintainer: ${DEB_MAINTAINER:-nodescope developers <nodescope@localhost>}
Installed-Size: $(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
Depends: libcap2-bin, passwd
Section: devel
Priority: optional
Description: profiler and postmortem debugger for Node.js
 Where a JavaScript program spends its time, and what it held when it died:
 flame graphs and .cpuprofile of a running node process without a restart,
 and its JavaScript stack, values and heap from a core file or a live process.
 .
 One static binary. Members of the group nodescope may run it to read every
 process on the machine (cap_perfmon, cap_sys_ptrace); nobody else may.
EOF

cat > "$pkg/DEBIAN/postinst" << 'EOF'
#!/bin/sh
# The binary for the group nodescope, with the capabilities to read every process on the machine.
set -e
if [ "$1" = configure ]; then
    getent group nodescope > /dev/null || groupadd --system nodescope
    if ! dpkg-statoverride --list /usr/bin/nodescope > /dev/null; then
        dpkg-statoverride --update --add root nodescope 0750 /usr/bin/nodescope
    fi
    # after the owner is set (chown clears file capabilities); a file system without them is said
    if ! setcap cap_perfmon,cap_sys_ptrace+ep /usr/bin/nodescope; then
        echo "nodescope: setcap failed: /usr/bin/nodescope runs without capabilities (root can still use it)" >&2
    fi
    echo "nodescope: members of the group nodescope may run /usr/bin/nodescope and read every process here (usermod -aG nodescope USER)"
fi
exit 0
EOF

cat > "$pkg/DEBIAN/postrm" << 'EOF'
#!/bin/sh
# Purge: the owner override and the group postinst made. (Remove: dpkg removes the files.)
set -e
if [ "$1" = purge ]; then
    if dpkg-statoverride --list /usr/bin/nodescope > /dev/null 2>&1; then
        dpkg-statoverride --remove /usr/bin/nodescope || true
    fi
    if getent group nodescope > /dev/null; then groupdel nodescope || true; fi
fi
exit 0
EOF
chmod 0755 "$pkg/DEBIAN/postinst" "$pkg/DEBIAN/postrm"
(cd "$pkg" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$pkg/DEBIAN/md5sums"
chmod 0644 "$pkg/DEBIAN/md5sums" "$pkg/DEBIAN/control"

mkdir -p "$out"
deb=$out/nodescope_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb.tmp" > /dev/null
mv "$deb.tmp" "$deb"
echo "deb-build: $deb ($(stat -c %s "$deb") bytes)"
