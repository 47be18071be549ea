# Sourced by the tests of cores written by qemu-user (core_qemu.sh; the arm64 cores of issue 44).
#   qemu_core W ARCH NODE ARGS...   runs "NODE ARGS..." (absolute paths: it runs in W) under
#                                   qemu-ARCH (x86_64, aarch64) in the directory W, where qemu
#                                   writes the guest's core at the fatal
#                                   signal; sets $qcore to it ("" when none was written); the
#                                   program's stdout and stderr in W/out.txt, W/err.txt. Returns 1
#                                   when there is no qemu-ARCH.
# aarch64 runs with -L /usr/aarch64-linux-gnu (libc6-arm64-cross) and the guest's LD_LIBRARY_PATH
# /lib: without it the guest's ld.so (the cross package's, 2.36-8cross1) finds libc in
# /lib/aarch64-linux-gnu, which qemu takes from the host when the prefix lacks it (libc6:arm64,
# 2.36-9+deb12u14, there once any :arm64 -dev package is), and node spins forever in the mixed
# glibc at its first JavaScript. Read such a core with --root /usr/aarch64-linux-gnu --node NODE.
# After writing its core qemu 7.2 re-raises the signal, and the kernel would dump qemu itself as
# W/core (780 MB, with core_pattern "core"): a directory named core stops that.
qemu_core() {
    local w=$1 arch=$2 q
    shift 2
    qcore=
    q=$(command -v "qemu-$arch") || return 1
    local opts=()
    [ "$arch" = aarch64 ] && opts=(-L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/lib)
    mkdir -p "$w/core"
    (cd "$w" && ulimit -c unlimited && timeout 300 "$q" "${opts[@]}" "$@" > "$w/out.txt" 2> "$w/err.txt") 2> /dev/null
    qcore=$(ls "$w"/qemu_*.core 2> /dev/null | head -1)
    return 0
}
