#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print the kernel console lines of a guest log that report a splat: WARNING,
# BUG, Oops, lockdep, RCU stall, hung task, soft lockup, UBSAN, KASAN, panic.
# Only kernel lines (with the printk timestamp) count, so a program that
# prints "WARNING:" itself does not fail a run. Exit 0 if any was found.
#
# Usage: scripts/check-console.sh CONSOLE.LOG
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 CONSOLE.LOG" >&2; exit 2; }
[ -f "$1" ] || { echo "check-console.sh: $1: no such file" >&2; exit 2; }
pattern='WARNING:|BUG:|Oops|kernel BUG at|general protection fault'
pattern+='|possible recursive locking|possible circular locking|inconsistent lock state'
pattern+='|possible irq lock inversion|turning off the locking correctness validator'
pattern+='|suspicious RCU usage|detected stall|self-detected stall|rcu_.*detected stalls'
pattern+='|blocked for more than|soft lockup|hard LOCKUP|UBSAN:|KASAN:|Kernel panic'
pattern+='|scheduling while atomic|sleeping function called from invalid context'
grep -nE '^\[ *[0-9]+\.[0-9]+\] ' "$1" | grep -E "$pattern" | head -n 20
