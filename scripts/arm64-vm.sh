#!/bin/bash
# scripts/arm64-vm.sh: an emulated arm64 machine for nodescope's live paths (issue 45), and a
# first run of them there. `make test-arm64` runs it; root, on Debian 12 x86-64.
#
# Built once under build/arm64-vm/ (each piece rebuilt only when missing; rm -rf build/arm64-vm
# to start again):
#   root/         mmdebstrap --arch=arm64 --variant=minbase bookworm with kmod, procps and
#                 libstdc++6 (the official node needs it). Needs qemu-user-static and
#                 binfmt_misc mounted (mount -t binfmt_misc none /proc/sys/fs/binfmt_misc).
#   vmlinuz       Debian's linux-image-arm64 (6.1), `apt-get download` + `dpkg -x`, its
#                 modules copied into root/usr/lib/modules: virtio_pci, virtio_blk, ext4 and 9p are modules in
#                 this kernel, none built in).
#   initrd.img    made on the host: busybox-static:arm64 and the nine modules that reach the
#                 root, then switch_root to the root's /sbin/vm-init (it loads the 9p modules).
#   root.img      ext4 made from root/ with `mkfs.ext4 -d` (no loop device), 2 GiB sparse. Booted
#                 with snapshot=on: it is never changed.
# Each run: share/ (9p, mount tag `host`) gets the static aarch64 nodescope, the official arm64
# node (NODE_MAJOR, default 24, from tests/.cache/node-arm64) and run.sh; /sbin/vm-init mounts
# it, runs run.sh (its output on the console too), writes out.log and status there and powers
# off (sysrq o). qemu-system-aarch64 -M virt -cpu max (TCG: no arm64 hardware here), 2 vCPUs,
# 2 GiB. The checks print `N passed, N failed`; the exit status is run.sh's.
#
# Times here, 2026-12-07 (2 cores shared with two CI runs, load 9-13, all under nice -n 19);
# build/arm64-vm/times.txt keeps each run's:
#   mmdebstrap (minbase + kmod, procps, libstdc++6)   165 s
#   kernel .deb download + dpkg -x + initrd            8-9 s
#   mkfs.ext4 -d (559 MB root, 600 MB used of 2 GiB)    1-2 s
#   qemu-system-aarch64, boot to poweroff             63-68 s: the kernel reaches the root in
#     14 s, copying node and nodescope in over 9p 14 s, node -e 3.1-3.4 s, the fixture up in
#     1.7-2.3 s + 5 s to warm, each live check 0.5-5 s (they fail fast: docs/arm64.md).
#   Installing linux-image-arm64 inside the root instead (first try) ran mkinitramfs under
#   qemu-user for 16 min, then again from initramfs-tools' trigger: abandoned at 21 min.
#
# Environment: NODE_MAJOR (24), NODESCOPE (build/aarch64/build/static/nodescope, made by
# `make CROSS=aarch64-linux-gnu- CROSS_GOALS=static` when missing), VM_TIMEOUT (seconds, 1800),
# SUITE (bookworm).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
VM=$TOP/build/arm64-vm
NODE_MAJOR=${NODE_MAJOR:-24}
NODESCOPE=${NODESCOPE:-$TOP/build/aarch64/build/static/nodescope}
NODE_BIN=${NODE_BIN:-$TOP/tests/.cache/node-arm64/$NODE_MAJOR/bin/node}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
SUITE=${SUITE:-bookworm}
NICE="nice -n 19"

mkdir -p "$VM"
TIMES=$VM/times.txt
now() { date +%s; }
note() { echo "arm64-vm: $*" >&2; }
record_time() { echo "$(date -u +%FT%TZ) $1 $2 s" >> "$TIMES"; note "$1: $2 s"; }

