#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The configuration matrix ("make matrix"): every value of every
# dimension is built at least once, with as few kernels as possible, and the
# kernels the issue asks to boot are booted and run their tests.
#
#   dimension        values: kernel that covers it
#   SCHED_CLASS_O1   y: default; n: o1off (boots, behaves as unpatched)
#   SMP              y: default; n: up (boots, 1-CPU O1 kselftests)
#   preemption       NONE: default; VOLUNTARY: up; PREEMPT (full): periodic, debug
#   HZ               100: up; 250: default; 1000: periodic
#   tick             NO_HZ_IDLE: default; HZ_PERIODIC: periodic (both boot
#                    and run the balancing kselftests on 2 CPUs)
#
# default, debug and o1off are the kernels of "make check" (build/obj/NAME):
# an up-to-date one is not rebuilt (build-kernel.sh is incremental; --reuse
# does not even look). up and periodic are built from the default
# configuration plus the fragments of their row, in build/obj/matrix-NAME.
# Each row's logs are in build/matrix/NAME/; the table is
# build/matrix/summary.md. Exits non-zero naming every row that broke.
#
# Usage: scripts/matrix.sh [--list] [--dry-run] [--reuse] [--no-boot] [--only NAME[,NAME...]]
#   --list     print the rows: name | base flavour | fragments | guest run | coverage
#   --dry-run  print what each row would build and run, do nothing
#   --reuse    take default, debug and o1off as built (fail if missing)
#   --no-boot  build only
#   --only     run only these rows
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# name | base flavour | extra fragments (kernel/) | guest run | what the row covers
#   guest run: o1off (tests/vm/o1off.sh), boot:CPUS (boot, run true),
#   kst:CPUS:TEST+TEST (the O1 kselftests named, scripts/kselftest.sh)
ROWS=(
	"default|default||kst:2:sched_o1_balance+sched_o1_smpnice|SCHED_CLASS_O1=y, SMP, PREEMPT_NONE, HZ_250, NO_HZ_IDLE"
	"o1off|o1off||o1off|SCHED_CLASS_O1=n (behaves as unpatched)"
	"debug|debug||kst:4:sched_o1_cgroup+sched_o1_api|PREEMPT (full) + lockdep, UBSAN, ...; the cgroup paths"
	"up|default|up.config preempt-voluntary.config hz-100.config|kst:1:sched_o1_api+sched_o1_share+sched_o1_cgroup|SMP=n, PREEMPT_VOLUNTARY, HZ_100"
	"periodic|default|hz-periodic.config hz-1000.config preempt-full.config|kst:2:sched_o1_balance+sched_o1_smpnice|HZ_PERIODIC, HZ_1000, PREEMPT (full) without debug options"
)

