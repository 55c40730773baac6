#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot a built kernel in QEMU (TCG; KVM with SMPNICE_ACCEL=kvm), run one
# command in the guest, return its exit status.
#
# Usage: scripts/vm-run.sh [options] [--] COMMAND [ARG...]
#   --kernel FILE      bzImage (default: build/obj/$FLAVOUR/arch/x86/boot/bzImage)
#   --flavour NAME     a flavour of kernel/flavours (default: $FLAVOUR or default)
#   --cpus N           vCPUs (default 2)
#   --sockets S --cores C --threads T   CPU topology (product must equal --cpus)
#   --numa N           N NUMA nodes, CPUs and memory split evenly
#   --mem MB           guest memory (default: the flavour's, kernel/flavours)
#   --append ARGS      extra kernel command line
#   --timeout SEC      kill the guest after SEC seconds (default 600)
#   --name NAME        names the run (default: vm)
#   --log FILE         the console log (default: $SCENARIO_DIR/console-NAME.log
#                      in a scenario's directory, else build/logs/vm/NAME.log)
#   --out DIR          the guest's /tmp/out, writable (default: $SCENARIO_DIR/out-NAME
#                      in a scenario's directory, else build/vm-out/NAME)
#   --verbose          stream the console while the guest runs
#   --allow-splat      do not fail on kernel warnings (still reported)
#
# SMPNICE_ICOUNT=N (0-10): instruction-counted TCG, -icount shift=N,sleep=off.
# One host thread runs the vCPUs in turn, the guest's clock advances 2^N ns
# per instruction executed and jumps over time in which every vCPU idles.
# A time measured in the guest then counts the instructions the guest
# executes, and differs little from run to run whatever else the host
# does; but what runs in parallel on several vCPUs is counted one after
# the other, so such a time is the work a schedule costs, not how well it
# uses the CPUs in parallel (time with idle CPUs beside busy ones is not
# counted). Nor is it for work that waits for the host's I/O (a build
# reading its sources over 9p): the clock jumps over such a wait to the
# next timer the guest has set, so the time depends on the guest's timers.
#
# The guest sees the host's root file system read-only, so every host tool
# (perf, stress-ng, the project's tools and kselftests) runs in it; the
# command runs in the project's directory with /tmp/out writable.
#
# Exit status: the command's own, or 124 on timeout, 125 if the guest did not
# report one (boot failure, panic), 126 if the console shows a kernel splat
# (WARNING, BUG, Oops, lockdep, RCU stall, hung task, soft lockup, UBSAN, KASAN).
# A boot in which a virtio device got no interrupt ("PCI INT A: no GSI", an
# ACPI _PRT timeout of an emulated machine on a loaded host; the guest then
# never starts its command) is restarted, at most twice, and says so; so is
# one in which the machine went away silently before the command started (a
# reset under TCG seen once in early PCI probing: no panic, no splat, QEMU
# exits). A kernel that fails that way every time still fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { sed -n '3,35p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

flavour=${FLAVOUR:-default} kernel="" cpus=2 sockets="" cores="" threads="" numa=0
mem="" append="" timeout=600 name=vm out="" log="" verbose=0 allow_splat=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) need_value "$@"; kernel=$2; shift 2 ;;
	--flavour) need_value "$@"; flavour=$2; shift 2 ;;
	--cpus) need_value "$@"; posint "$1" "$2"; cpus=$2; shift 2 ;;
	--sockets) need_value "$@"; posint "$1" "$2"; sockets=$2; shift 2 ;;
	--cores) need_value "$@"; posint "$1" "$2"; cores=$2; shift 2 ;;
	--threads) need_value "$@"; posint "$1" "$2"; threads=$2; shift 2 ;;
	--numa) need_value "$@"; posint "$1" "$2"; numa=$2; shift 2 ;;
	--mem) need_value "$@"; posint "$1" "$2"; mem=$2; shift 2 ;;
	--append) need_value "$@"; append=$2; shift 2 ;;
	--timeout) need_value "$@"; posint "$1" "$2"; timeout=$2; shift 2 ;;
	--name) need_value "$@"; [[ $2 =~ ^[A-Za-z0-9+._-]+$ ]] || die "vm-run.sh: bad --name '$2'"; name=$2; shift 2 ;;
	--out) need_value "$@"; out=$2; shift 2 ;;
	--log) need_value "$@"; log=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--allow-splat) allow_splat=1; shift ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	-*) die "vm-run.sh: unknown option '$1' (try --help)" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || die "vm-run.sh: no command to run in the guest (try --help)"