# --- the host's tools -----------------------------------------------------------------------
need=()
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
[ -e /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] || [ -x /usr/bin/qemu-aarch64-static ] || need+=(qemu-user-static)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
if [ ${#need[@]} -gt 0 ]; then
    note "installing ${need[*]}"
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# --- the static aarch64 nodescope and the arm64 node ----------------------------------------
if [ ! -x "$NODESCOPE" ]; then
    note "building $NODESCOPE"
    (cd "$TOP" && $NICE make CROSS=aarch64-linux-gnu- CROSS_GOALS=static -j2 >/dev/null)
fi
if [ ! -x "$NODE_BIN" ]; then
    [ -x "$TOP/scripts/fetch-arm64-node.sh" ] && "$TOP/scripts/fetch-arm64-node.sh" >&2 || true
fi
[ -x "$NODE_BIN" ] || { note "no arm64 node at $NODE_BIN (scripts/fetch-arm64-node.sh)"; exit 1; }

# --- the arm64 root ---------------------------------------------------------------------------
binfmt_ready() {
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc none /proc/sys/fs/binfmt_misc
    if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
        update-binfmts --enable qemu-aarch64 2>/dev/null ||
            systemctl restart systemd-binfmt 2>/dev/null || true
    fi
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || { note "qemu-aarch64 is not registered in binfmt_misc"; exit 1; }
}

if [ ! -e "$VM/root.done" ]; then
    binfmt_ready
    rm -rf "$VM/root" "$VM/root.img" "$VM/vmlinuz" "$VM/initrd.img"
    t0=$(now)
    # The init the image boots (the initrd's switch_root runs it): it mounts the share and runs
    # run.sh from it, so changing the checks never rebuilds the image.
    $NICE mmdebstrap --arch=arm64 --variant=minbase --include=kmod,procps,libstdc++6 \
        --customize-hook='echo nodescope-arm64 > "$1/etc/hostname"' \
        --customize-hook='mkdir -p "$1/mnt/host"' \
        --customize-hook='cat > "$1/sbin/vm-init" <<"EOF"
#!/bin/sh
# nodescope arm64 VM init (scripts/arm64-vm.sh): run /mnt/host/run.sh, then power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc; mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null; mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts; mount -t tmpfs tmpfs /dev/shm; mount -t tmpfs tmpfs /tmp
mount -o remount,rw / 2>/dev/null
hostname nodescope-arm64
K=/lib/modules/$(uname -r)/kernel
for m in fs/netfs/netfs fs/fscache/fscache net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p; do
    insmod $K/$m.ko 2>/dev/null
done
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 host /mnt/host; then
    cd /mnt/host
    echo "vm-init: running run.sh" > /dev/console
    { sh ./run.sh; echo $? > /mnt/host/status; } 2>&1 | tee /mnt/host/out.log > /dev/console
    sync; cd /; umount /mnt/host
else
    echo "vm-init: cannot mount the 9p share" > /dev/console
fi
echo "vm-init: powering off" > /dev/console
echo o > /proc/sysrq-trigger
sleep 30
EOF
chmod 755 "$1/sbin/vm-init"' \
        --customize-hook='rm -rf "$1/var/cache/apt/archives/"*.deb "$1/var/lib/apt/lists/"*_Packages' \
        "$SUITE" "$VM/root" >&2
    record_time mmdebstrap $(( $(now) - t0 ))
    touch "$VM/root.done"
fi

# The kernel: Debian's linux-image-arm64, unpacked on the host (dpkg -x) into the root, which so
# gets its modules. Installing it inside instead runs mkinitramfs under qemu-user twice (the
# package, then initramfs-tools' trigger): 16 min each here, when the root alone takes 5.
# virtio_blk, virtio_pci, ext4 and 9p are modules in this kernel, not built in.
if [ ! -e "$VM/vmlinuz" ] || [ ! -e "$VM/initrd.img" ]; then
    t0=$(now)
    dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64; apt-get update -qq; }
    DL=$VM/debs; rm -rf "$DL"; mkdir -p "$DL"
    KPKG=$(apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    [ -n "$KPKG" ] || { note "apt-cache knows no linux-image-arm64:arm64 (apt-get update?)"; exit 1; }
    (cd "$DL" && apt-get download -q "$KPKG" busybox-static:arm64 2>&1 | grep -v unsandboxed >&2 || true)
    # Not dpkg -x into the root: it would make the root's /lib (merged /usr: a link to usr/lib)
    # a directory, and no program there would find its dynamic loader.
    dpkg -x "$DL"/linux-image-*_arm64.deb "$DL/k"
    KVER=$(ls "$DL/k/lib/modules" | sort -V | tail -1)
    mkdir -p "$VM/root/usr/lib/modules"; rm -rf "$VM/root/usr/lib/modules/$KVER"
    cp -a "$DL/k/lib/modules/$KVER" "$VM/root/usr/lib/modules/"
    cp "$DL/k/boot/vmlinuz-$KVER" "$VM/vmlinuz"
    # The initrd: busybox-static:arm64 and the modules that reach the root (virtio PCI, the
    # disk, ext4 and its crc32c), then switch_root to /sbin/vm-init.
    command -v cpio >/dev/null || apt-get install -y -qq cpio >/dev/null
    IR=$VM/initrd; rm -rf "$IR"; mkdir -p "$IR/bin" "$IR/lib/modules" "$IR/newroot" "$IR/proc" "$IR/dev"
    dpkg -x "$DL"/busybox-static_*_arm64.deb "$DL/bb"; cp "$DL/bb/bin/busybox" "$IR/bin/busybox"
    mods=
    for m in drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci_modern_dev \
             drivers/virtio/virtio_pci drivers/block/virtio_blk crypto/crc32c_generic lib/crc16 \
             fs/mbcache fs/jbd2/jbd2 fs/ext4/ext4; do
        cp "$VM/root/lib/modules/$KVER/kernel/$m.ko" "$IR/lib/modules/"; mods="$mods ${m##*/}.ko"
    done
    cat > "$IR/init" <<EOF
#!/bin/busybox sh
B=/bin/busybox
\$B mount -t proc proc /proc; \$B mount -t devtmpfs dev /dev
for m in $mods; do \$B insmod /lib/modules/\$m || echo "initrd: insmod \$m failed"; done
i=0; while [ ! -b /dev/vda ] && [ \$i -lt 300 ]; do \$B sleep 0.1; i=\$((i+1)); done
\$B mount -t ext4 -o rw /dev/vda /newroot || { echo "initrd: cannot mount /dev/vda"; \$B poweroff -f; }
\$B umount /proc; \$B umount /dev
exec \$B switch_root /newroot /sbin/vm-init
EOF
    chmod 755 "$IR/init"
    (cd "$IR" && find . | cpio -o -H newc --quiet | gzip -1 > "$VM/initrd.img")
    rm -f "$VM/root.img"
    record_time kernel+initrd $(( $(now) - t0 ))
fi

if [ ! -e "$VM/root.img" ]; then
    t0=$(now)
    rm -f "$VM/root.img.tmp"
    $NICE mkfs.ext4 -q -L root -d "$VM/root" "$VM/root.img.tmp" 2G
    mv "$VM/root.img.tmp" "$VM/root.img"
    record_time mkfs.ext4 $(( $(now) - t0 ))
fi

# --- the share: what runs inside --------------------------------------------------------------
SHARE=$VM/share
rm -rf "$SHARE"; mkdir -p "$SHARE"
cp "$NODESCOPE" "$SHARE/nodescope"
cp "$NODE_BIN" "$SHARE/node"
cat > "$SHARE/spin.js" <<'EOF'
// A busy program for the live checks: most of its time in spinWork, called from spinHere.
function spinWork(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * 1.0001; return s; }
function spinHere() { let t = 0; for (;;) { t += spinWork(20000); if (t < 0) console.log(t); } }
require('fs').writeFileSync(process.argv[2], String(process.pid));
spinHere();
EOF
cat > "$SHARE/run.sh" <<'EOF'
#!/bin/sh
# Inside the arm64 VM (scripts/arm64-vm.sh): the first live checks of nodescope on aarch64.
H=/mnt/host
W=/root/t; rm -rf $W; mkdir -p $W; cd $W
ms() { echo $(( $(date +%s%N) / 1000000 )); }
t=$(ms); cp $H/nodescope $H/node $H/spin.js $W/; chmod 755 nodescope node
echo "copy in: $(( $(ms) - t )) ms"
echo "uname: $(uname -srm)"
echo "cpu: $(grep -m1 -i features /proc/cpuinfo)"
echo "perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid) ptrace_scope: $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)"
# nodescope's own crashes leave cores (read on the host: gdb-multiarch NODESCOPE results/core.*)
ulimit -c unlimited; echo "$W/core.%e.%p" > /proc/sys/kernel/core_pattern
pass=0; fail=0
ok()  { pass=$((pass+1)); echo "PASS $1 ($2 ms)"; }
bad() { fail=$((fail+1)); echo "FAIL $1 ($2 ms)"; }
show() { echo "  --- $1"; sed 's/^/  | /' "$1" | head -${2:-40}; }

t=$(ms); ./node -e 'console.log(process.arch)' > arch.txt 2>&1; rc=$?; d=$(( $(ms) - t )); show arch.txt
if [ $rc = 0 ] && [ "$(cat arch.txt)" = arm64 ]; then ok "node -e process.arch" $d; else bad "node -e process.arch" $d; fi

t=$(ms); ./nodescope --version > version.txt 2>&1; rc=$?; d=$(( $(ms) - t )); show version.txt
if [ $rc = 0 ]; then ok "nodescope --version" $d; else bad "nodescope --version" $d; fi

# The fixture, started again when a check left it dead (each check on its own).
NPID=
fixture() {
    if [ -n "$NPID" ] && kill -0 $NPID 2>/dev/null; then echo "  fixture pid $NPID alive"; return; fi
    [ -n "$NPID" ] && { wait $NPID 2>/dev/null; echo "  fixture pid $NPID died (wait status $?); starting another"; }
    rm -f spin.pid; ./node spin.js $W/spin.pid & NPID=$!
    t=$(ms); i=0
    while [ ! -s spin.pid ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
    echo "  fixture started in $(( $(ms) - t )) ms (pid $NPID, pidof node: $(pidof node))"
    sleep 5   # let V8 tier it up
}
fixture

t=$(ms); timeout 300 ./nodescope core --pid $NPID stack > a.out 2> a.err; rc=$?; d=$(( $(ms) - t ))
echo "(a) core --pid stack: exit $rc"; show a.out; show a.err
if [ $rc = 0 ] && grep -q spinHere a.out; then ok "(a) core --pid PID stack names spinHere" $d; else bad "(a) core --pid PID stack names spinHere" $d; fi

fixture
t=$(ms); timeout 300 ./nodescope core --pid $NPID --stop stack > a2.out 2> a2.err; rc=$?; d=$(( $(ms) - t ))
echo "(a') core --pid --stop stack: exit $rc"; show a2.out; show a2.err
if [ $rc = 0 ] && grep -q spinHere a2.out; then ok "(a') core --pid PID --stop stack names spinHere" $d; else bad "(a') core --pid PID --stop stack names spinHere" $d; fi

fixture
t=$(ms); timeout 300 ./nodescope record -p $NPID -d 3 -o out.folded > b.out 2> b.err; rc=$?; d=$(( $(ms) - t ))
echo "(b) record -p -d 3: exit $rc, $(cat out.folded 2>/dev/null | wc -l) stacks"; show b.out; show b.err
[ -s out.folded ] && { echo "  --- out.folded (heaviest)"; awk '{print $NF"\t"$0}' out.folded | sort -nr | cut -f2 | head -8 | cut -c1-300 | sed 's/^/  | /'; }
if [ $rc = 0 ] && grep -q spinHere out.folded 2>/dev/null; then ok "(b) record -p PID -d 3 names spinHere" $d; else bad "(b) record -p PID -d 3 names spinHere" $d; fi

fixture
t=$(ms); timeout 300 ./nodescope gcore $NPID -o $W/spin.core > c1.out 2> c1.err; rc=$?; d=$(( $(ms) - t ))
echo "(c) gcore: exit $rc, core $(stat -c %s spin.core 2>/dev/null) bytes"; show c1.out; show c1.err
if [ $rc = 0 ] && [ -s spin.core ]; then ok "(c) gcore PID" $d; else bad "(c) gcore PID" $d; fi
t=$(ms); timeout 300 ./nodescope core $W/spin.core stack > c2.out 2> c2.err; rc=$?; d=$(( $(ms) - t ))
echo "(c) core CORE stack: exit $rc"; show c2.out; show c2.err
if [ $rc = 0 ] && grep -q spinHere c2.out; then ok "(c) core CORE stack names spinHere" $d; else bad "(c) core CORE stack names spinHere" $d; fi

fixture
kill $NPID 2>/dev/null; wait $NPID 2>/dev/null
echo "  --- kernel messages (segfaults, traps)"; dmesg | grep -iE 'segfault|unhandled|trap|killed|nodescope|node\[' | tail -12 | sed 's/^/  | /'
mkdir -p $H/results; cp -f *.out *.err out.folded core.nodescope.* $H/results/ 2>/dev/null
echo "$pass passed, $fail failed"
[ $fail = 0 ]
EOF

# --- boot ---------------------------------------------------------------------------------------
rm -f "$SHARE/status" "$SHARE/out.log"
note "booting (console: $VM/console.log)"
t0=$(now)
set +e
timeout "$VM_TIMEOUT" $NICE qemu-system-aarch64 -M virt -cpu max -m 2048 -smp 2 -nographic \
    -no-reboot -kernel "$VM/vmlinuz" -initrd "$VM/initrd.img" \
    -append 'console=ttyAMA0 panic=-1 quiet' \
    -drive file="$VM/root.img",format=raw,if=virtio,snapshot=on \
    -virtfs local,path="$SHARE",mount_tag=host,security_model=none \
    -nic none < /dev/null > "$VM/console.log" 2>&1
qrc=$?
set -e
record_time "boot+run(qemu exit $qrc)" $(( $(now) - t0 ))
if [ -f "$SHARE/out.log" ]; then cat "$SHARE/out.log"; else tail -40 "$VM/console.log"; fi
if [ ! -f "$SHARE/status" ]; then
    note "the VM wrote no status (qemu exit $qrc): see $VM/console.log"
    grep -q ' passed, ' "$SHARE/out.log" 2>/dev/null || echo "0 passed, 1 failed"
    exit 1
fi
exit "$(cat "$SHARE/status")"
