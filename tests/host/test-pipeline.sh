#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the pipeline scripts on small fake kernel trees made here:
# bad input, version checks, git am and quilt application, export round trip.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
S=$TOP/scripts
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; sed 's/^/#   /' "$W/out" | tail -n 8; }
# expect STATUS REGEX DESCRIPTION -- COMMAND...: exit status and a message
expect() {
	local want=$1 re=$2 desc=$3; shift 4
	"$@" >"$W/out" 2>&1; local st=$?
	if { [ "$want" = nonzero ] && [ "$st" -ne 0 ]; } || [ "$st" = "$want" ]; then
		if [ -z "$re" ] || grep -qE "$re" "$W/out"; then ok "$desc"; return; fi
	fi
	echo "# exit $st" >>"$W/out"; nok "$desc"
}

fake_tree() { # DIR SUBLEVEL [PATCHLEVEL]
	mkdir -p "$1/kernel"
	printf 'VERSION = 6\nPATCHLEVEL = %s\nSUBLEVEL = %s\nEXTRAVERSION =\n' "${3:-12}" "$2" >"$1/Makefile"
	printf 'int a;\nint b;\nint c;\n' >"$1/kernel/sched.c"
}
# A series made with git format-patch on a fake tree.
make_series() { # OUTDIR
	local g=$W/gen
	rm -rf "$g"; fake_tree "$g" 5
	git -C "$g" init -q && git -C "$g" add -A && git -C "$g" -c user.name=t -c user.email=t@t commit -qm base
	sed -i 's/int b;/int b = 1;/' "$g/kernel/sched.c"
	git -C "$g" -c user.name=t -c user.email=t@t commit -qam "sched/o1: first"
	printf 'int d;\n' >>"$g/kernel/sched.c"
	git -C "$g" -c user.name=t -c user.email=t@t commit -qam "sched/o1: second"
	mkdir -p "$1"
	git -C "$g" format-patch -q -o "$1" HEAD~2..HEAD
	(cd "$1" && ls *.patch) >"$1/series"
}
env_for() { echo BUILD="$W/b-$1" TREE="$W/b-$1/linux" PATCHES="$2"; }

# --- argument checking
expect 2 'unknown argument' "prepare-tree.sh rejects an unknown argument" -- bash -c "$S/prepare-tree.sh --bogus; [ \$? -eq 1 ] && exit 2"
expect nonzero 'unknown argument' "build-kernel.sh rejects an unknown flavour" -- "$S/build-kernel.sh" nosuch
expect nonzero 'unknown option' "vm-run.sh rejects an unknown option" -- "$S/vm-run.sh" --bogus -- true
expect nonzero 'positive number' "vm-run.sh rejects --cpus 0" -- "$S/vm-run.sh" --cpus 0 -- true
expect nonzero 'positive number' "vm-run.sh rejects --cpus x" -- "$S/vm-run.sh" --cpus x -- true
expect nonzero 'not --cpus' "vm-run.sh rejects a topology that does not multiply to --cpus" -- \
	"$S/vm-run.sh" --cpus 4 --sockets 3 --cores 1 -- true
expect nonzero 'does not split' "vm-run.sh rejects CPUs that do not split over NUMA nodes" -- \
	"$S/vm-run.sh" --cpus 3 --numa 2 -- true
expect nonzero 'no command' "vm-run.sh wants a command" -- "$S/vm-run.sh" --cpus 2
expect nonzero 'no kernel at' "vm-run.sh names a missing kernel" -- "$S/vm-run.sh" --kernel "$W/none" -- true
expect nonzero 'expected build, run' "kselftest.sh rejects an unknown verb" -- "$S/kselftest.sh" frob
expect 0 '' "check-console.sh finds no splat in a clean log" -- bash -c \
	"printf '[    0.1] Booting\nWARNING: userspace text\n[    0.2] rcu: RCU CPU stall warnings timeout set to 60 (rcu_cpu_stall_timeout).\n' >$W/c.log; [ -z \"\$($S/check-console.sh $W/c.log)\" ]"
expect 0 'WARNING: CPU: 0' "check-console.sh reports a kernel WARNING line" -- bash -c \
	"printf '[    1.5] WARNING: CPU: 0 PID: 1 at foo.c:1 bar+0x1/0x2\n' >$W/c2.log; $S/check-console.sh $W/c2.log"
expect 0 'blocked for more than' "check-console.sh reports a hung task" -- bash -c \
	"printf '[  100.0] INFO: task x:12 blocked for more than 60 seconds.\n' >$W/c3.log; $S/check-console.sh $W/c3.log"

# --- kernel source checks
mkdir -p "$W/empty-series"; : >"$W/empty-series/series"
expect 1 'KERNEL_SRC=.*no such directory' "a missing KERNEL_SRC fails clearly" -- \
	env $(env_for missing "$W/empty-series") KERNEL_SRC="$W/nope" "$S/prepare-tree.sh"
