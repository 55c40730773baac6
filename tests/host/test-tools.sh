#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests for tools/nicebench, tools/o1run and tools/pingpong. They run on any kernel:
# the host is expected NOT to have SCHED_O1, which is checked as well.
#
# KTAP output (tests/lib/ktap.sh); exits non-zero if anything failed.

set -euo pipefail

TOOLS=$(cd "$(dirname "$0")/../../tools" && pwd)
. "$TOOLS/../tests/lib/ktap.sh"
NB=$TOOLS/nicebench
O1=$TOOLS/o1run
PP=$TOOLS/pingpong
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ktap_print_header

# run CMD...: run it, stdout in $TMP/out, stderr in $TMP/err, status in $rc
run()
{
	rc=0
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
}

# verdict DESCRIPTION COND: after a run, pass if COND (eval) holds, else
# fail showing the run's status and output
verdict()
{
	if eval "$2"; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1"
		{ echo "rc=$rc"; cat "$TMP/out" "$TMP/err"; } | ktap_comment
	fi
}

# usage_err REGEX DESCRIPTION CMD...: exit 2, REGEX on stderr, nothing on stdout
usage_err()
{
	# shellcheck disable=SC2034 # re: in verdict's condition
	local re=$1 desc=$2

	shift 2
	run "$@"
	verdict "$desc" '[ "$rc" -eq 2 ] && grep -Eq -- "$re" "$TMP/err" && ! [ -s "$TMP/out" ]'
}

# py DESCRIPTION SCRIPT: after a successful run, run python3 SCRIPT on
# $TMP/out (the run's stdout), ok if it exits 0
py()
{
	# shellcheck disable=SC2034 # script: in verdict's condition
	local desc=$1 script=$2

	verdict "$desc" '[ "$rc" -eq 0 ] && python3 -c "$script" "$TMP/out" 2>>"$TMP/err" >&2'
}

# --- build ---------------------------------------------------------------

run make -C "$TOOLS"
verdict "make -C tools builds nicebench, o1run and pingpong with -Werror" \
	'[ "$rc" -eq 0 ] && [ -x "$NB" ] && [ -x "$O1" ] && [ -x "$PP" ]'