usage() { sed -n '23,28p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
list=0 dry=0 reuse=0 noboot=0 only=""
while [ $# -gt 0 ]; do
	case $1 in
	--list) list=1; shift ;;
	--dry-run) dry=1; shift ;;
	--reuse) reuse=1; shift ;;
	--no-boot) noboot=1; shift ;;
	--only) [ $# -ge 2 ] || die "matrix.sh: --only needs a value (try --help)"; only=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	*) die "matrix.sh: unknown argument '$1' (try --help)" ;;
	esac
done

names=()
for r in "${ROWS[@]}"; do names+=("${r%%|*}"); done
for o in ${only//,/ }; do
	[[ " ${names[*]} " == *" $o "* ]] || die "matrix.sh: no row '$o' (rows: ${names[*]})"
done
selected() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

if [ "$list" -eq 1 ]; then
	echo "row | base | fragments (kernel/) | guest run | covers"
	for r in "${ROWS[@]}"; do
		IFS='|' read -r name fl frags run covers <<<"$r"
		selected "$name" || continue
		echo "$name | $fl | ${frags:--} | $run | $covers"
	done
	exit 0
fi

MX=$BUILD/matrix
objdir() { # NAME FLAVOUR FRAGMENTS
	if [ -z "$3" ]; then echo "$BUILD/obj/$2"; else echo "$BUILD/obj/matrix-$1"; fi
}
# The options the matrix is about, as the built .config has them.
config_of() {
	local c=$1 s="" p
	[ -f "$c" ] || { echo "?"; return; }
	grep -q '^CONFIG_SMP=y' "$c" && s+="SMP" || s+="UP"
	for p in PREEMPT_NONE PREEMPT_VOLUNTARY PREEMPT; do
		grep -q "^CONFIG_$p=y" "$c" && s+=" $p"
	done
	grep -q '^CONFIG_PREEMPT_DYNAMIC=y' "$c" && s+=" PREEMPT_DYNAMIC"
	s+=" HZ=$(sed -n 's/^CONFIG_HZ=//p' "$c")"
	grep -q '^CONFIG_NO_HZ_IDLE=y' "$c" && s+=" NO_HZ_IDLE"
	grep -q '^CONFIG_HZ_PERIODIC=y' "$c" && s+=" HZ_PERIODIC"
	grep -q '^CONFIG_NO_HZ_FULL=y' "$c" && s+=" NO_HZ_FULL"
	grep -q '^CONFIG_SCHED_CLASS_O1=y' "$c" && s+=" O1=y" || s+=" O1=n"
	grep -q '^CONFIG_PROVE_LOCKING=y' "$c" && s+=" +debug"
	echo "$s"
}

# Build one row; sets build_res and build_secs.
build_row() { # NAME FLAVOUR FRAGMENTS OBJ DIR
	local name=$1 fl=$2 frags=$3 obj=$4 dir=$5 extra="" f t0=$SECONDS
	if [ -z "$frags" ] && [ "$reuse" -eq 1 ]; then
		build_secs=0
		if [ -f "$obj/arch/x86/boot/bzImage" ]; then build_res="reused"
		else build_res="FAILED: not built (--reuse, run 'make check' first)"; fi
		return
	fi
	for f in $frags; do extra+="$TOP/kernel/$f "; done
	local before=""
	[ -f "$obj/arch/x86/boot/bzImage" ] && before=$(stat -c %Y "$obj/arch/x86/boot/bzImage")
	if [ -z "$frags" ]; then
		# A make check flavour: its own place and logs, as make check builds it.
		env -u EXTRA_CONFIG -u OBJ_SUFFIX "$TOP/scripts/build-kernel.sh" "$fl" >"$dir/build.log" 2>&1
	else
		# build-kernel.sh's logs go to build/matrix/NAME/logs, not build/logs.
		BUILD=$dir TREE=$TREE OBJ=$obj EXTRA_CONFIG="$extra" \
			"$TOP/scripts/build-kernel.sh" "$fl" >"$dir/build.log" 2>&1
	fi
	local rc=$?
	build_secs=$((SECONDS - t0))
	if [ "$rc" -ne 0 ]; then
		build_res="FAILED (exit $rc): ${dir#"$TOP"/}/build.log"
	elif [ -n "$before" ] && [ "$before" = "$(stat -c %Y "$obj/arch/x86/boot/bzImage")" ]; then
		build_res="up to date"
	else
		build_res="built"
	fi
}

# Boot one row and run its tests; sets run_res.
run_row() { # NAME RUN OBJ DIR
	local name=$1 run=$2 obj=$3 dir=$4 rc=0 cpus tests t sel=""
	local kernel=$obj/arch/x86/boot/bzImage
	case $run in
	o1off)
		"$TOP/tests/vm/o1off.sh" >"$dir/test.log" 2>&1 || rc=$?
		cp -f "$LOGS/vm/o1off.log" "$dir/console.log" 2>/dev/null || true
		local oks noks
		oks=$(grep -c '^ok ' "$dir/test.log" || true); noks=$(grep -c '^not ok ' "$dir/test.log" || true)
		if [ "$rc" -eq 0 ] && [ "$noks" -eq 0 ] && [ "$oks" -gt 0 ]; then run_res="ok: boots, $oks/$oks o1off checks"
		else run_res="FAILED (exit $rc, $noks of $((oks + noks)) checks failed): ${dir#"$TOP"/}/test.log"; fi ;;
	boot:*)
		cpus=${run#boot:}
		"$TOP/scripts/vm-run.sh" --kernel "$kernel" --cpus "$cpus" --name "matrix-$name" \
			--timeout 300 -- true >"$dir/test.log" 2>&1 || rc=$?
		cp -f "$LOGS/vm/matrix-$name.log" "$dir/console.log" 2>/dev/null || true
		if [ "$rc" -eq 0 ]; then run_res="ok: boots on $cpus CPUs, no splat"
		else run_res="FAILED (exit $rc): ${dir#"$TOP"/}/console.log"; fi ;;
	kst:*)
		IFS=: read -r _ cpus tests <<<"$run"
		# make check built them; a lone "make matrix" builds them once here.
		if [ ! -x "$BUILD/kselftest/install/run_kselftest.sh" ]; then
			FLAVOUR=default "$TOP/scripts/kselftest.sh" build >"$dir/kselftest-build.log" 2>&1 || {
				run_res="FAILED: kselftest build: ${dir#"$TOP"/}/kselftest-build.log"; return; }
		fi
		for t in ${tests//+/ }; do sel+="${sel:+,}sched:$t"; done
		local sum try retried=""
		for try in 1 2; do
			rc=0
			KST_TESTS=$sel "$TOP/scripts/kselftest.sh" run --kernel "$kernel" --cpus "$cpus" \
				--name "matrix-$name" >"$dir/test.log" 2>&1 || rc=$?
			cp -f "$LOGS/vm/matrix-$name.log" "$dir/console.log" 2>/dev/null || true
			cp -f "$BUILD/vm-out/matrix-$name/kselftest.tap" "$dir/kselftest.tap" 2>/dev/null || true
			sum=$(sed -n 's/^kselftest: //p' "$dir/test.log" | tail -n 1)
			[ "$rc" -ne 0 ] || break
			# Say what failed where CI shows it, not only in the log.
			sed -n '/^    not ok\|^    ---\|^    # /p' "$dir/test.log" | head -40 | sed "s/^/    $name: /"
			# These tests judge CPU shares under emulation: one more try,
			# never more, and the summary says so. A splat (126) or no
			# result is not retried.
			[ "$try" -eq 1 ] && [ -n "$sum" ] &&
				retryable_test_failure "$rc" "$dir/test.log" || break
			cp -f "$dir/test.log" "$dir/test-try1.log"
			retried=" (first try: ${sum%%,*}, ${sum#*, }; ${dir#"$TOP"/}/test-try1.log)"
			msg "matrix $name: retrying the timing-sensitive tests once"
		done
		if [ "$rc" -eq 0 ]; then run_res="ok: ${tests//+/, } on $cpus CPU$([ "$cpus" -gt 1 ] && echo s): ${sum:-?}$retried"
		else run_res="FAILED (exit $rc; ${sum:-no result}): ${dir#"$TOP"/}/test.log$retried"; fi ;;
	*) run_res="FAILED: unknown guest run '$run'" ;;
	esac
}

