#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the pipeline scripts on small fake kernel trees made here:
# bad input, version checks, git am and quilt application, export round trip;
# the scenario table and its runner, the matrix's coverage and the bisect
# check.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
S=$TOP/scripts
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
. "$TOP/tests/lib/ktap.sh"
ktap_print_header

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
ktap_expect 2 'unknown argument' "prepare-tree.sh rejects an unknown argument" -- bash -c "$S/prepare-tree.sh --bogus; [ \$? -eq 1 ] && exit 2"
ktap_expect nonzero 'unknown argument' "build-kernel.sh rejects an unknown flavour" -- "$S/build-kernel.sh" nosuch
ktap_expect nonzero 'unknown option' "vm-run.sh rejects an unknown option" -- "$S/vm-run.sh" --bogus -- true
ktap_expect nonzero 'positive number' "vm-run.sh rejects --cpus 0" -- "$S/vm-run.sh" --cpus 0 -- true
ktap_expect nonzero 'positive number' "vm-run.sh rejects --cpus x" -- "$S/vm-run.sh" --cpus x -- true
ktap_expect nonzero 'not --cpus' "vm-run.sh rejects a topology that does not multiply to --cpus" -- \
	"$S/vm-run.sh" --cpus 4 --sockets 3 --cores 1 -- true
ktap_expect nonzero 'does not split' "vm-run.sh rejects CPUs that do not split over NUMA nodes" -- \
	"$S/vm-run.sh" --cpus 3 --numa 2 -- true
ktap_expect nonzero 'no command' "vm-run.sh wants a command" -- "$S/vm-run.sh" --cpus 2
ktap_expect nonzero "a shift of 0 to 10, not '11'" "vm-run.sh rejects SMPNICE_ICOUNT=11" -- \
	env SMPNICE_ICOUNT=11 "$S/vm-run.sh" --cpus 2 -- true
ktap_expect nonzero 'needs TCG' "vm-run.sh refuses SMPNICE_ICOUNT with KVM" -- \
	env SMPNICE_ICOUNT=4 SMPNICE_ACCEL=kvm "$S/vm-run.sh" --cpus 2 -- true
ktap_expect nonzero 'no kernel at' "vm-run.sh names a missing kernel" -- "$S/vm-run.sh" --kernel "$W/none" -- true
ktap_expect nonzero 'expected build' "kselftest.sh rejects an unknown verb" -- "$S/kselftest.sh" frob
ktap_expect 0 '' "check-console.sh finds no splat in a clean log" -- bash -c \
	"printf '[    0.1] Booting\nWARNING: userspace text\n[    0.2] rcu: RCU CPU stall warnings timeout set to 60 (rcu_cpu_stall_timeout).\n' >$W/c.log; [ -z \"\$($S/check-console.sh $W/c.log)\" ]"
ktap_expect 0 'WARNING: CPU: 0' "check-console.sh reports a kernel WARNING line" -- bash -c \
	"printf '[    1.5] WARNING: CPU: 0 PID: 1 at foo.c:1 bar+0x1/0x2\n' >$W/c2.log; $S/check-console.sh $W/c2.log"
ktap_expect 0 'blocked for more than' "check-console.sh reports a hung task" -- bash -c \
	"printf '[  100.0] INFO: task x:12 blocked for more than 60 seconds.\n' >$W/c3.log; $S/check-console.sh $W/c3.log"

# --- kernel source checks
mkdir -p "$W/empty-series"; : >"$W/empty-series/series"
ktap_expect 1 'KERNEL_SRC=.*no such directory' "a missing KERNEL_SRC fails clearly" -- \
	env $(env_for missing "$W/empty-series") KERNEL_SRC="$W/nope" "$S/prepare-tree.sh"
fake_tree "$W/old" 100 1
ktap_expect 1 'Linux 6.1.100; this series is for 6.12.y only' "a tree that is not 6.12.y is refused" -- \
	env $(env_for old "$W/empty-series") KERNEL_SRC="$W/old" "$S/prepare-tree.sh"

