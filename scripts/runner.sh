#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The one test runner: runs the scenarios of tests/scenarios, each in its own
# directory of a new results directory, judges each (scripts/report.py) and
# writes the summary. Modelled on the kernel's rcutorture runner
# (tools/testing/selftests/rcutorture/bin/kvm.sh): scenarios as data, dated
# result directories that are never overwritten, a recheck step.
#
# Usage: scripts/runner.sh [--set SET[,SET...]] [--only NAME[,NAME...]] [--filter TEXT]
#                          [--reuse] [--built FLAVOUR[,...]] [--dry-run] [--list]
#        scripts/runner.sh --recheck [RESULTS-DIR]
#   --set SET    the scenarios whose sets include SET (host, quick, check,
#                matrix, torture, torture-kasan, stress, stress-ng, bench,
#                whole, wakeup-rule, demo, class-cost, study)
#   --only       these scenarios (any set), run in the table's order
#   --filter     of those, the ones whose name contains TEXT
#   --reuse      boot the kernels as they are built; build only missing ones
#                (default: bring every flavour used up to date, incrementally)
#   --built      these flavours were just built (make's prerequisites): reuse them
#   --dry-run    print what would be built and run
#   --list       print the selected scenarios
#   --recheck    judge the runs of RESULTS-DIR again (default: the latest)
#                and rewrite its summary, e.g. after a judge changed
#   VAR=VALUE    (environment) the variables a scenario names (${VAR:-default}
#                in its vm options or command): DURATION of torture and
#                stress runs, BENCH_REPEAT, BENCH_DURATION, ...
#
# Results: build/results/YYYY-MM-DD-HH.MM.SS-SET/ with one directory per
# scenario (scenario: its line; cmd: the command; output.log; exit-status;
# seconds; console-*.log and out-*/ of guest runs; verdict), NAME.try1/ for
# a first try that was retried, builds.txt and summary.md; build/results/latest
# points to the newest. Exit status: 0 if every run passed or skipped.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

SCENARIOS=${SCENARIOS:-$TOP/tests/scenarios}
RESULTS=${RESULTS:-$BUILD/results}
REPORT=$TOP/scripts/report.py

usage() { sed -n '9,32p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
set_name="" only="" filter="" reuse=0 built="" dry=0 list=0 recheck=0 recheck_dir=""
while [ $# -gt 0 ]; do
	case $1 in
	--set) need_value "$@"; set_name=$2; shift 2 ;;
	--only) need_value "$@"; only=$2; shift 2 ;;
	--filter) need_value "$@"; filter=$2; shift 2 ;;
	--reuse) reuse=1; shift ;;
	--built) need_value "$@"; built=$2; shift 2 ;;
	--dry-run) dry=1; shift ;;
	--list) list=1; shift ;;
	--recheck) recheck=1; shift
		if [ $# -gt 0 ] && [[ $1 != -* ]]; then recheck_dir=$1; shift; fi ;;
	-h|--help) usage 0 ;;
	*) die "runner.sh: unknown argument '$1' (try --help)" ;;
	esac
done

if [ "$recheck" -eq 1 ]; then
	dir=${recheck_dir:-$RESULTS/latest}
	[ -d "$dir" ] || die "runner.sh: no results directory $dir"
	exec python3 "$REPORT" summary --rejudge "$(cd "$dir" && pwd -P)"
fi

# The table, comments and blank lines dropped, fields trimmed.
rows=()
while IFS= read -r line; do
	rows+=("$line")
done < <(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$SCENARIOS" |
	 awk -F'|' -v OFS='|' '{ for (i = 1; i <= NF; i++) gsub(/^[[:space:]]+|[[:space:]]+$/, "", $i); print }')

# Validate the table: a bad line is an error, whatever is selected.
all_sets=" host quick check matrix torture torture-kasan stress stress-ng bench whole wakeup-rule demo class-cost study "
names=" "
for r in "${rows[@]}"; do
	IFS='|' read -r name sets fl vm judge retry cmd <<<"$r"
	[[ $name =~ ^[A-Za-z0-9+._-]+$ ]] || die "$SCENARIOS: bad scenario name '$name'"
	[[ $names == *" $name "* ]] && die "$SCENARIOS: scenario '$name' twice"
	names+="$name "
	for s in $sets; do
		[[ $all_sets == *" $s "* ]] || die "$SCENARIOS: $name: unknown set '$s' (sets:$all_sets)"
	done
	[ "$fl" = host ] || is_flavour "$fl" || die "$SCENARIOS: $name: unknown flavour '$fl'"
	case $judge in exit|kselftest|kunit|torture|stress-ng|bench) ;;
	*) die "$SCENARIOS: $name: unknown judge '$judge'" ;; esac
	case $retry in once|-) ;; *) die "$SCENARIOS: $name: retry is 'once' or '-', not '$retry'" ;; esac
	[ -n "$cmd" ] || die "$SCENARIOS: $name: no command"
	if [ "$fl" = host ]; then [ "$vm" = - ] || die "$SCENARIOS: $name: a host run takes no vm options"; fi
