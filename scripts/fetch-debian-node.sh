#!/usr/bin/env bash
# Fetches the node a distribution ships, V8 in a shared library: Debian 12's nodejs and libnode108
# (18.20.4+dfsg, /usr/bin/node is 14 KB, V8 and node in /usr/lib/x86_64-linux-gnu/libnode.so.108)
# and the node-* packages whose modules it loads from /usr/share/nodejs, with `apt-get download`
# (no root needed, nothing installed: the host's own node stays), unpacked with `dpkg -x` into
# DIR/root (default tests/.cache/debian-node). Run by scripts/setup.sh and tests/e2e/distro_node.sh.
# Exit 0 when DIR/root/usr/bin/node is there, else 1 (the packages could not be fetched).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-tests/.cache/debian-node}
version=18.20.4+dfsg-1~deb12u3
pkgs=(nodejs=$version libnode108=$version node-acorn node-cjs-module-lexer node-undici node-busboy node-xtend)
[ -x "$dir/root/usr/bin/node" ] && [ -e "$dir/root/usr/lib/x86_64-linux-gnu/libnode.so.108" ] && exit 0
command -v apt-get > /dev/null && command -v dpkg > /dev/null || { echo "fetch-debian-node: no apt-get or dpkg" >&2; exit 1; }
mkdir -p "$dir/debs"
if ! (cd "$dir/debs" && apt-get download -q "${pkgs[@]}" > /dev/null 2>&1); then
    # the lists may be stale or lack bookworm-security: the release's own version then
    (cd "$dir/debs" && apt-get download -q nodejs libnode108 "${pkgs[@]:2}" > /dev/null 2>&1) ||
        { echo "fetch-debian-node: apt-get download ${pkgs[*]} failed" >&2; exit 1; }
fi
rm -rf "$dir/root.new"
mkdir -p "$dir/root.new"
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root.new"; done
rm -rf "$dir/root"
mv "$dir/root.new" "$dir/root"
[ -x "$dir/root/usr/bin/node" ] && [ -e "$dir/root/usr/lib/x86_64-linux-gnu/libnode.so.108" ]