fake_tree "$W/old" 100 1
expect 1 'Linux 6.1.100; this series is for 6.12.y only' "a tree that is not 6.12.y is refused" -- \
	env $(env_for old "$W/empty-series") KERNEL_SRC="$W/old" "$S/prepare-tree.sh"

# --- git am: the series applies, one commit per patch on a base commit
make_series "$W/series-good"
fake_tree "$W/src" 5
git -C "$W/src" init -q && git -C "$W/src" add -A && git -C "$W/src" -c user.name=t -c user.email=t@t commit -qm base
cp "$W/src/kernel/sched.c" "$W/pristine.c"
expect 0 'tested on 6\.12\.[0-9]+.*Continuing' "another 6.12.y warns and goes on" -- \
	env $(env_for good "$W/series-good") KERNEL_SRC="$W/src" "$S/prepare-tree.sh"
T=$W/b-good/linux
if [ "$(git -C "$T" rev-list --count smpnice-base..HEAD 2>/dev/null)" = 2 ] && \
   [ "$(git -C "$T" log -1 --format=%s)" = "sched/o1: second" ]; then
	ok "the prepared tree has the base commit plus one commit per patch"
else nok "the prepared tree has the base commit plus one commit per patch"; fi
if cmp -s "$W/src/kernel/sched.c" "$W/pristine.c" && [ -z "$(git -C "$W/src" status --porcelain)" ]; then
	ok "KERNEL_SRC is left untouched"
else nok "KERNEL_SRC is left untouched"; fi
expect 0 'up to date' "a second prepare is a no-op" -- \
	env $(env_for good "$W/series-good") KERNEL_SRC="$W/src" "$S/prepare-tree.sh"

# --- export: round trip is byte-identical, and a new commit shows up
cp -r "$W/series-good" "$W/series-exp"
expect 0 'exported 2 patches' "export regenerates the series" -- \
	env $(env_for good "$W/series-exp") "$S/export-patches.sh"
cp -r "$W/series-exp" "$W/series-exp1"
expect 0 'exported 2 patches to patches/ \(0 files changed\)' "exporting an unchanged tree changes no file" -- \
	env $(env_for good "$W/series-exp") "$S/export-patches.sh"
if diff -r "$W/series-exp" "$W/series-exp1" >/dev/null; then ok "unchanged patches stay byte-identical"
else nok "unchanged patches stay byte-identical"; fi
if ! grep -qE '^(From [0-9a-f]{40} |X-Mailer|-- $)' "$W/series-exp"/*.patch || \
   grep -q '^From 0000000000000000000000000000000000000000 ' "$W/series-exp"/*.patch; then
	ok "exported patches carry no commit id or version trailer"
else nok "exported patches carry no commit id or version trailer"; fi
printf 'int e;\n' >>"$T/kernel/sched.c"
git -C "$T" -c user.name=t -c user.email=t@t commit -qam "sched/o1: third"
expect 0 'exported 3 patches' "a new commit is exported as a third patch" -- \
	env $(env_for good "$W/series-exp") "$S/export-patches.sh"
grep -q 'third' "$W/series-exp/series" && ok "patches/series lists the new patch" || nok "patches/series lists the new patch"

# --- quilt: the same series applies with quilt push -a to the same result
rm -rf "$W/q"; cp -r "$W/src" "$W/q"; rm -rf "$W/q/.git"
if (cd "$W/q" && QUILT_PATCHES="$W/series-exp" quilt push -a -q >"$W/out" 2>&1) && \
   diff -r -x .git -x .pc "$W/q" "$T" >/dev/null; then
	ok "quilt push -a applies the exported series to the same tree as git am"
else nok "quilt push -a applies the exported series to the same tree as git am"; fi

# --- a broken patch stops with its name and the failing file
cp -r "$W/series-good" "$W/series-bad"
sed -i 's/^-int b;/-int zzz;/' "$W/series-bad"/0001-*.patch
expect 1 '0001-sched-o1-first.patch does not apply.*' "a broken patch stops the pipeline, naming the patch" -- \
	env $(env_for bad "$W/series-bad") KERNEL_SRC="$W/src" "$S/prepare-tree.sh"
grep -q 'kernel/sched.c' "$W/out" && ok "... and naming the failing file" || nok "... and naming the failing file"
expect 1 'names 0009-missing.patch' "a series entry without its file is named" -- bash -c \
	"cp -r $W/series-good $W/series-miss && echo 0009-missing.patch >>$W/series-miss/series && \
	 env $(env_for miss "$W/series-miss") KERNEL_SRC=$W/src $S/prepare-tree.sh"

# --- deps
expect 0 'all [0-9]+ packages installed|missing packages' "deps.sh --check reports" -- bash -c "$S/deps.sh --check || true"

echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