check_flavour "$flavour"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing: run 'make deps'"
[ -n "$mem" ] || mem=$(flavour_field "$flavour" 3)

smp="cpus=$cpus"
# NUMA nodes are sockets unless told otherwise: a last-level cache that spans
# two nodes is an insane topology the kernel warns about.
if [ "$numa" -gt 0 ] && [ -z "$sockets$cores$threads" ] && [ $((cpus % numa)) -eq 0 ]; then
	sockets=$numa cores=$((cpus / numa))
fi
if [ -n "$sockets$cores$threads" ]; then
	s=${sockets:-1} c=${cores:-1} t=${threads:-1}
	[ $((s * c * t)) -eq "$cpus" ] || die "vm-run.sh: sockets x cores x threads = $((s * c * t)), not --cpus $cpus"
	smp="$smp,sockets=$s,cores=$c,threads=$t"
fi
numa_args=()
if [ "$numa" -gt 0 ]; then
	[ $((cpus % numa)) -eq 0 ] || die "vm-run.sh: --cpus $cpus does not split over --numa $numa nodes"
	[ $((mem % numa)) -eq 0 ] || die "vm-run.sh: --mem $mem does not split over --numa $numa nodes"
	per=$((cpus / numa))
	for ((n = 0; n < numa; n++)); do
		numa_args+=(-object "memory-backend-ram,id=m$n,size=$((mem / numa))M"
			    -numa "node,nodeid=$n,memdev=m$n,cpus=$((n * per))-$((n * per + per - 1))")
	done
fi

# TCG (software emulation) always, unless SMPNICE_ACCEL=kvm asks for KVM:
# every share tolerance of the tests was measured under TCG, and a /dev/kvm
# that opens may still abort at the first vCPU reset (a nested KVM that
# refuses MSR 0x10a: "failed to set MSR 0x10a", seen in CI), which no cheap
# probe catches. A KVM run that fails that way says so.
kernel=${kernel:-$(kernel_image "$flavour")}
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel' (FLAVOUR=$flavour) first"
accel=${SMPNICE_ACCEL:-tcg}
accel_args=(-accel "$accel")
if [ -n "${SMPNICE_ICOUNT:-}" ]; then
	[[ $SMPNICE_ICOUNT =~ ^([0-9]|10)$ ]] || die "SMPNICE_ICOUNT is a shift of 0 to 10, not '$SMPNICE_ICOUNT'"
	[ "$accel" = tcg ] || die "SMPNICE_ICOUNT needs TCG, not SMPNICE_ACCEL=$accel"
	accel_args=(-accel "tcg,thread=single" -icount "shift=$SMPNICE_ICOUNT,sleep=off")
fi
case $accel in
tcg) ;;
kvm) [ -w /dev/kvm ] || die "SMPNICE_ACCEL=kvm, but /dev/kvm is not writable" ;;
*) die "SMPNICE_ACCEL must be tcg or kvm, not '$accel'" ;;
esac

if [ -n "${SCENARIO_DIR:-}" ]; then
	log=${log:-$SCENARIO_DIR/console-$name.log}
	out=${out:-$SCENARIO_DIR/out-$name}
fi
log=${log:-$LOGS/vm/$name.log}
out=${out:-$BUILD/vm-out/$name}
mkdir -p "$(dirname "$log")"
rm -rf "$out"; mkdir -p "$out"
out=$(cd "$out" && pwd)
{
	echo "#!/bin/bash"
	echo "cd $(printf '%q' "$TOP") || exit 125"
	echo "export PATH=$(printf '%q' "$TOP/tools"):\$PATH SMPNICE_TOP=$(printf '%q' "$TOP")"
	printf '%q ' "$@"; echo
} >"$out/cmd.sh"

cmdline="console=ttyS0 root=/dev/root rootfstype=9p ro"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose"
cmdline+=" init=$TOP/scripts/guest-init.sh panic=-1 oops=panic_on_warn=0 printk.devkmsg=on"
# no_timer_check: an emulated CPU on a loaded host can miss the IO-APIC
# timer check at boot and panic ("IO-APIC + timer doesn't work!").
cmdline+=" tsc=unstable no_timer_check sched_verbose $append"