if [ "$dry" -eq 1 ]; then
	for r in "${ROWS[@]}"; do
		IFS='|' read -r name fl frags run covers <<<"$r"
		selected "$name" || continue
		obj=$(objdir "$name" "$fl" "$frags")
		echo "$name: covers $covers"
		if [ -z "$frags" ] && [ "$reuse" -eq 1 ]; then
			echo "  build: reuse ${obj#"$TOP"/}/arch/x86/boot/bzImage"
		elif [ -z "$frags" ]; then
			echo "  build: scripts/build-kernel.sh $fl  (-> ${obj#"$TOP"/}, incremental)"
		else
			echo "  build: OBJ=${obj#"$TOP"/} EXTRA_CONFIG=\"$(for f in $frags; do printf 'kernel/%s ' "$f"; done)\" scripts/build-kernel.sh $fl"
		fi
		if [ "$noboot" -eq 1 ]; then echo "  run: none (--no-boot)"; continue; fi
		case $run in
		o1off) echo "  run: tests/vm/o1off.sh" ;;
		boot:*) echo "  run: scripts/vm-run.sh --kernel ${obj#"$TOP"/}/arch/x86/boot/bzImage --cpus ${run#boot:} --name matrix-$name -- true" ;;
		kst:*) IFS=: read -r _ cpus tests <<<"$run"
			echo "  run: KST_TESTS=$(for t in ${tests//+/ }; do printf 'sched:%s,' "$t"; done | sed 's/,$//') scripts/kselftest.sh run --kernel ${obj#"$TOP"/}/arch/x86/boot/bzImage --cpus $cpus --name matrix-$name" ;;
		esac
	done
	exit 0
fi

[ -f "$TREE/Makefile" ] || die "no kernel tree in $TREE: run 'make prepare' first"
mkdir -p "$MX"
start=$SECONDS
table=()
broken=()
set +e
for r in "${ROWS[@]}"; do
	IFS='|' read -r name fl frags run covers <<<"$r"
	selected "$name" || continue
	obj=$(objdir "$name" "$fl" "$frags")
	dir=$MX/$name
	rm -rf "$dir"; mkdir -p "$dir"
	if [ -n "$frags" ]; then what="$fl + ${frags// /, }"; else what="$fl (make check's)"; fi
	msg "matrix $name: $what (covers $covers)"
	build_res="" build_secs=0 run_res="not run"
	build_row "$name" "$fl" "$frags" "$obj" "$dir"
	msg "matrix $name: build $build_res (${build_secs} s)"
	if [[ $build_res == FAILED* ]]; then
		broken+=("$name (build)")
		run_res="not run (no kernel)"
	elif [ "$noboot" -eq 1 ]; then
		run_res="not run (--no-boot)"
	else
		t0=$SECONDS
		run_row "$name" "$run" "$obj" "$dir"
		run_res+=" ($((SECONDS - t0)) s)"
		[[ $run_res == FAILED* ]] && broken+=("$name (boot/test)")
		msg "matrix $name: $run_res"
	fi
	table+=("| $name | $what | $(config_of "$obj/.config") | $covers | $build_res, ${build_secs} s | $run_res |")
done
set -e

{
	echo "# Configuration matrix"
	echo
	echo "\`scripts/matrix.sh\`, $(date -u '+%Y-%m-%d %H:%M UTC'), tree at $(git -C "$TREE" log -1 --format='%h %s' 2>/dev/null), $((SECONDS - start)) s."
	echo
	echo "| row | fragments | .config | covers | build | boot / tests |"
	echo "| --- | --- | --- | --- | --- | --- |"
	printf '%s\n' "${table[@]}"
	echo
	if [ "${#broken[@]}" -eq 0 ]; then echo "All ${#table[@]} rows pass."
	else echo "Broken: ${broken[*]}."; fi
} >"$MX/summary.md"
cat "$MX/summary.md"
[ "${#broken[@]}" -eq 0 ] || die "matrix: broken: ${broken[*]} (logs in ${MX#"$TOP"/}/NAME/)"
msg "matrix: ${#table[@]} rows pass ($((SECONDS - start)) s); ${MX#"$TOP"/}/summary.md"
