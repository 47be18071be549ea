#!/usr/bin/env bash
# The npm packages, from static binaries (`make npm`; docs/install.md):
#   scripts/npm-pack.sh OUTDIR BIN...
# For each BIN (a static nodescope: build/static/nodescope; an arm64 one when there is one) the
# platform package @nodescope/linux-ARCH (ARCH from the binary's ELF header: x64 or arm64) holding
# it as bin/nodescope, with `os` and `cpu` so npm installs it only where it runs, and the command
# pages beside it (share/doc/nodescope/commands: `nodescope help CMD` finds them there); then the
# package nodescope: the launcher (bin/nodescope.js), with exactly those platform packages as
# optionalDependencies, at the same version. Each is packed with `npm pack` into OUTDIR:
# nodescope-VERSION.tgz, nodescope-linux-ARCH-VERSION.tgz. VERSION is nodescope's (src/cli/cli.h:
# NODESCOPE_VERSION, what `nodescope --version` says; a binary that runs here is asked, and must
# agree). Nothing is fetched, and the packages have no install scripts.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/npm-pack.sh OUTDIR BIN..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
tmpl=$root/packaging/npm
out=$1; shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
die() { echo "npm-pack: $*" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

. "$root/scripts/lib/static_bin.sh"
version=$(nodescope_version) || exit 1
platforms=()
for bin in "$@"; do
    machine=$(static_bin_arch "$bin") || exit 1
    case $machine in x86-64) cpu=x64 ;; aarch64) cpu=arm64 ;; esac
    # a binary that runs here must say the version the source does
    if [ "$cpu:$(uname -m)" = x64:x86_64 ] || [ "$cpu:$(uname -m)" = arm64:aarch64 ]; then
        v=$("$bin" --version | sed -n '1s/^nodescope //p')
        [ "$v" = "$version" ] || die "$bin says version '$v', src/cli/cli.h $version: rebuild it"
    fi
    for p in "${platforms[@]}"; do [ "$p" != "linux-$cpu" ] || die "two binaries for linux-$cpu"; done
    platforms+=("linux-$cpu")
    d=$stage/linux-$cpu
    mkdir -p "$d/bin" "$d/share/doc/nodescope/commands"
    install -m 0755 "$bin" "$d/bin/nodescope"
    install -m 0644 "$root"/docs/commands/*.md "$d/share/doc/nodescope/commands/"
    sed "s/@PLATFORM@/linux-$cpu/g" "$tmpl/platform/README.md" > "$d/README.md"
    node -e '
        const fs = require("fs"), [tmpl, outf, platform, cpu, version] = process.argv.slice(1);
        const p = JSON.parse(fs.readFileSync(tmpl, "utf8"));
        Object.assign(p, { name: `@nodescope/${platform}`, version, description: p.description.replace("@PLATFORM@", platform),
                           cpu: [cpu], files: ["bin/nodescope", "share/doc/nodescope/commands", "README.md"] });
        fs.writeFileSync(outf, JSON.stringify(p, null, 2) + "\n");' \
        "$tmpl/platform/package.json" "$d/package.json" "linux-$cpu" "$cpu" "$version"
done

d=$stage/nodescope
mkdir -p "$d/bin"
install -m 0755 "$tmpl/nodescope/bin/nodescope.js" "$d/bin/nodescope.js"
install -m 0644 "$tmpl/nodescope/README.md" "$d/README.md"
node -e '
    const fs = require("fs"), [tmpl, outf, version, ...platforms] = process.argv.slice(1);
    const p = JSON.parse(fs.readFileSync(tmpl, "utf8"));
    p.version = version;
    p.cpu = platforms.map((x) => x.replace("linux-", ""));
    p.optionalDependencies = Object.fromEntries(platforms.map((x) => [`@nodescope/${x}`, version]));
    fs.writeFileSync(outf, JSON.stringify(p, null, 2) + "\n");' \
    "$tmpl/nodescope/package.json" "$d/package.json" "$version" "${platforms[@]}"

for p in "${platforms[@]}" nodescope; do
    (cd "$stage/$p" && npm pack --silent --ignore-scripts --pack-destination "$out" > /dev/null) || die "npm pack of $p failed"
done
for p in nodescope "${platforms[@]/#/nodescope-}"; do
    f=$out/$p-$version.tgz
    [ -s "$f" ] || die "npm pack wrote no $f"
    echo "npm-pack: $f ($(stat -c %s "$f") bytes)"
done