done
for s in ${set_name//,/ }; do
	[[ $all_sets == *" $s "* ]] || die "runner.sh: unknown set '$s' (sets:$all_sets)"
done
for f in ${built//,/ }; do is_flavour "$f" || die "runner.sh: --built: unknown flavour '$f'"; done
for v in DURATION BENCH_REPEAT BENCH_WHOLE_REPEAT; do
	[ -z "${!v:-}" ] || [[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		die "runner.sh: $v wants a whole number > 0, got '${!v}'"
done
for o in ${only//,/ }; do
	[[ $names == *" $o "* ]] || die "runner.sh: no scenario '$o' in ${SCENARIOS#"$TOP"/}"
done
[ -n "$set_name$only" ] || die "runner.sh: say which scenarios: --set SET or --only NAMES (try --help)"

selected=()
for r in "${rows[@]}"; do
	IFS='|' read -r name sets _ <<<"$r"
	if [ -n "$only" ]; then [[ ",$only," == *",$name,"* ]] || continue
	else
		in=0
		for s in ${set_name//,/ }; do [[ " $sets " == *" $s "* ]] && in=1; done
		[ "$in" -eq 1 ] || continue
	fi
	[ -z "$filter" ] || [[ $name == *"$filter"* ]] || continue
	selected+=("$r")
done
[ "${#selected[@]}" -gt 0 ] || die "runner.sh: no scenario selected"

# The vm options of a row as words: ${VAR:-x} and $((...)) expanded.
vm_words() { # VM
	[ "$1" = - ] && return 0
	local -a w
	eval "w=($1)" || die "runner.sh: cannot expand vm options '$1'"
	printf '%s\n' "${w[@]}"
}
# The guest command line of a row.
guest_command() { # JUDGE CMD
	local t sel=""
	if [ "$1" = kselftest ]; then
		for t in $2; do
			[[ $t == *:* ]] || t=sched:$t
			[[ $t =~ ^[a-z_]+:[A-Za-z0-9_.-]+$ ]] || die "runner.sh: '$t' is not TARGET:TEST"
			sel+=" -t $t"
		done
		# The guest's root is read-only: run a copy in the guest's /tmp.
		echo "cp -a build/kselftest/install /tmp/kst && cd /tmp/kst && ./run_kselftest.sh -p$sel 2>&1 | tee /tmp/out/kselftest.tap; rc=\${PIPESTATUS[0]}; mkdir -p /tmp/out/logs; find /tmp -maxdepth 1 -type f -exec cp -t /tmp/out/logs {} +; exit \$rc"
	else
		# The variables the command names (${NAME...}) that are set here
		# reach the guest: DURATION=N, BENCH_REPEAT=N, ...
		local v pre=""
		for v in $(grep -oE '\$\{[A-Z_][A-Z0-9_]*' <<<"$2" | cut -c3- | sort -u); do
			[ -n "${!v:-}" ] && pre+="export $v=$(printf '%q' "${!v}"); "
		done
		echo "$pre$2"
	fi
}

if [ "$list" -eq 1 ]; then
	printf '%-24s %-8s %-10s %-5s %s\n' scenario flavour judge retry "vm options"
	for r in "${selected[@]}"; do
		IFS='|' read -r name sets fl vm judge retry cmd <<<"$r"
		printf '%-24s %-8s %-10s %-5s %s\n' "$name" "$fl" "$judge" "$retry" "$vm"
	done
	exit 0
fi

flavours=()
for r in "${selected[@]}"; do
	IFS='|' read -r _ _ fl _ <<<"$r"
	[ "$fl" = host ] || [[ " ${flavours[*]} " == *" $fl "* ]] || flavours+=("$fl")
done

if [ "$dry" -eq 1 ]; then
	for fl in "${flavours[@]}"; do
		if { [ "$reuse" -eq 1 ] || [[ ",$built," == *",$fl,"* ]]; } && [ -f "$(kernel_image "$fl")" ]; then
			echo "kernel $fl: reuse ${BUILD#"$TOP"/}/obj/$fl"
		else
			echo "kernel $fl: scripts/build-kernel.sh $fl  ($(flavour_field "$fl" 2))"
		fi
	done
	for r in "${selected[@]}"; do
		IFS='|' read -r name sets fl vm judge retry cmd <<<"$r"
		if [ "$fl" = host ]; then
			echo "$name: $cmd"
		else
			mapfile -t w < <(vm_words "$vm")
			echo "$name: scripts/vm-run.sh --flavour $fl --name $name ${w[*]} -- bash -c '$(guest_command "$judge" "$cmd")'"
		fi
	done
	exit 0
fi

stamp=$(date -u +%Y-%m-%d-%H.%M.%S)
tag=${set_name//,/+}
rdir=$RESULTS/$stamp-${tag:-only}
n=0
while [ -e "$rdir" ]; do n=$((n + 1)); rdir=$RESULTS/$stamp-${tag:-only}.$n; done
mkdir -p "$rdir"
ln -sfn "$(basename "$rdir")" "$RESULTS/latest"
{
	echo "set=${set_name:-} only=$only filter=$filter reuse=$reuse" \
		"$(env | grep -E '^(DURATION|BENCH_[A-Z]+|DEMO_[A-Z]+|STUDY_[A-Z]+)=' | tr '\n' ' ')"
	echo "tree=$(git -C "$TREE" log -1 --format='%h %s' 2>/dev/null)"
	echo "project=$(git -C "$TOP" log -1 --format='%h %s' 2>/dev/null)"
} >"$rdir/run.txt"
msg "results in ${rdir#"$TOP"/}"

# Kernels first: every flavour used, incrementally (ccache), or as built.
: >"$rdir/builds.txt"
for fl in "${flavours[@]}"; do
	t0=$SECONDS
	if { [ "$reuse" -eq 1 ] || [[ ",$built," == *",$fl,"* ]]; } && [ -f "$(kernel_image "$fl")" ]; then
		res=reused
	elif "$TOP/scripts/build-kernel.sh" "$fl" >"$rdir/build-$fl.log" 2>&1; then
		res=built
	else
		res="FAILED (${rdir#"$TOP"/}/build-$fl.log)"
		tail -n 20 "$rdir/build-$fl.log" >&2
	fi
	echo "$fl|$res|$((SECONDS - t0))" >>"$rdir/builds.txt"
	msg "kernel $fl: $res ($((SECONDS - t0)) s)"
done

# Run one scenario into DIR; the judge's verdict line goes to stdout.
run_one() { # DIR ROW
	local dir=$1 row=$2 name sets fl vm judge retry cmd rc start
	IFS='|' read -r name sets fl vm judge retry cmd <<<"$row"
	mkdir -p "$dir"
	echo "$row" >"$dir/scenario"
	start=$SECONDS
	if [ "$fl" = host ]; then
		echo "$cmd" >"$dir/cmd"
		(cd "$TOP" && SCENARIO_DIR=$dir bash -c "$cmd") >"$dir/output.log" 2>&1
		rc=$?
	elif ! grep -q "^$fl|\(built\|reused\)|" "$rdir/builds.txt"; then
		echo "the $fl kernel did not build (${rdir#"$TOP"/}/build-$fl.log)" | tee "$dir/not-run" >"$dir/output.log"
		rc=125
	else
		local -a w
		mapfile -t w < <(vm_words "$vm")
		echo "${w[*]}" >"$dir/vm"
		local gcmd
		gcmd=$(guest_command "$judge" "$cmd")
		printf 'scripts/vm-run.sh --flavour %s --name %s %s -- bash -c %q\n' \
			"$fl" "$name" "${w[*]}" "$gcmd" >"$dir/cmd"
		SCENARIO_DIR=$dir "$TOP/scripts/vm-run.sh" --flavour "$fl" --name "$name" \
			"${w[@]}" -- bash -c "$gcmd" >"$dir/output.log" 2>&1 &
		local pid=$! seen=0 now progress=$dir/out-$name/progress.log
		# A guest that reports progress (out/progress.log) is followed.
		while kill -0 "$pid" 2>/dev/null; do
			sleep 2
			[ -f "$progress" ] || continue
			now=$(wc -l <"$progress")
			[ "$now" -le "$seen" ] || sed -n "$((seen + 1)),${now}p" "$progress" | sed 's/^/    /' >&2
			seen=$now
		done
		wait "$pid"
		rc=$?
	fi
	echo "$rc" >"$dir/exit-status"
	echo $((SECONDS - start)) >"$dir/seconds"
	python3 "$REPORT" judge "$dir"
}

total=${#selected[@]} i=0 failed=()
for r in "${selected[@]}"; do
	IFS='|' read -r name sets fl vm judge retry cmd <<<"$r"
	i=$((i + 1))
	printf '[%d/%d] %-24s ' "$i" "$total" "$name"
	dir=$rdir/$name
	verdict=$(run_one "$dir" "$r")
	if [ "$retry" = once ] && [ "$(cat "$dir/verdict.retryable" 2>/dev/null)" = yes ]; then
		mv "$dir" "$dir.try1"
		printf 'failed once (%s), retrying:\n%*s ' "${verdict#*): }" 25 ''
		verdict=$(run_one "$dir" "$r")
		echo "${name}.try1" >"$dir/retried"
		python3 "$REPORT" judge "$dir" >/dev/null
		verdict=$(cat "$dir/verdict")
	fi
	echo "$verdict"
	[[ $verdict == FAIL* ]] && { failed+=("$name"); python3 "$REPORT" explain "$dir" | sed 's/^/    /'; }
done

python3 "$REPORT" summary "$rdir"
