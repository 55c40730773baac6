#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install, with apt-get, what the pipeline needs and is missing. Idempotent:
# with everything installed it only checks. Not root and something missing:
# print the apt-get line to run, and stop.
#
# Usage: scripts/deps.sh [--check]   (--check: report, never install)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

check_only=0
for a in "$@"; do
	case $a in
	--check) check_only=1 ;;
	-h|--help) sed -n '3,8p' "$0"; exit 0 ;;
	*) die "deps.sh: unknown argument '$a' (try --help)" ;;
	esac
done

pkgs=(
	# kernel build
	gcc make flex bison bc libelf-dev libssl-dev cpio ccache dwarves python3 perl kmod rsync git xz-utils
	# the tree, the series and the guest; sparse for make lint
	"$KERNEL_PACKAGE" quilt qemu-system-x86 sparse
	# guest tools: measurement, stress and tracing
	linux-perf stress-ng rt-tests trace-cmd gnuplot-nox
)

missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
	msg "dependencies: all ${#pkgs[@]} packages installed"
	exit 0
fi
line="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$check_only" -eq 1 ]; then
	die "missing packages: ${missing[*]}; install them with: $line"
fi
if [ "$(id -u)" -ne 0 ]; then
	die "missing packages: ${missing[*]}
Run as root:  $line"
fi
msg "installing ${#missing[@]} missing packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
run_logged "$LOGS/apt-update.log" apt-get update || die "apt-get update failed"
run_logged "$LOGS/apt-install.log" apt-get install -y --no-install-recommends "${missing[@]}" || \
	die "apt-get install failed; see $LOGS/apt-install.log"
msg "dependencies installed"
