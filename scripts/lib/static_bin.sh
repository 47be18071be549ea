# Sourced by the packaging scripts (deb-build.sh, npm-pack.sh): what a static nodescope binary is.
#   static_bin_arch BIN    prints x86-64 or aarch64 (e_machine, little-endian at byte 18 of the ELF
#                          header), or dies (die(), the caller's) when BIN is not an executable ELF
#                          file of either, or is not static (it has a program interpreter)
#   nodescope_version      prints NODESCOPE_VERSION of src/cli/cli.h (what --version says), or dies
static_bin_arch() {
    local bin=$1
    [ -x "$bin" ] || die "$bin: no executable (make static)"
    [ "$(head -c 4 "$bin" | od -An -c | tr -d ' ')" = '177ELF' ] || die "$bin: not an ELF file"
    if LC_ALL=C readelf -l "$bin" 2> /dev/null | grep -q INTERP; then die "$bin: not static (make static)"; fi
    case $(od -An -tx1 -j18 -N2 "$bin" | tr -d ' \n') in
    3e00) echo x86-64 ;;
    b700) echo aarch64 ;;
    *) die "$bin: neither x86-64 nor aarch64" ;;
    esac
}

nodescope_version() {
    local v
    v=$(sed -n 's/^#define NODESCOPE_VERSION "\(.*\)"$/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../../src/cli/cli.h")
    [ -n "$v" ] || die "no NODESCOPE_VERSION in src/cli/cli.h"
    echo "$v"
}
