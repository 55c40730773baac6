#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the QEMU guest started by scripts/vm-run.sh. The guest's root is
# the host's root file system, shared read-only over virtio-9p; this script
# mounts the pseudo file systems and a writable scratch space, runs the
# command that vm-run.sh left in the "smpout" share, reports its exit status
# on the console and reboots (QEMU runs with -no-reboot, so it exits).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts 2>/dev/null
for d in /tmp /run /var/tmp /root /dev/shm; do mount -t tmpfs -o mode=1777 tmpfs "$d"; done
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /tmp/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 smpout /tmp/out
export HOME=/root TMPDIR=/tmp SMPNICE_OUT=/tmp/out TERM=dumb
hostname smpnice-guest 2>/dev/null

echo "SMPNICE-BEGIN $(nproc) CPUs, $(uname -r)"
rc=125
if [ -f /tmp/out/cmd.sh ]; then
	bash /tmp/out/cmd.sh </dev/null
	rc=$?
else
	echo "guest-init: no /tmp/out/cmd.sh in the smpout share"
fi
echo "$rc" >/tmp/out/exit-status
sync
echo "SMPNICE-EXIT: $rc"
# Let the UART drain before the reset.
sleep 0.3
echo b >/proc/sysrq-trigger
sleep 10