qemu=(qemu-system-x86_64 "${accel_args[@]}" -cpu max -smp "$smp" -m "$mem" "${numa_args[@]}"
      -kernel "$kernel" -append "$cmdline" -no-reboot -display none -monitor none
      -nodefaults -serial "file:$log"
      -fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap"
      -device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
      -fsdev "local,id=out,path=$out,security_model=none"
      -device virtio-9p-pci,fsdev=out,mount_tag=smpout)

msg "booting ${kernel#"$TOP"/} ($accel${SMPNICE_ICOUNT:+ icount}, $smp$([ "$numa" -gt 0 ] && echo ", $numa NUMA nodes"), ${mem}M): $*"
start=$SECONDS
timed_out=0
for boot in 1 2 3; do
	: >"$log"
	rm -f "$out/exit-status"
	"${qemu[@]}" </dev/null >"$out/qemu.stderr" 2>&1 &
	qpid=$!
	tailpid=""
	[ "$verbose" -eq 1 ] && { tail -n +1 -f "$log" >&2 & tailpid=$!; }
	lost=0
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $((SECONDS - start)) -ge "$timeout" ]; then
			timed_out=1
			kill "$qpid" 2>/dev/null || true
			sleep 1; kill -9 "$qpid" 2>/dev/null || true
			break
		fi
		if [ "$boot" -lt 3 ] && ! grep -q '^SMPNICE-BEGIN' "$log" &&
		   grep -q 'PCI INT A: no GSI' "$log"; then
			lost=1
			kill "$qpid" 2>/dev/null || true
			break
		fi
		sleep 1
	done
	wait "$qpid" 2>/dev/null || true
	[ -n "$tailpid" ] && kill "$tailpid" 2>/dev/null
	if [ "$lost" -eq 0 ] && [ "$timed_out" -eq 0 ] && [ "$boot" -lt 3 ] &&
	   ! grep -q '^SMPNICE-BEGIN' "$log" && ! grep -q 'Kernel panic' "$log" &&
	   [ -z "$("$TOP/scripts/check-console.sh" "$log" || true)" ]; then
		lost=2
	fi
	[ "$lost" -ne 0 ] || break
	cp -f "$log" "$log.boot$boot"
	if [ "$lost" -eq 1 ]; then
		msg "boot $boot: a virtio device got no interrupt (PCI INT A: no GSI): booting again (console kept as ${log#"$TOP"/}.boot$boot)"
	else
		msg "boot $boot: the guest went away before its command started, without a panic or splat: booting again (console kept as ${log#"$TOP"/}.boot$boot)"
	fi
done
elapsed=$((SECONDS - start))

# The command's output, unless it was streamed already.
if [ "$verbose" -eq 0 ]; then
	sed -n '/^SMPNICE-BEGIN/,/^SMPNICE-EXIT/p' "$log" | sed '1d;/^SMPNICE-EXIT/d' | grep -v '^\[ *[0-9]*\.[0-9]*\] ' || true
fi

# The guest writes its status to the out share and syncs it; the console
# line may be lost in the UART's buffer when the guest resets.
rc=$(cat "$out/exit-status" 2>/dev/null || sed -n 's/^SMPNICE-EXIT: \([0-9]*\).*/\1/p' "$log" | tail -1)
splat=$("$TOP/scripts/check-console.sh" "$log" || true)
if [ -n "$splat" ]; then
	printf 'KERNEL SPLAT in %s:\n%s\n' "$log" "$splat" >&2
	[ "$allow_splat" -eq 1 ] || { msg "guest finished in ${elapsed}s: FAIL (kernel splat)"; exit 126; }
fi
if [ "$timed_out" -eq 1 ]; then
	msg "guest killed after ${timeout}s (timeout); console log: $log"
	exit 124
fi
if [ -z "$rc" ]; then
	sed -n '1,5p' "$out/qemu.stderr" >&2
	tail -n 20 "$log" >&2
	[ "$accel" = kvm ] && [ ! -s "$log" ] &&
		msg "QEMU stopped before the guest printed anything under KVM: try without SMPNICE_ACCEL=kvm"
	msg "guest ended without reporting an exit status (boot failure or panic); console log: $log"
	exit 125
fi
msg "guest finished in ${elapsed}s: exit status $rc (console log: ${log#"$TOP"/})"
exit "$rc"