[ "$KTAP_CNT_FAIL" -eq 0 ] || ktap_done
mkdir -p "$TMP/tools" && cp "$TOOLS"/*.c "$TOOLS"/*.h "$TOOLS/Makefile" "$TMP/tools/"
ktap_expect nonzero "no patched kernel headers in $TMP/none: run 'make headers'" \
	"the tools refuse to build without the patched uapi headers, naming the target" \
	make -C "$TMP/tools" KHDR_DIR="$TMP/none"
printf '#define _GNU_SOURCE\n#include <sched.h>\n#include <linux/sched.h>\n#include <linux/sched/types.h>\n_Static_assert(SCHED_O1 == 8, "");\n_Static_assert(sizeof(struct sched_attr) == SCHED_ATTR_SIZE_VER1, "");\nint main(void) { return 0; }\n' >"$TMP/uapi.c"
ktap_check "SCHED_O1 is 8 and struct sched_attr is VER1 in the headers the tools build with" \
	cc -Wall -Werror -isystem "$TOOLS/../build/obj/default/usr/include" -o "$TMP/uapi" "$TMP/uapi.c"

# --- nicebench usage ------------------------------------------------------

ktap_expect 0 'Usage: nicebench' "nicebench --help exits 0 and prints usage" "$NB" --help
usage_err "unrecognized option '--bogus'" "nicebench rejects an unknown option (exit 2)" \
	"$NB" --bogus
usage_err "unexpected argument 'extra'" "nicebench rejects a stray argument (exit 2)" \
	"$NB" --nice 0 extra
usage_err "--nice LIST is required" "nicebench without --nice is a usage error" \
	"$NB" --duration 1
usage_err "--nice '20'.*-20..19" "nicebench rejects nice 20" "$NB" --nice 20 --ideal-only
usage_err "--nice '-21'.*-20..19" "nicebench rejects nice -21" "$NB" --nice -21 --ideal-only
usage_err "--nice '0,x'.*element 2 'x'" "nicebench rejects a non-numeric nice ('x')" \
	"$NB" --nice 0,x --ideal-only
usage_err "--nice: empty list" "nicebench rejects an empty --nice list" \
	"$NB" --nice "" --ideal-only
usage_err "--nice '0,,1': empty element 2" "nicebench rejects an empty nice element (0,,1)" \
	"$NB" --nice 0,,1 --ideal-only
usage_err "--nice '1.5'" "nicebench rejects a fractional nice (1.5)" \
	"$NB" --nice 1.5 --ideal-only
usage_err "--start has 1 CPUs but --nice has 2 tasks" \
	"nicebench rejects a --start list of the wrong length" "$NB" --nice 0,0 --start 0

bad_cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)) + 1)')
usage_err "CPU $bad_cpu \(task 1\) is not in the allowed CPU mask" \
	"nicebench rejects a --start CPU outside the allowed mask ($bad_cpu)" \
	"$NB" --nice 0,0 --start 0,"$bad_cpu"
usage_err "--start '0,-1'" "nicebench rejects a negative --start CPU" \
	"$NB" --nice 0,0 --start 0,-1
usage_err "--policy 'fifo'" "nicebench rejects an unknown --policy (fifo)" \
	"$NB" --nice 0 --policy fifo
usage_err "--duration '0'" "nicebench rejects --duration 0" "$NB" --nice 0 --duration 0
usage_err "--duration '-1'" "nicebench rejects a negative --duration" \
	"$NB" --nice 0 --duration -1
usage_err "--duration 'nan'" "nicebench rejects --duration nan" "$NB" --nice 0 --duration nan
usage_err "--duration '1s'" "nicebench rejects --duration with trailing junk (1s)" \
	"$NB" --nice 0 --duration 1s
usage_err "--release 'x'" "nicebench rejects a non-numeric --release" \
	"$NB" --nice 0 --start 0 --release x
usage_err "--interval '-5'" "nicebench rejects a negative --interval" \
	"$NB" --nice 0 --interval -5
usage_err "--cpus '0'" "nicebench rejects --cpus 0" "$NB" --nice 0 --cpus 0 --ideal-only

# --- nicebench ideal shares -----------------------------------------------

ktap_expect 0 '^ +0 +0 o1 +1024 +95\.26$' \
	"ideal-only table: o1 0,0,19,19 on 2 CPUs gives nice 0 weight 1024 and 95.26%" \
	"$NB" --ideal-only --nice 0,0,19,19 --cpus 2 --policy o1
ktap_expect 0 '^ +3 +19 o1 +51 +4\.74$' \
	"ideal-only table: o1 0,0,19,19 on 2 CPUs gives nice 19 weight 51 and 4.74%" \
	"$NB" --ideal-only --nice 0,0,19,19 --cpus 2 --policy o1

run "$NB" --ideal-only --nice 0,0,19,19 --cpus 2 --policy o1 --json - --quiet
py "ideal-only JSON: o1 0,0,19,19 / 2 CPUs = 2048/2150 and 102/2150 exactly" '
import json, sys
d = json.load(open(sys.argv[1]))
s = [t["ideal"] for t in d["tasks"]]
exp = [1024 * 2 / 2150] * 2 + [51 * 2 / 2150] * 2
assert d["policy"] == "o1" and d["cpus"] == 2
assert all(abs(a - b) < 1e-6 for a, b in zip(s, exp)), s
'

run "$NB" --ideal-only --nice 0 --cpus 2 --json - --quiet
py "ideal-only: a single nice 0 task on 2 CPUs is capped at 100%" '
import json, sys
d = json.load(open(sys.argv[1]))
assert [t["ideal"] for t in d["tasks"]] == [1.0], d
'

run "$NB" --ideal-only --nice -20,0,0 --cpus 2 --policy normal --json - --quiet
py "ideal-only: normal -20,0,0 on 2 CPUs caps nice -20 at 100% and gives 50% to each nice 0" '
import json, sys
d = json.load(open(sys.argv[1]))
assert [t["ideal"] for t in d["tasks"]] == [1.0, 0.5, 0.5], d
'

run "$NB" --ideal-only --nice 0,19,10,5,-1,-20 --policy o1 --json - --quiet
py "ideal-only: o1 timeslice weights are 1024,51,512,768,4300,8192" '
import json, sys
d = json.load(open(sys.argv[1]))
assert [t["weight"] for t in d["tasks"]] == [1024, 51, 512, 768, 4300, 8192], d
'

run "$NB" --ideal-only --nice -20,0,19 --policy normal --json - --quiet
py "ideal-only: normal uses the CFS weights 88761, 1024, 15" '
import json, sys
d = json.load(open(sys.argv[1]))
assert [t["weight"] for t in d["tasks"]] == [88761, 1024, 15], d
'

run "$NB" --ideal-only --nice 0,0,19 --cpus 1 --policy idle --json - --quiet
py "ideal-only: idle gives every task weight 3 (equal thirds of 1 CPU)" '
import json, sys
d = json.load(open(sys.argv[1]))
assert all(t["weight"] == 3 and abs(t["ideal"] - 1 / 3) < 1e-6 for t in d["tasks"]), d
'

run "$NB" --ideal-only --nice 0,0,0 --json - --quiet
py "ideal-only: --cpus defaults to the allowed CPU count ($(nproc))" "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['cpus'] == $(nproc), d
"

# --- nicebench real runs on this host -------------------------------------

run "$NB" --nice 0,0 --duration 0.5 --json -
verdict "real run --nice 0,0 --duration 0.5: valid JSON on stdout, table on stderr" \
	'[ "$rc" -eq 0 ] && python3 -m json.tool "$TMP/out" >/dev/null 2>&1 && grep -q "share%" "$TMP/err"'
py "real run: 2 tasks with shares in [0, 1.05], window ~0.5 s, summary present" '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["tasks"]) == 2
assert all(0 <= t["share"] <= 1.05 for t in d["tasks"]), d["tasks"]
assert all(t["start_cpu"] is None and t["end_cpu"] >= 0 for t in d["tasks"])
assert 0.45 < d["window_s"] < 0.7, d["window_s"]
assert d["release_ms"] == 0 and "samples" not in d
assert d["summary"]["ratio_nice0_nice19"] is None
'

run "$NB" --nice 0,0,19,19 --start 0,0,0,0 --release 100 --duration 0.5 --interval 100 \
	--json "$TMP/run.json" --quiet
run_rc=$rc
if [ -s "$TMP/out" ] || [ -s "$TMP/err" ]; then
	quiet_ok=0
else
	quiet_ok=1
fi
cp "$TMP/run.json" "$TMP/out" 2>/dev/null || : >"$TMP/out"
py "pinned run with --start/--release/--interval: 5 samples, start CPUs, nice0/19 ratio" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["release_ms"] == 100 and d["interval_ms"] == 100
assert [t["start_cpu"] for t in d["tasks"]] == [0, 0, 0, 0]
assert all(0 <= t["share"] <= 1.05 and t["migrations"] >= 0 for t in d["tasks"])
k = [t["nr_migrations_kernel"] for t in d["tasks"]]
assert all(v is None or v >= 0 for v in k), k
assert len(d["samples"]) == 5, len(d["samples"])
for s in d["samples"]:
	assert len(s["share"]) == 4 and len(s["cpu"]) == 4
	assert all(0 <= x <= 1.2 for x in s["share"]), s
r = d["summary"]["ratio_nice0_nice19"]
assert r is not None and r > 1, r
'
if [ "$run_rc" -eq 0 ] && [ "$quiet_ok" -eq 1 ]; then
	ktap_test_pass "--json FILE with --quiet writes nothing to stdout/stderr"
else
	ktap_test_fail "--json FILE with --quiet writes nothing to stdout/stderr"
fi

ktap_expect 1 "this kernel has no SCHED_O1 \(policy 8\): boot a kernel with the smpnice series" \
	"nicebench --policy o1 on this kernel fails with exit 1 and the no-SCHED_O1 message" \
	"$NB" --nice 0,19 --policy o1 --duration 0.2
ktap_expect 0 '^ +1 +5 idle ' "nicebench --policy idle runs on this host" \
	"$NB" --nice 0,5 --policy idle --duration 0.2
ktap_expect 1 "cannot open --json file" "nicebench reports an unwritable --json file (exit 1)" \
	"$NB" --nice 0 --duration 0.1 --json /nonexistent/dir/x.json

# Unprivileged checks need a user that can reach the binaries.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
   setpriv --reuid=65534 --regid=65534 --clear-groups "$NB" --help >/dev/null 2>&1; then
	nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
elif [ "$(id -u)" -ne 0 ]; then
	nobody=()
else
	nobody=(none)
fi
if [ "${nobody[0]:-}" = none ] || [ "$(ulimit -e)" != 0 ]; then
	ktap_test_skip "nicebench: negative nice without privilege fails with EPERM explained: no unprivileged user available or RLIMIT_NICE set"
else
	ktap_expect 1 "not permitted: a negative nice needs CAP_SYS_NICE or RLIMIT_NICE" \
		"nicebench: negative nice without privilege fails (exit 1) with EPERM explained" \
		"${nobody[@]}" "$NB" --nice -5,0 --duration 0.1
fi

# SIGTERM during a run: parent exits 128+15, no child survives.
"$NB" --nice 0,0 --duration 30 --quiet >/dev/null 2>"$TMP/err" &
nb_pid=$!
kids=""
for _ in $(seq 50); do
	kids=$(pgrep -P "$nb_pid" || true)
	[ "$(echo "$kids" | grep -c .)" -eq 2 ] && break
	sleep 0.1
done
sleep 0.2
kill -TERM "$nb_pid"
rc=0
wait "$nb_pid" || rc=$?
alive=0
sleep 0.1
for k in $kids; do
	if kill -0 "$k" 2>/dev/null; then
		alive=1
	fi
done
echo "kids:" $kids "alive: $alive" >"$TMP/out"
verdict "SIGTERM: nicebench kills and reaps its tasks and exits 143" \
	'[ "$rc" -eq 143 ] && [ -n "$kids" ] && [ "$alive" -eq 0 ] && grep -q "interrupted by signal 15" "$TMP/err"'

# SIGKILL of the parent: PR_SET_PDEATHSIG takes the children down too.
"$NB" --nice 0,0 --duration 30 --quiet >/dev/null 2>&1 &
nb_pid=$!
kids=""
for _ in $(seq 50); do
	kids=$(pgrep -P "$nb_pid" || true)
	[ "$(echo "$kids" | grep -c .)" -eq 2 ] && break
	sleep 0.1
done
{ kill -KILL "$nb_pid" && wait "$nb_pid"; } 2>/dev/null || true
# A killed child may stay a zombie until its new parent reaps it: that is
# dead. Up to 5 s on a loaded host.
alive=0
for _ in $(seq 50); do
	alive=0
	for k in $kids; do
		st=$(awk '{ print $3 }' "/proc/$k/stat" 2>/dev/null || true)
		if [ -n "$st" ] && [ "$st" != Z ]; then
			alive=1
		fi
	done
	[ "$alive" -eq 0 ] && break
	sleep 0.1
done
echo "kids:" $kids "alive: $alive" >"$TMP/out"
: >"$TMP/err"
verdict "SIGKILL of the parent: PDEATHSIG kills the tasks" '[ -n "$kids" ] && [ "$alive" -eq 0 ]'

# --- o1run ----------------------------------------------------------------

ktap_expect 0 'Usage: o1run' "o1run --help exits 0 and prints usage" "$O1" --help
usage_err "missing command" "o1run without a command is a usage error" "$O1"
usage_err "missing command" "o1run with options but no command is a usage error" "$O1" -n 5
usage_err "--nice '20'" "o1run rejects nice 20" "$O1" -n 20 true
usage_err "--nice '-21'" "o1run rejects nice -21" "$O1" -n -21 true
usage_err "--nice 'abc'" "o1run rejects a non-numeric nice" "$O1" --nice abc true
usage_err "--pid 'x'" "o1run rejects a non-numeric pid" "$O1" -p x
usage_err "--pid '0'" "o1run rejects pid 0" "$O1" -p 0
usage_err "--pid '-3'" "o1run rejects a negative pid" "$O1" -p -3
usage_err "either -p PID or a command" "o1run rejects -p PID together with a command" \
	"$O1" -p $$ true
usage_err "--show needs -p PID" "o1run --show without -p is a usage error" "$O1" --show
usage_err "unrecognized option '--bogus'" "o1run rejects an unknown option" "$O1" --bogus true

no_o1="this kernel has no SCHED_O1 \(policy 8\): boot a kernel with the smpnice series"
ktap_expect 1 "^o1run: $no_o1\$" \
	"o1run COMMAND on this kernel fails with exit 1 and the no-SCHED_O1 message" \
	"$O1" true
ktap_expect 1 "^o1run: $no_o1\$" \
	"o1run -p PID on this kernel fails with exit 1 and the no-SCHED_O1 message" \
	"$O1" -p $$
ktap_expect 0 "^pid $$: policy SCHED_OTHER \(0\), nice -?[0-9]+, timeslice [0-9.]+ ms" \
	"o1run --show -p \$\$ prints SCHED_OTHER, nice and time slice" "$O1" --show -p $$

true &
dead=$!
wait "$dead"
ktap_expect 1 "no such process: $dead" "o1run -p of a vanished pid fails with exit 1 (ESRCH)" \
	"$O1" --normal -p "$dead"
ktap_expect 0 "^7$" "o1run --normal -n 7 COMMAND execs COMMAND with nice 7" \
	"$O1" --normal -n 7 sh -c nice
ktap_expect 127 "failed to execute '/nonexistent/cmd'" \
	"o1run: a command that cannot be found exits 127" "$O1" --normal /nonexistent/cmd

sleep 30 &
sl=$!
run "$O1" --normal -n 3 -R -p "$sl"
if [ "$rc" -eq 0 ]; then
	ktap_expect 0 "policy SCHED_OTHER \(0\), nice 3, .*reset-on-fork" \
		"o1run --normal -n 3 -R -p PID changes another task (nice 3, reset-on-fork)" \
		"$O1" --show -p "$sl"
else
	verdict "o1run --normal -n 3 -R -p PID changes another task (nice 3, reset-on-fork)" false
fi
kill "$sl" 2>/dev/null || true
wait "$sl" 2>/dev/null || true

if [ "${nobody[0]:-}" = none ] || [ "$(ulimit -e)" != 0 ]; then
	ktap_test_skip "o1run: lowering nice without privilege fails with EPERM explained: no unprivileged user available or RLIMIT_NICE set"
else
	ktap_expect 1 "not permitted: lowering nice needs CAP_SYS_NICE or RLIMIT_NICE" \
		"o1run: lowering nice without privilege fails (exit 1) with EPERM explained" \
		"${nobody[@]}" "$O1" --normal -n -5 true
fi

# --- pingpong (make bench's starvation check) ------------------------------

run "$PP" -n 300 -H 1 -c 0 -t 60
verdict "pingpong: 300 round trips beside a hog on CPU 0 end, with the time and the rate" \
	'[ "$rc" -eq 0 ] && grep -q "^300 round trips on CPU 0 beside 1 hog$" "$TMP/out" &&
	 grep -Eq "^Total time: [0-9]+\.[0-9]{3} \[sec\]$" "$TMP/out" &&
	 grep -Eq "^[0-9.]+ round trips per second$" "$TMP/out"'
run "$PP" -n 50 -H 0
verdict "pingpong -H 0: no hog" '[ "$rc" -eq 0 ] && grep -q "beside 0 hogs" "$TMP/out"'
usage_err "-n wants a number from 1 to" "pingpong -n 0 is a usage error" "$PP" -n 0
usage_err "-H wants a number from 0 to 64, got '65'" "pingpong -H 65 is a usage error" "$PP" -H 65
usage_err "-c wants a number" "pingpong -c x is a usage error" "$PP" -c x
usage_err "usage: pingpong" "pingpong with an unknown option prints its usage" "$PP" -z
ktap_expect nonzero "sched_setaffinity" "pingpong on a CPU the machine does not have fails, naming the call" \
	"$PP" -n 1 -c 1023

# --- demo-report.py (make demo's table and plot) ----------------------------

DR=$TOOLS/demo-report.py
python3 -c '
import json, sys
for k, s in enumerate(([0.95, 0.94, 0.05, 0.05], [0.98, 0.98, 0.02, 0.02])):
	json.dump({"tasks": [{"nice": n, "share": x, "ideal": x, "migrations": 0}
			     for n, x in zip((0, 0, 19, 19), s)],
		   "summary": {"ratio_nice0_nice19": s[0] / s[2]}},
		  open(f"{sys.argv[1]}/demo{k}.json", "w"))' "$TMP"
ktap_expect 0 '^# table: build/demo/demo\.md$' \
	"demo-report.py --show-as build/demo prints the table's path under the link, not OUTDIR" \
	"$DR" --show-as build/demo "$TMP/demo" "O1 sched_smpnice 2=$TMP/demo0.json" "CFS/EEVDF=$TMP/demo1.json"
ktap_eval "demo-report.py --show-as writes its files in OUTDIR (demo.md, demo.gp)" \
	'[ -s "$TMP/demo/demo.md" ] && [ -s "$TMP/demo/demo.gp" ] && ! grep -q "$TMP" <<<"$KTAP_OUTPUT"'
ktap_eval "demo-report.py: the legend is plain text, so 'sched_smpnice 2' keeps its underscore" \
	'grep -q "^set key .*noenhanced" "$TMP/demo/demo.gp" && grep -q "title '"'"'O1 sched_smpnice 2'"'"'" "$TMP/demo/demo.gp"'
ktap_expect 0 "^# table: $TMP/demo/demo\.md\$" "demo-report.py without --show-as prints OUTDIR's paths" \
	"$DR" "$TMP/demo" "CFS/EEVDF=$TMP/demo1.json"
usage_err "--show-as needs a directory" "demo-report.py --show-as without a directory is a usage error" \
	"$DR" --show-as

ktap_done