# --- git am: the series applies, one commit per patch on a base commit
make_series "$W/series-good"
fake_tree "$W/src" 5
git -C "$W/src" init -q && git -C "$W/src" add -A && git -C "$W/src" -c user.name=t -c user.email=t@t commit -qm base
cp "$W/src/kernel/sched.c" "$W/pristine.c"
ktap_expect 0 'tested on 6\.12\.[0-9]+.*Continuing' "another 6.12.y warns and goes on" -- \
	env $(env_for good "$W/series-good") KERNEL_SRC="$W/src" "$S/prepare-tree.sh"
T=$W/b-good/linux
ktap_eval "the prepared tree has the base commit plus one commit per patch" \
	'[ "$(git -C "$T" rev-list --count smpnice-base..HEAD 2>/dev/null)" = 2 ] &&
	 [ "$(git -C "$T" log -1 --format=%s)" = "sched/o1: second" ]'
ktap_eval "KERNEL_SRC is left untouched" \
	'cmp -s "$W/src/kernel/sched.c" "$W/pristine.c" && [ -z "$(git -C "$W/src" status --porcelain)" ]'
ktap_expect 0 'up to date' "a second prepare is a no-op" -- \
	env $(env_for good "$W/series-good") KERNEL_SRC="$W/src" "$S/prepare-tree.sh"

# --- export: round trip is byte-identical, and a new commit shows up
cp -r "$W/series-good" "$W/series-exp"
ktap_expect 0 'exported 2 patches' "export regenerates the series" -- \
	env $(env_for good "$W/series-exp") "$S/export-patches.sh"
cp -r "$W/series-exp" "$W/series-exp1"
ktap_expect 0 'exported 2 patches to patches/ \(0 files changed\)' "exporting an unchanged tree changes no file" -- \
	env $(env_for good "$W/series-exp") "$S/export-patches.sh"
ktap_check "unchanged patches stay byte-identical" diff -r "$W/series-exp" "$W/series-exp1"
ktap_eval "exported patches carry no commit id or version trailer" \
	'! grep -qE "^(From [0-9a-f]{40} |X-Mailer|-- \$)" "$W/series-exp"/*.patch ||
	 grep -q "^From 0000000000000000000000000000000000000000 " "$W/series-exp"/*.patch'
printf 'int e;\n' >>"$T/kernel/sched.c"
git -C "$T" -c user.name=t -c user.email=t@t commit -qam "sched/o1: third"
ktap_expect 0 'exported 3 patches' "a new commit is exported as a third patch" -- \
	env $(env_for good "$W/series-exp") "$S/export-patches.sh"
ktap_check "patches/series lists the new patch" grep -q 'third' "$W/series-exp/series"

# --- the series' words (kernel/series-words) and the cover letter
# word_patch NAME SUBJECT BODY FILE LINE: a format-patch of one commit that
# adds LINE to FILE, with that subject and body; prints its path.
word_patch() {
	local g=$W/words
	[ -d "$g/.git" ] || { mkdir -p "$g" && git -C "$g" init -q && git -C "$g" -c user.name=t -c user.email=t@t commit -q --allow-empty -m base; }
	mkdir -p "$g/$(dirname "$4")" && printf '%s\n' "$5" >>"$g/$4"
	git -C "$g" add -A && git -C "$g" -c user.name=t -c user.email=t@t commit -q -m "$2" -m "$3"
	git -C "$g" format-patch -q -1 --stdout >"$W/$1.patch"
	echo "$W/$1.patch"
}
words() { bash -c '. "$1/scripts/lib.sh" && shift && series_word_offenders "$@"' - "$TOP" "$@"; }
p=$(word_patch clean "sched/o1: Weigh tasks by nice level" "Give each task a load weight.
The specification of 2.6.18 says so; see the preview." kernel/sched/o1.c "/* Reviewed, per the spec. */")
ktap_expect 0 '' "the word check passes a clean patch (spec, preview, reviewed are no offence)" -- words "$p"
p=$(word_patch fixup "fixup! sched/o1: Weigh tasks by nice level" "" kernel/sched/o1.c "int x;")
ktap_expect 1 '^fixup\.patch:4: fixup! sched/o1: Weigh tasks by nice level  \(fixup rule' \
	"the word check fails a fixup! commit, naming the patch and the line" -- words "$p"
p=$(word_patch squash "squash! sched/o1: Weigh tasks" "" kernel/sched/o1.c "int y;")
ktap_expect 1 '\(fixup rule' "... and a squash! commit" -- words "$p"
p=$(word_patch review "sched/o1: Fix two defects found in review" "Two fixes." kernel/sched/o1.c "int z;")
ktap_expect 1 'review\.patch:4: .*\(subject rule: .*review' "... and a subject that says how the change was found" -- words "$p"
p=$(word_patch again "sched/o1: Balance again after boot" "Balance." kernel/sched/o1.c "int a1;")
ktap_expect 1 '\(subject rule: ' "... and a subject with 'again'" -- words "$p"
p=$(word_patch seed "sched/o1: Keep moves small" "The placement study found it (seed 64)." kernel/sched/o1.c "int a2;")
ktap_expect 1 'seed\.patch:6: The placement study found it \(seed 64\)\.  \(text rule' \
	"... and a changelog that names a study seed" -- words "$p"
p=$(word_patch split "sched/o1: Keep moves smaller" "This is the rule that the
project's tests hold." kernel/sched/o1.c "int a3;")
ktap_expect 1 'split\.patch:6: .*\(text rule: \\bthe project' "... and a phrase broken over two lines" -- words "$p"
p=$(word_patch spec "sched/o1: Add the weights" "Add them." kernel/sched/o1.c "/* SPEC section 4's weights */")
ktap_expect 1 'spec\.patch:[0-9]+: /\* SPEC section' "... and an added kernel/sched/ line that cites SPEC" -- words "$p"
p=$(word_patch tools "selftests/sched: Add a test" "Add it." tools/testing/selftests/sched/t.c "/* seed 3, SPEC section 4 */")
ktap_expect 0 '' "... but not the same line in a selftest" -- words "$p"
ktap_expect 1 '^1234abc: fixup! x  \(fixup rule' "the subject check fails a fixup! commit of build/linux" -- \
	bash -c '. "$1/scripts/lib.sh" && printf "1234abc fixup! x\n5678def sched/o1: fine\n" | series_subject_offenders' - "$TOP"

# export: refuses an offending series, writes and refreshes the cover letter
C=$W/series-exp/cover-letter.txt
ktap_eval "export wrote a cover letter stub: a TODO line and the diffstat between the markers" \
	'grep -q "^TODO" "$C" && diff <(git -C "$T" diff --stat=72 smpnice-base HEAD) \
	  <(sed -n "/^<!-- diffstat -->\$/,/^<!-- \/diffstat -->\$/p" "$C" | sed "1d;\$d")'
printf 'Subject: [PATCH 0/2] sched: an O(1) class\n\nHand-written prose.\n\n<!-- diffstat -->\nstale\n<!-- /diffstat -->\n\nSigned-off-by: t\n' >"$C"
cp "$C" "$W/cover-hand.txt"
printf 'int f;\n' >>"$T/kernel/sched.c"
git -C "$T" -c user.name=t -c user.email=t@t commit -qam "sched/o1: fourth"
ktap_expect 0 'exported 4 patches' "export refreshes the cover letter's diffstat" -- \
	env $(env_for good "$W/series-exp") "$S/export-patches.sh"
ktap_eval "... and leaves the hand-written text as it was" \
	'diff <(grep -v -e "^ " -e "^stale" "$W/cover-hand.txt") <(grep -v "^ " "$C") &&
	 grep -q "^ 1 file changed, 4 insertions" "$C" && ! grep -q stale "$C" && ! grep -q cover-letter "$W/series-exp/series"'
cp -r "$W/series-exp" "$W/series-exp2"
printf 'int g;\n' >>"$T/kernel/sched.c"
git -C "$T" -c user.name=t -c user.email=t@t commit -qam "fixup! sched/o1: fourth"
ktap_expect 1 'refusing to export.*kernel/series-words' "export refuses a series with a fixup! commit" -- \
	env $(env_for good "$W/series-exp") "$S/export-patches.sh"
ktap_check "... naming the commit's patch, and changes no file" bash -c \
	'grep -q "0005-fixup-sched-o1-fourth.patch:4: fixup!" <<<"$1" && diff -r "$2" "$3"' - "$KTAP_OUTPUT" "$W/series-exp" "$W/series-exp2"
git -C "$T" reset -q --hard HEAD~1
printf 'Hand-written prose only.\n' >"$C"
ktap_expect 1 'no diffstat block' "export refuses a cover letter without the diffstat markers" -- \
	env $(env_for good "$W/series-exp") "$S/export-patches.sh"
printf 'Prose.\n\n<!-- diffstat -->\n<!-- /diffstat -->\n' >"$C"
env $(env_for good "$W/series-exp") "$S/export-patches.sh" >/dev/null 2>&1

# --- quilt: the same series applies with quilt push -a to the same result
rm -rf "$W/q"; cp -r "$W/src" "$W/q"; rm -rf "$W/q/.git"
ktap_check "quilt push -a applies the exported series to the same tree as git am" bash -c \
	'cd "$1" && QUILT_PATCHES="$2" quilt push -a -q && diff -r -x .git -x .pc . "$3"' - "$W/q" "$W/series-exp" "$T"

# --- a broken patch stops with its name and the failing file
cp -r "$W/series-good" "$W/series-bad"
sed -i 's/^-int b;/-int zzz;/' "$W/series-bad"/0001-*.patch
ktap_expect 1 '0001-sched-o1-first.patch does not apply.*' "a broken patch stops the pipeline, naming the patch" -- \
	env $(env_for bad "$W/series-bad") KERNEL_SRC="$W/src" "$S/prepare-tree.sh"
ktap_check "... and naming the failing file" grep -q 'kernel/sched.c' <<<"$KTAP_OUTPUT"
ktap_expect 1 'names 0009-missing.patch' "a series entry without its file is named" -- bash -c \
	"cp -r $W/series-good $W/series-miss && echo 0009-missing.patch >>$W/series-miss/series && \
	 env $(env_for miss "$W/series-miss") KERNEL_SRC=$W/src $S/prepare-tree.sh"

# --- the scenario table (tests/scenarios) and its runner (scripts/runner.sh)
R=$S/runner.sh
ktap_expect nonzero 'unknown argument' "runner.sh rejects an unknown argument" -- "$R" --bogus
ktap_expect nonzero "unknown set 'nosuch'" "runner.sh names an unknown set" -- "$R" --set nosuch --list
ktap_expect nonzero "no scenario 'nosuch'" "runner.sh names an unknown scenario" -- "$R" --only nosuch --list
ktap_expect nonzero 'say which scenarios' "runner.sh wants a set or names" -- "$R" --list
ktap_expect nonzero "DURATION wants a whole number" "runner.sh rejects a bad DURATION" -- env DURATION=abc "$R" --set stress --dry-run
ktap_expect nonzero "unknown flavour 'nosuch'" "runner.sh --built names an unknown flavour" -- "$R" --set check --built nosuch --list
ktap_expect nonzero "no results directory" "runner.sh --recheck names a missing directory" -- "$R" --recheck "$W/none"
bad_table() { # DESCRIPTION REGEX LINE...
	local desc=$1 re=$2; shift 2
	printf '%s\n' "$@" >"$W/sc-bad"
	ktap_expect nonzero "$re" "the runner refuses a table with $desc" -- env SCENARIOS="$W/sc-bad" "$R" --set check --list
}
bad_table "a scenario twice" "scenario 'a' twice" 'a | check | host | - | exit | - | true' 'a | check | host | - | exit | - | true'
bad_table "an unknown flavour" "a: unknown flavour 'nosuch'" 'a | check | nosuch | --cpus 2 | exit | - | true'
bad_table "an unknown judge" "a: unknown judge 'magic'" 'a | check | host | - | magic | - | true'
bad_table "an unknown set" "a: unknown set 'often'" 'a | often | host | - | exit | - | true'
bad_table "a bad retry policy" "a: retry is 'once' or '-'" 'a | check | host | - | exit | twice | true'
bad_table "vm options on a host run" "a: a host run takes no vm options" 'a | check | host | --cpus 2 | exit | - | true'
ktap_expect 0 '^kselftest-o1-2cpu ' "runner.sh --list shows the check set" -- "$R" --set check --list
ktap_expect 0 'matrix-up: scripts/vm-run.sh --flavour up --name matrix-up --cpus 1 .*run_kselftest.sh -p -t sched:sched_o1_api -t sched:sched_o1_share' \
	"a kselftest scenario runs its tests with run_kselftest.sh in the flavour's guest" -- "$R" --only matrix-up --dry-run
ktap_expect 0 'kernel o1off: reuse build/obj/o1off|kernel o1off: scripts/build-kernel.sh o1off' "the runner builds or reuses each flavour used" -- \
	"$R" --only o1-configured-out --dry-run --reuse
ktap_expect 0 'torture-debug-4cpu: .*--timeout 363 .*export DURATION=42' "DURATION reaches the vm options and the guest" -- \
	env DURATION=42 "$R" --only torture-debug-4cpu --dry-run
# A run: a flaky check retried once, a failure, a skip; dated results, recheck.
cat >"$W/sc" <<'SC'
flaky | check | host | - | exit | once | if [ -e "$FLAKY" ]; then echo "ok - second try"; else touch "$FLAKY"; echo "not ok - first try"; exit 1; fi
bad   | check | host | - | exit | -    | echo "ok - one"; echo "not ok - broken"; exit 1
skip  | check | host | - | exit | -    | echo "no frobnicator here"; exit 77
good  | quick | host | - | exit | -    | echo "ok - fine"
SC
ktap_expect 1 '2 passed, 1 failed, 1 skipped' "the runner counts checks, retries once, skips with a reason" -- \
	env FLAKY="$W/flaky" SCENARIOS="$W/sc" RESULTS="$W/res" "$R" --set check
r=$(readlink -f "$W/res/latest")
ktap_check "each scenario has its own directory, the first try is kept, summary.md has a row each" bash -c \
	'[ -d "$1/flaky.try1" ] && grep -q "second try" "$1/flaky/verdict" && grep -q "^SKIP.*no frobnicator" "$1/skip/verdict" &&
	 grep -q "^| bad | host |  | FAIL | 1/2 |" "$1/summary.md" || { ls -R "$1"; exit 1; }' - "$r"
sed -i 's/FAIL/PASS/' "$r/bad/verdict.json"
ktap_expect 1 '2 passed, 1 failed, 1 skipped' "--recheck judges the runs again, not the stored verdicts" -- env RESULTS="$W/res" "$R" --recheck
sleep 1
env SCENARIOS="$W/sc" RESULTS="$W/res" "$R" --set quick >/dev/null 2>&1
ktap_eval "a second run gets a new results directory; the first stays" \
	'[ "$(ls -d "$W"/res/20* | wc -l)" -eq 2 ] && [ -d "$r/bad" ]'

# Every value of every matrix dimension is booted by a kselftest scenario of
# set check or matrix (CI runs both; o1-configured-out stands for O1=n): the
# flavour's fragments, last wins.
cover=""
while IFS='|' read -r name sets fl _ judge _; do
	name=${name// /}; fl=${fl// /}; judge=${judge// /}
	[[ " $sets " == *" matrix "* || " $sets " == *" check "* ]] || continue
	[ "$judge" = kselftest ] || [ "$name" = o1-configured-out ] || continue
	files=()
	for f in $(bash -c '. "$0/scripts/lib.sh" && flavour_field "$1" 2' "$TOP" "$fl"); do
		files+=("$TOP/kernel/$f")
	done
	[ "${#files[@]}" -gt 0 ] || { ktap_test_fail "matrix scenario $name: its flavour $fl has fragments"; continue; }
	vals=$(cat "${files[@]}" | awk '
		/^CONFIG_[A-Z0-9_]+=/ { o = $0; sub(/=.*/, "", o); v[o] = substr($0, length(o) + 2) }
		/^# CONFIG_[A-Z0-9_]+ is not set/ { v[$2] = "n" }
		END {
			printf "O1=%s SMP=%s ", (v["CONFIG_SCHED_CLASS_O1"] == "y" ? "y" : "n"), (v["CONFIG_SMP"] == "y" ? "y" : "n")
			printf "MODEL=%s ", (v["CONFIG_PREEMPT"] == "y" ? "FULL" : v["CONFIG_PREEMPT_VOLUNTARY"] == "y" ? "VOLUNTARY" : "NONE")
			hz = v["CONFIG_HZ_100"] == "y" ? 100 : v["CONFIG_HZ_1000"] == "y" ? 1000 : v["CONFIG_HZ_250"] == "y" ? 250 : "?"
			printf "HZ=%s TICK=%s\n", hz, (v["CONFIG_HZ_PERIODIC"] == "y" ? "PERIODIC" : v["CONFIG_NO_HZ_IDLE"] == "y" ? "NO_HZ_IDLE" : "?")
		}')
	for v in $vals; do cover+=" $v:$name"; done
done < <(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$TOP/tests/scenarios")
echo "$cover" | tr ' ' '\n' >"$W/cover"
for want in O1=y O1=n SMP=y SMP=n MODEL=NONE MODEL=VOLUNTARY MODEL=FULL HZ=100 HZ=250 HZ=1000 TICK=NO_HZ_IDLE TICK=PERIODIC; do
	ktap_check "the matrix boots $want" grep -q "^$want:" "$W/cover"
done

# --- bisect-check.sh on a fake kernel tree: the first patch that breaks is named
fake_kernel() { # DIR: a git tree whose "kernel build" compiles kernel/sched.c
	mkdir -p "$1/linux/kernel" "$1/linux/scripts/kconfig"
	printf 'int a;\n' >"$1/linux/kernel/sched.c"
	printf 'config SMP\n\tbool\n' >"$1/linux/kernel/Kconfig"
	# merge_config.sh -n -O OBJ FRAGMENTS...: the fragments are the .config.
	printf '#!/bin/sh\nobj=$3; shift 3\ncat "$@" >"$obj/.config"\n' >"$1/linux/scripts/kconfig/merge_config.sh"
	chmod +x "$1/linux/scripts/kconfig/merge_config.sh"
	printf 'olddefconfig:\n\t@true\nheaders:\n\tmkdir -p $(O)/usr/include\nbzImage:\n\tmkdir -p $(O)/arch/x86/boot\n\tgcc -c kernel/sched.c -o $(O)/sched.o\n\tcp $(O)/sched.o $(O)/arch/x86/boot/bzImage\n' >"$1/linux/Makefile"
	fgit "$1" init -q && fgit "$1" add -A && fgit "$1" commit -qm base && fgit "$1" tag smpnice-base
}
fgit() { local d=$1; shift; git -C "$d/linux" -c user.name=t -c user.email=t@t "$@"; }
# build-kernel.sh's run_logged polls with "sleep 15": make it poll fast here.
sleep() { command sleep 0.1; }
export -f sleep
B=$W/bis
fake_kernel "$B"
printf 'int b;\n' >>"$B/linux/kernel/sched.c"; fgit "$B" commit -qam "sched/o1: first"
printf 'config SCHED_CLASS_O1\n\tbool\n' >>"$B/linux/kernel/Kconfig"; fgit "$B" commit -qam "sched/o1: a Kconfig option"
printf 'int c = ;\n' >>"$B/linux/kernel/sched.c"; fgit "$B" commit -qam "sched/o1: broken"
printf 'int d;\n' >>"$B/linux/kernel/sched.c"; fgit "$B" commit -qam "sched/o1: fourth"
# The layout before: the worktree in build/bisect itself; it is moved.
fgit "$B" worktree add -q --detach "$B/bisect" smpnice-base
ktap_expect 1 'patch 3 \(sched/o1: broken\) breaks the build' "bisect-check.sh names the first patch that breaks the build" -- \
	env BUILD="$B" TREE="$B/linux" "$S/bisect-check.sh"
ktap_eval "bisect-check.sh moves an old-layout worktree to build/bisect/linux, objects in build/bisect/obj/default" \
	'grep -q "moving the bisect worktree" <<<"$KTAP_OUTPUT" && [ -e "$B/bisect/linux/.git" ] && [ -f "$B/bisect/obj/default/sched.o" ]'
ktap_check "bisect-check.sh configures again only after a patch that changes a Kconfig, and stops at the break" bash -c \
	'grep -q configuring "$1/bisect-1.log" && grep -q configuring "$1/bisect-2.log" &&
	 ! grep -q configuring "$1/bisect-3.log" && [ ! -e "$1/bisect-4.log" ] || { grep -H . "$1"/bisect-*.log; exit 1; }' - "$B/logs"
B=$W/bis2
fake_kernel "$B"
printf 'int b;\n' >>"$B/linux/kernel/sched.c"; fgit "$B" commit -qam "sched/o1: first"
printf 'int c;\n' >>"$B/linux/kernel/sched.c"; fgit "$B" commit -qam "sched/o1: second"
printf '#define D 1\n' >"$B/linux/kernel/sched.h"; fgit "$B" add -A; fgit "$B" commit -qm "sched/o1: a header"
ktap_expect 0 'all 3 patches build, one by one' "bisect-check.sh passes a series whose every patch builds" -- \
	env BUILD="$B" TREE="$B/linux" "$S/bisect-check.sh"
ktap_eval "patches that change only C files before any kernel is built build their objects; a header builds the kernel" \
	'grep -q "\[1/3\] builds kernel/sched.o " <<<"$KTAP_OUTPUT" && grep -q "\[2/3\] builds kernel/sched.o " <<<"$KTAP_OUTPUT" && grep -q "\[3/3\] builds (" <<<"$KTAP_OUTPUT"'
ktap_expect nonzero 'past the last patch' "bisect-check.sh rejects a FIRST past the series" -- \
	env BUILD="$B" TREE="$B/linux" "$S/bisect-check.sh" 4
# A patch that breaks the sched kselftests (and nothing kbuild reads).
B=$W/bis3
fake_kernel "$B"
K=$B/linux/tools/testing/selftests/sched
mkdir -p "$K"
printf 'all:\n\tgcc -c t.c -o $(OUTPUT)/t.o\n' >"$K/Makefile"
printf 'int t;\n' >"$K/t.c"; fgit "$B" add -A; fgit "$B" commit -qm "selftests/sched: a test"
printf 'int u = ;\n' >>"$K/t.c"; fgit "$B" commit -qam "selftests/sched: broken"
ktap_expect 1 'patch 2 \(selftests/sched: broken\) breaks the build of the sched kselftests' \
	"bisect-check.sh builds the sched kselftests at a patch that changes them, naming the first that breaks" -- \
	env BUILD="$B" TREE="$B/linux" "$S/bisect-check.sh"
ktap_eval "bisect-check.sh: the kselftests built at patch 1, which built the kernel" \
	'grep -q "\[1/2\] the sched kselftests build" <<<"$KTAP_OUTPUT" && [ -f "$B/bisect/kselftest-sched/t.o" ]'
unset -f sleep

# --- deps
ktap_expect 0 'all [0-9]+ packages installed|missing packages' "deps.sh --check reports" -- bash -c "$S/deps.sh --check || true"

ktap_done
