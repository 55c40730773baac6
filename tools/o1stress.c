// SPDX-License-Identifier: GPL-2.0
/*
 * o1stress - stress the SCHED_O1 scheduling class (policy 8).
 *
 * N forked workers run under SCHED_O1 with random nice values and, until
 * the deadline, do random operations: CPU spins, sleeps, yields, nice
 * changes, policy switches (O1, NORMAL, BATCH, IDLE and short FIFO
 * stints), policy changes of sibling workers, affinity changes, forks,
 * a shared priority-inheritance mutex and sched_getattr() checks.
 * Optionally (--hotplug) the main process takes CPUs offline and back.
 *
 * The main process runs as SCHED_FIFO 1 (so the workers cannot starve
 * it), is never the target of a policy change, collects per-worker
 * operation counts from a MAP_SHARED page and fails the run if a worker
 * fails, gets stuck, leaves a child unreaped or sees an unexpected error.
 *
 * Meant to be run as root in a throwaway VM. --policy-normal (debugging)
 * uses SCHED_NORMAL wherever SCHED_O1 would be used, so that the tool
 * itself can be tested on any kernel.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#define PROG			"o1stress"
#include "sched_o1.h"

#define MAX_WORKERS		1024
#define SPIN_CHECK		2048	/* spin iterations between clock reads */

#define SPIN_MAX_NS		(5 * NSEC_PER_MSEC)
#define SPIN_WALL_CAP_NS	(200 * NSEC_PER_MSEC)
#define SLEEP_MAX_NS		(3 * NSEC_PER_MSEC)
#define FIFO_SPIN_MAX_NS	(2 * NSEC_PER_MSEC)
#define FIFO_PRIO_MAX		5
#define PI_HOLD_MAX_NS		(1 * NSEC_PER_MSEC)
#define PI_HOLD_WALL_CAP_NS	(20 * NSEC_PER_MSEC)
#define PI_TIMEOUT_NS		(100 * NSEC_PER_MSEC)
#define CHILD_SPIN_MAX_NS	(10 * NSEC_PER_MSEC)
#define TICK_NS			(100 * NSEC_PER_MSEC)
#define PROGRESS_NS		(10 * NSEC_PER_SEC)
#define GRACE_NS		(30 * NSEC_PER_SEC)
#define KILL_WAIT_NS		(10 * NSEC_PER_SEC)

#define EXIT_SKIP		77
#define WORKER_SETUP_FAILED	3

/*
 * Per-worker counters. The first NR_OPS are the operations as chosen, the
 * rest are outcomes. The names are the JSON keys.
 */
enum {
	C_SPIN, C_SLEEP, C_YIELD, C_NICE, C_POLICY, C_SIBLING, C_AFFINITY,
	C_FORK, C_PI, C_CHECK,
	C_POL_O1, C_POL_NORMAL, C_POL_BATCH, C_POL_IDLE, C_POL_FIFO,
	C_FIFO_RETURN,
	C_SIB_OK, C_SIB_ESRCH, C_SIB_SKIP,
	C_AFF_SUBSET, C_AFF_ALL, C_AFF_EINVAL,
	C_FORKS, C_REAPS, C_FORK_SKIP, C_GC_FORKS, C_GC_REAPS, C_CHILD_FAIL,
	C_PI_LOCKED, C_PI_IN_FIFO, C_PI_TIMEOUT, C_PI_OWNER_DIED,
	C_CHECK_EXACT, C_CHECK_LOOSE, C_BAD_POLICY, C_BAD_NICE, C_BAD_FLAGS,
	C_EPERM, C_ERRORS,
	NR_CNT
};
#define NR_OPS			(C_CHECK + 1)

static const char *const cnt_names[NR_CNT] = {
	[C_SPIN]		= "spin",
	[C_SLEEP]		= "sleep",
	[C_YIELD]		= "yield",
	[C_NICE]		= "nice",
	[C_POLICY]		= "policy",
	[C_SIBLING]		= "sibling",
	[C_AFFINITY]		= "affinity",
	[C_FORK]		= "fork",
	[C_PI]			= "pi",
	[C_CHECK]		= "check",
	[C_POL_O1]		= "policy_o1",
	[C_POL_NORMAL]		= "policy_normal",
	[C_POL_BATCH]		= "policy_batch",
	[C_POL_IDLE]		= "policy_idle",
	[C_POL_FIFO]		= "policy_fifo",
	[C_FIFO_RETURN]		= "fifo_return",
	[C_SIB_OK]		= "sibling_ok",
	[C_SIB_ESRCH]		= "sibling_esrch",
	[C_SIB_SKIP]		= "sibling_skip",
	[C_AFF_SUBSET]		= "affinity_subset",
	[C_AFF_ALL]		= "affinity_all",
	[C_AFF_EINVAL]		= "affinity_einval",
	[C_FORKS]		= "forks",
	[C_REAPS]		= "reaps",
	[C_FORK_SKIP]		= "fork_skip",
	[C_GC_FORKS]		= "grandchildren",
	[C_GC_REAPS]		= "grandchildren_reaped",
	[C_CHILD_FAIL]		= "child_failures",
	[C_PI_LOCKED]		= "pi_locked",
	[C_PI_IN_FIFO]		= "pi_in_fifo",
	[C_PI_TIMEOUT]		= "pi_timeouts",
	[C_PI_OWNER_DIED]	= "pi_owner_died",
	[C_CHECK_EXACT]		= "check_exact",
	[C_CHECK_LOOSE]		= "check_loose",
	[C_BAD_POLICY]		= "bad_policy",
	[C_BAD_NICE]		= "bad_nice",
	[C_BAD_FLAGS]		= "bad_flags",
	[C_EPERM]		= "eperm",
	[C_ERRORS]		= "errors",
};

/* Relative weights of the operations of the worker loop. */
static const int op_weight[NR_OPS] = {
	[C_SPIN]	= 20,
	[C_SLEEP]	= 15,
	[C_YIELD]	= 10,
	[C_NICE]	= 10,
	[C_POLICY]	= 10,
	[C_SIBLING]	= 8,
	[C_AFFINITY]	= 8,
	[C_FORK]	= 5,
	[C_PI]		= 8,
	[C_CHECK]	= 6,
};

/* Own policy switches, in the order of C_POL_*. */
enum { SW_O1, SW_NORMAL, SW_BATCH, SW_IDLE, SW_FIFO, NR_SW };

/* Steps of a worker's child, reported in wslot.child_err */
enum { CS_PDEATHSIG = 1, CS_SETATTR, CS_FORK, CS_WAIT, CS_GC_STATUS };

static const char *const child_steps[] = {
	[CS_PDEATHSIG]	= "prctl(PR_SET_PDEATHSIG)",
	[CS_SETATTR]	= "sched_setattr",
	[CS_FORK]	= "fork of the grandchild",
	[CS_WAIT]	= "waitpid of the grandchild",
	[CS_GC_STATUS]	= "grandchild exit status",
};

/* One cache-line aligned slot per worker in the shared page. */
struct wslot {
	long cnt[NR_CNT];
	int64_t max_op_ns;	/* longest single operation */
	int max_op;		/* which one */
	int cur_op;		/* operation in progress, -1 none */
	pid_t child;		/* live child, 0 if none */
	int child_err;		/* step | errno << 8 of a failed child */
	long sib_started;	/* policy changes by siblings: begun */
	long sib_finished;	/* ... and done */
	int done;
	char err[192];		/* first error */
} __aligned(64);

struct shared {
	pthread_mutex_t pi_lock;
	int64_t deadline;
	pid_t pids[MAX_WORKERS];
	struct wslot slot[];
};

static struct {
	double duration;
	int workers;
	uint64_t seed;
	bool have_seed;
	bool no_fifo;
	bool hotplug;
	bool policy_normal;
	const char *json;
} opt = {
	.duration	= 60.0,
};

/* What the main process could get; EPERM is expected beyond that. */
static struct {
	bool fifo;
	bool nice;
	const char *main_mode;
} priv;

static int o1_policy = SCHED_O1;
static const char *o1_name = "SCHED_O1";
static cpu_set_t all_cpus;
static int ncpus;
static struct shared *sh;
static size_t sh_size;
static pid_t main_pid;

static volatile sig_atomic_t got_signal;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [--duration SEC] [--workers N] [--seed S] [--no-fifo]\n"
"                [--hotplug] [--json FILE]\n"
"\n"
"Stress the SCHED_O1 scheduling class (policy 8). Worker processes run under\n"
"SCHED_O1 with random nice values and, until the deadline, do random\n"
"operations: CPU spins (0-5 ms), sleeps (0-3 ms), sched_yield(), nice changes,\n"
"own policy switches (O1, NORMAL, BATCH, IDLE, and FIFO stints of at most\n"
"2 ms of spinning that always end in O1), switching a sibling worker to O1 or\n"
"NORMAL, affinity changes, forks (at most one live child per worker, which may\n"
"fork a grandchild), a shared priority-inheritance mutex (timed lock, 100 ms)\n"
"and sched_getattr() checks. The main process runs as SCHED_FIFO 1 if it may.\n"
"Meant to be run as root in a throwaway VM.\n"
"\n"
"Options:\n"
"  -d, --duration SEC    run time in seconds (float, default 60)\n"
"  -w, --workers N       worker processes, 1..%d (default: 2 x the CPUs in\n"
"                        the affinity mask)\n"
"  -s, --seed S          PRNG seed; worker i uses S + i (default: from the time\n"
"                        and pid, printed so that a run can be repeated)\n"
"      --no-fifo         no SCHED_FIFO stints\n"
"      --hotplug         every 1-3 s take a random CPU other than CPU 0 offline\n"
"                        and bring it back after 0.5-1 s (needs root); every\n"
"                        CPU is online again at the end\n"
"  -j, --json FILE       write a JSON summary to FILE ('-' = stdout; the table\n"
"                        then goes to stderr)\n"
"  -h, --help            show this help\n"
"\n"
"Debugging:\n"
"      --policy-normal   use SCHED_NORMAL wherever SCHED_O1 would be used (tests\n"
"                        the tool itself on a kernel without SCHED_O1)\n"
"\n"
"Exit status: 0 pass, 1 failure (a worker failed, got stuck, left a child\n"
"unreaped or saw an unexpected error; a hotplug failure), 2 usage error,\n"
"77 this kernel has no SCHED_O1.\n", MAX_WORKERS);
}

static int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!(*s >= '0' && *s <= '9'))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = {
		.tv_sec		= ns / NSEC_PER_SEC,
		.tv_nsec	= ns % NSEC_PER_SEC,
	};

	return ts;
}

/* splitmix64: any seed, including 0, gives a good sequence. */
static uint64_t rnd_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n) (n > 0; the modulo bias is irrelevant here) */
static uint64_t rnd_below(uint64_t *s, uint64_t n)
{
	return rnd_next(s) % n;
}

/* uniform in [lo, hi] */
static long rnd_range(uint64_t *s, long lo, long hi)
{
	return lo + (long)rnd_below(s, (uint64_t)(hi - lo + 1));
}

static void cnt_inc(struct wslot *s, int c)
{
	__atomic_fetch_add(&s->cnt[c], 1, __ATOMIC_RELAXED);
}

static long cnt_get(struct wslot *s, int c)
{
	return __atomic_load_n(&s->cnt[c], __ATOMIC_RELAXED);
}

static int set_attr(pid_t pid, int policy, int nice, int prio)
{
	struct sched_attr attr = {
		.size		= sizeof(attr),
		.sched_policy	= policy,
		.sched_nice	= nice,
		.sched_priority	= prio,
	};

	return sched_setattr(pid, &attr, 0);
}

/* Burn up to @cpu of this thread's CPU time, but no more than @wall of wall time. */
static void spin(int64_t cpu, int64_t wall)
{
	int64_t c0, w0;
	uint64_t x;
	int i;

	if (cpu <= 0)
		return;
	c0 = cpu_ns();
	w0 = now_ns();
	x = (uint64_t)w0;
	for (;;) {
		for (i = 0; i < SPIN_CHECK; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ __volatile__("" : "+r" (x));
		}
		if (cpu_ns() - c0 >= cpu || now_ns() - w0 >= wall)
			break;
	}
}

/* ------------------------------------------------------------------ */
/* Worker                                                              */

static struct wslot *me;
static int my_idx;
static uint64_t rng;

/*
 * What this worker last set on itself, and whether a sibling may have
 * changed it since (see snapshot_sibs()).
 */
static struct {
	int policy;
	int nice;
	bool pol_valid;
	long pol_snap;
	bool nice_valid;
	long nice_snap;
} own;

static void __printf(1, 2) worker_error(const char *fmt, ...)
{
	va_list ap;

	if (!cnt_get(me, C_ERRORS)) {
		va_start(ap, fmt);
		vsnprintf(me->err, sizeof(me->err), fmt, ap);
		va_end(ap);
	}
	cnt_inc(me, C_ERRORS);
}

/* EPERM is expected only for what the main process could not get itself. */
static bool eperm_expected(bool fifo)
{
	return fifo ? !priv.fifo : !priv.nice;
}

static const char *policy_name(int policy)
{
	if (policy == o1_policy)
		return o1_name;
	switch (policy) {
	case SCHED_OTHER:	return "SCHED_NORMAL";
	case SCHED_FIFO:	return "SCHED_FIFO";
	case SCHED_RR:		return "SCHED_RR";
	case SCHED_BATCH:	return "SCHED_BATCH";
	case SCHED_IDLE:	return "SCHED_IDLE";
	case SCHED_O1:		return "SCHED_O1";
	default:		return "unknown";
	}
}

/*
 * Siblings bump our sib_started before and sib_finished after they change
 * our policy. Read before an own change: the change is known to be the
 * last one as long as sib_started still has this value, provided no
 * sibling change was in flight (started == finished) when we read it.
 */
static bool snapshot_sibs(long *snap)
{
	long started = __atomic_load_n(&me->sib_started, __ATOMIC_SEQ_CST);
	long finished = __atomic_load_n(&me->sib_finished, __ATOMIC_SEQ_CST);

	*snap = started;
	return started == finished;
}

/*
 * sched_setattr() to SCHED_IDLE keeps the nice value (fair_policy() does
 * not include SCHED_IDLE), so only the policy is known after it.
 */
static void own_set(int policy, int nice, bool valid, long snap)
{
	own.policy = policy;
	own.pol_valid = valid;
	own.pol_snap = snap;
	if (policy == SCHED_IDLE)
		return;
	own.nice = nice;
	own.nice_valid = valid;
	own.nice_snap = snap;
}

/* Switch ourselves to @policy; returns 0, or -1 with the error counted. */
static int switch_self(int policy, int nice, const char *what)
{
	long snap;
	bool valid = snapshot_sibs(&snap);

	if (!set_attr(0, policy, nice, 0)) {
		own_set(policy, nice, valid, snap);
		return 0;
	}
	if (errno == EPERM && eperm_expected(false)) {
		cnt_inc(me, C_EPERM);
		return -1;
	}
	worker_error("%s: sched_setattr(self, %s, nice %d): %s", what,
		     policy_name(policy), nice, strerror(errno));
	return -1;
}

static void op_nice(void)
{
	int nice = rnd_range(&rng, NICE_MIN, NICE_MAX);
	long snap;
	bool valid = snapshot_sibs(&snap);

	if (!setpriority(PRIO_PROCESS, 0, nice)) {
		own.nice = nice;
		own.nice_valid = valid;
		own.nice_snap = snap;
		return;
	}
	if (errno == EPERM || errno == EACCES) {
		if (eperm_expected(false)) {
			cnt_inc(me, C_EPERM);
			return;
		}
	}
	worker_error("setpriority(self, %d): %s", nice, strerror(errno));
}

static void op_pi(bool in_fifo);

/*
 * A SCHED_FIFO stint: at most 2 ms of spinning (half the time partly
 * spent holding the PI mutex, so that O1 holders get boosted by FIFO
 * waiters), then back to SCHED_O1 no matter what.
 */
static void fifo_stint(void)
{
	int prio = rnd_range(&rng, 1, FIFO_PRIO_MAX);
	int nice = rnd_range(&rng, NICE_MIN, NICE_MAX);

	if (set_attr(0, SCHED_FIFO, 0, prio)) {
		if (errno == EPERM && eperm_expected(true))
			cnt_inc(me, C_EPERM);
		else
			worker_error("sched_setattr(self, SCHED_FIFO %d): %s",
				     prio, strerror(errno));
		return;
	}
	cnt_inc(me, C_POL_FIFO);

	if (rnd_below(&rng, 2)) {
		op_pi(true);	/* holds it for at most 1 ms of spinning */
		spin(rnd_range(&rng, 0, FIFO_SPIN_MAX_NS / 2),
		     FIFO_SPIN_MAX_NS / 2);
	} else {
		spin(rnd_range(&rng, 0, FIFO_SPIN_MAX_NS), FIFO_SPIN_MAX_NS);
	}

	if (!switch_self(o1_policy, nice, "end of FIFO stint")) {
		cnt_inc(me, C_FIFO_RETURN);
		return;
	}
	/* never stay FIFO: try the plainest policy, else give up */
	if (!set_attr(0, SCHED_OTHER, 0, 0)) {
		own_set(SCHED_OTHER, 0, false, 0);
		return;
	}
	worker_error("cannot leave SCHED_FIFO: %s", strerror(errno));
	_exit(1);
}

static void op_policy(void)
{
	static const int sw_policy[NR_SW] = {
		[SW_NORMAL]	= SCHED_OTHER,
		[SW_BATCH]	= SCHED_BATCH,
		[SW_IDLE]	= SCHED_IDLE,
		[SW_FIFO]	= SCHED_FIFO,
	};
	int n = opt.no_fifo ? NR_SW - 1 : NR_SW;
	int sw = rnd_below(&rng, n);
	int policy = sw == SW_O1 ? o1_policy : sw_policy[sw];
	int nice = rnd_range(&rng, NICE_MIN, NICE_MAX);

	if (sw == SW_FIFO) {
		fifo_stint();
		return;
	}
	if (!switch_self(policy, nice, "policy switch"))
		cnt_inc(me, C_POL_O1 + sw);
}

static void op_sibling(void)
{
	struct wslot *t;
	int j, policy, nice;
	pid_t pid;
	int ret, err;

	if (opt.workers < 2) {
		cnt_inc(me, C_SIB_SKIP);
		return;
	}
	j = rnd_below(&rng, opt.workers - 1);
	if (j >= my_idx)
		j++;
	pid = __atomic_load_n(&sh->pids[j], __ATOMIC_ACQUIRE);
	if (pid <= 0) {
		cnt_inc(me, C_SIB_SKIP);	/* not forked yet */
		return;
	}
	policy = rnd_below(&rng, 2) ? o1_policy : SCHED_OTHER;
	nice = rnd_range(&rng, NICE_MIN, NICE_MAX);

	t = &sh->slot[j];
	__atomic_fetch_add(&t->sib_started, 1, __ATOMIC_SEQ_CST);
	ret = set_attr(pid, policy, nice, 0);
	err = errno;
	__atomic_fetch_add(&t->sib_finished, 1, __ATOMIC_SEQ_CST);

	if (!ret)
		cnt_inc(me, C_SIB_OK);
	else if (err == ESRCH)
		cnt_inc(me, C_SIB_ESRCH);
	else if (err == EPERM && eperm_expected(false))
		cnt_inc(me, C_EPERM);
	else
		worker_error("sched_setattr(sibling %d pid %d, %s, nice %d): %s",
			     j, (int)pid, policy_name(policy), nice,
			     strerror(err));
}

static void op_affinity(void)
{
	cpu_set_t set;
	int cpu, k, pick;
	bool all = rnd_below(&rng, 3) == 0;

	if (all) {
		set = all_cpus;
	} else {
		CPU_ZERO(&set);
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &all_cpus) && rnd_below(&rng, 2))
				CPU_SET(cpu, &set);
		if (!CPU_COUNT(&set)) {
			pick = rnd_below(&rng, ncpus);
			for (cpu = 0, k = 0; cpu < CPU_SETSIZE; cpu++) {
				if (!CPU_ISSET(cpu, &all_cpus))
					continue;
				if (k++ == pick) {
					CPU_SET(cpu, &set);
					break;
				}
			}
		}
	}
	if (!sched_setaffinity(0, sizeof(set), &set)) {
		cnt_inc(me, all ? C_AFF_ALL : C_AFF_SUBSET);
		return;
	}
	if (errno == EINVAL) {
		/* with hotplug, all CPUs of the subset may be offline */
		cnt_inc(me, C_AFF_EINVAL);
		if (opt.hotplug)
			return;
	}
	worker_error("sched_setaffinity(self, %d of %d CPUs): %s",
		     CPU_COUNT(&set), ncpus, strerror(errno));
}

static void __noreturn child_fail(int step)
{
	__atomic_store_n(&me->child_err, step | errno << 8, __ATOMIC_RELAXED);
	_exit(1);
}

/* A worker's child: O1, spins 0-10 ms, maybe forks a grandchild, exits. */
static void __noreturn child_main(pid_t worker)
{
	int nice, status;
	pid_t gc;

	rng ^= 0x5bd1e9955bd1e995ULL;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		child_fail(CS_PDEATHSIG);
	if (getppid() != worker)
		_exit(0);	/* worker gone; it is not counting on us */

	nice = rnd_range(&rng, NICE_MIN, NICE_MAX);
	if (set_attr(0, o1_policy, nice, 0)) {
		if (!(errno == EPERM && eperm_expected(false)))
			child_fail(CS_SETATTR);
		cnt_inc(me, C_EPERM);
	}
	spin(rnd_range(&rng, 0, CHILD_SPIN_MAX_NS), SPIN_WALL_CAP_NS);

	if (rnd_below(&rng, 2)) {
		gc = fork();
		if (gc < 0)
			child_fail(CS_FORK);
		if (!gc)
			_exit(0);
		cnt_inc(me, C_GC_FORKS);
		while (waitpid(gc, &status, 0) < 0)
			if (errno != EINTR)
				child_fail(CS_WAIT);
		cnt_inc(me, C_GC_REAPS);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			errno = 0;
			child_fail(CS_GC_STATUS);
		}
	}
	_exit(0);
}

static void child_reaped(int status)
{
	int ce;

	cnt_inc(me, C_REAPS);
	__atomic_store_n(&me->child, 0, __ATOMIC_RELAXED);
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return;
	cnt_inc(me, C_CHILD_FAIL);
	ce = __atomic_exchange_n(&me->child_err, 0, __ATOMIC_RELAXED);
	if (WIFSIGNALED(status))
		worker_error("child killed by signal %d (%s)", WTERMSIG(status),
			     strsignal(WTERMSIG(status)));
	else if (ce && (ce & 0xff) < (int)ARRAY_SIZE(child_steps))
		worker_error("child failed: %s: %s", child_steps[ce & 0xff],
			     (ce >> 8) ? strerror(ce >> 8) : "bad status");
	else
		worker_error("child exited with status %d", WEXITSTATUS(status));
}

/* Reap our child if it is gone (or wait for it with @block). */
static void reap_child(bool block)
{
	pid_t child = __atomic_load_n(&me->child, __ATOMIC_RELAXED);
	pid_t ret;
	int status;

	if (!child)
		return;
	for (;;) {
		ret = waitpid(child, &status, block ? 0 : WNOHANG);
		if (ret == child) {
			child_reaped(status);
			return;
		}
		if (!ret)
			return;
		if (errno != EINTR) {
			worker_error("waitpid(child %d): %s", (int)child,
				     strerror(errno));
			__atomic_store_n(&me->child, 0, __ATOMIC_RELAXED);
			return;
		}
	}
}

static void op_fork(void)
{
	pid_t worker = getpid(), pid;

	reap_child(false);
	if (__atomic_load_n(&me->child, __ATOMIC_RELAXED)) {
		cnt_inc(me, C_FORK_SKIP);
		return;
	}
	pid = fork();
	if (pid < 0) {
		worker_error("fork: %s", strerror(errno));
		return;
	}
	if (!pid)
		child_main(worker);
	__atomic_store_n(&me->child, pid, __ATOMIC_RELAXED);
	cnt_inc(me, C_FORKS);
	/* advance our own sequence past the child's */
	rnd_next(&rng);
}

static void op_pi(bool in_fifo)
{
	struct timespec ts;
	int ret;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += PI_TIMEOUT_NS;
	if (ts.tv_nsec >= NSEC_PER_SEC) {
		ts.tv_sec++;
		ts.tv_nsec -= NSEC_PER_SEC;
	}
	ret = pthread_mutex_timedlock(&sh->pi_lock, &ts);
	if (ret == ETIMEDOUT) {
		cnt_inc(me, C_PI_TIMEOUT);
		return;
	}
	if (ret == EOWNERDEAD) {
		/* a worker died holding it */
		cnt_inc(me, C_PI_OWNER_DIED);
		worker_error("PI mutex: previous owner died holding it");
		pthread_mutex_consistent(&sh->pi_lock);
		ret = 0;
	}
	if (ret) {
		worker_error("pthread_mutex_timedlock(PI): %s", strerror(ret));
		return;
	}
	cnt_inc(me, C_PI_LOCKED);
	if (in_fifo)
		cnt_inc(me, C_PI_IN_FIFO);
	spin(rnd_range(&rng, 0, PI_HOLD_MAX_NS),
	     in_fifo ? PI_HOLD_MAX_NS : PI_HOLD_WALL_CAP_NS);
	ret = pthread_mutex_unlock(&sh->pi_lock);
	if (ret)
		worker_error("pthread_mutex_unlock(PI): %s", strerror(ret));
}

/*
 * Policy and nice must be what we set last, unless a sibling may have
 * changed them since; siblings only set O1 or NORMAL with nice -20..19.
 */
static void op_check(void)
{
	struct sched_attr a;
	bool pol_exact, nice_exact;
	long started;
	int policy;

	memset(&a, 0, sizeof(a));
	if (sched_getattr(0, &a, sizeof(a), 0)) {
		worker_error("sched_getattr(self): %s", strerror(errno));
		return;
	}
	started = __atomic_load_n(&me->sib_started, __ATOMIC_SEQ_CST);
	pol_exact = own.pol_valid && started == own.pol_snap;
	nice_exact = own.nice_valid && started == own.nice_snap;
	policy = a.sched_policy;

	if (pol_exact ? policy != own.policy :
	    policy != own.policy && policy != o1_policy && policy != SCHED_OTHER) {
		cnt_inc(me, C_BAD_POLICY);
		worker_error("sched_getattr: policy %s (%d), expected %s%s",
			     policy_name(policy), policy, policy_name(own.policy),
			     pol_exact ? "" : " or one a sibling sets");
		return;
	}
	if (a.sched_priority || a.sched_nice < NICE_MIN || a.sched_nice > NICE_MAX ||
	    (nice_exact && a.sched_nice != own.nice)) {
		cnt_inc(me, C_BAD_NICE);
		worker_error("sched_getattr: %s nice %d priority %u, expected nice %d%s",
			     policy_name(policy), a.sched_nice, a.sched_priority,
			     own.nice, nice_exact ? "" : " or one a sibling sets");
		return;
	}
	if (a.sched_flags & SCHED_FLAG_RESET_ON_FORK) {
		cnt_inc(me, C_BAD_FLAGS);
		worker_error("sched_getattr: unexpected SCHED_FLAG_RESET_ON_FORK");
		return;
	}
	cnt_inc(me, pol_exact && nice_exact ? C_CHECK_EXACT : C_CHECK_LOOSE);
}

static int pick_op(void)
{
	static int total;
	int r, i;

	if (!total)
		for (i = 0; i < NR_OPS; i++)
			total += op_weight[i];
	r = rnd_below(&rng, total);
	for (i = 0; i < NR_OPS - 1; i++) {
		if (r < op_weight[i])
			break;
		r -= op_weight[i];
	}
	return i;
}

static void __noreturn worker_main(int idx, uint64_t seed)
{
	int64_t deadline = sh->deadline, t0, t1;
	struct timespec ts;
	sigset_t set;
	int nice, op;

	me = &sh->slot[idx];
	my_idx = idx;
	rng = seed + idx;
	me->cur_op = -1;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);

	if (prctl(PR_SET_PDEATHSIG, SIGKILL)) {
		worker_error("prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
		_exit(WORKER_SETUP_FAILED);
	}
	if (getppid() != main_pid)
		_exit(WORKER_SETUP_FAILED);	/* main already gone */

	/* unprivileged, start no lower than the inherited nice */
	nice = rnd_range(&rng, priv.nice ? NICE_MIN : getpriority(PRIO_PROCESS, 0),
			 NICE_MAX);
	if (switch_self(o1_policy, nice, "start")) {
		if (!cnt_get(me, C_ERRORS))
			worker_error("start: sched_setattr(self, %s, nice %d): not permitted",
				     o1_name, nice);
		_exit(WORKER_SETUP_FAILED);
	}

	t0 = now_ns();
	while (t0 < deadline) {
		reap_child(false);
		op = pick_op();
		cnt_inc(me, op);
		__atomic_store_n(&me->cur_op, op, __ATOMIC_RELAXED);
		switch (op) {
		case C_SPIN:
			spin(rnd_range(&rng, 0, SPIN_MAX_NS), SPIN_WALL_CAP_NS);
			break;
		case C_SLEEP:
			ts = ns_to_ts(rnd_range(&rng, 0, SLEEP_MAX_NS));
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
			break;
		case C_YIELD:
			if (sched_yield())
				worker_error("sched_yield: %s", strerror(errno));
			break;
		case C_NICE:
			op_nice();
			break;
		case C_POLICY:
			op_policy();
			break;
		case C_SIBLING:
			op_sibling();
			break;
		case C_AFFINITY:
			op_affinity();
			break;
		case C_FORK:
			op_fork();
			break;
		case C_PI:
			op_pi(false);
			break;
		case C_CHECK:
			op_check();
			break;
		}
		t1 = now_ns();
		if (t1 - t0 > me->max_op_ns) {
			me->max_op_ns = t1 - t0;
			me->max_op = op;
		}
		t0 = t1;
	}
	__atomic_store_n(&me->cur_op, -1, __ATOMIC_RELAXED);
	reap_child(true);
	__atomic_store_n(&me->done, 1, __ATOMIC_RELEASE);
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* CPU hotplug                                                         */

static struct {
	int cand[CPU_SETSIZE];	/* CPUs other than 0, online at the start */
	int ncand;
	int cur;		/* CPU we took offline, -1 none */
	int64_t next;		/* next offline */
	int64_t online_at;	/* bring cur back */
	uint64_t rng;
	long cycles;		/* offline + online both done */
	long ebusy;
	long failures;
	int64_t max_ns;		/* slowest single online/offline write */
	char first_err[160];
} hp = { .cur = -1 };

static int cpu_online_path(int cpu, char *buf, size_t size)
{
	return snprintf(buf, size, "/sys/devices/system/cpu/cpu%d/online", cpu);
}

/* 1 online, 0 offline, -1 no such file */
static int cpu_online_read(int cpu)
{
	char path[64], c = 0;
	int fd;

	cpu_online_path(cpu, path, sizeof(path));
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1' ? 1 : c == '0' ? 0 : -1;
}

/* Returns 0 or an errno. */
static int cpu_online_write(int cpu, int on)
{
	char path[64];
	int64_t t0 = now_ns(), dt;
	int fd, err = 0;

	cpu_online_path(cpu, path, sizeof(path));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, on ? "1\n" : "0\n", 2) != 2)
		err = errno ? errno : EIO;
	close(fd);
	dt = now_ns() - t0;
	if (dt > hp.max_ns)
		hp.max_ns = dt;
	return err;
}

static void __printf(1, 2) hp_fail(const char *fmt, ...)
{
	va_list ap;

	hp.failures++;
	va_start(ap, fmt);
	if (!hp.first_err[0])
		vsnprintf(hp.first_err, sizeof(hp.first_err), fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	fprintf(stderr, PROG ": hotplug: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void hp_init(int64_t start, uint64_t seed)
{
	long nconf = sysconf(_SC_NPROCESSORS_CONF);
	int cpu;

	hp.rng = seed ^ 0x6f31686f74706c67ULL;
	for (cpu = 1; cpu < nconf && cpu < CPU_SETSIZE; cpu++)
		if (cpu_online_read(cpu) == 1)
			hp.cand[hp.ncand++] = cpu;
	if (!hp.ncand)
		err_msg("--hotplug: no CPU other than CPU 0 can go offline here; no hotplug");
	hp.next = start + rnd_range(&hp.rng, NSEC_PER_SEC, 3 * NSEC_PER_SEC);
}

static void hp_step(int64_t now)
{
	int cpu, err;

	if (!hp.ncand)
		return;
	if (hp.cur >= 0 && now >= hp.online_at) {
		cpu = hp.cur;
		err = cpu_online_write(cpu, 1);
		if (err) {
			/* retried by hp_restore() */
			hp_fail("cannot bring CPU %d back online: %s", cpu,
				strerror(err));
			hp.online_at = now + NSEC_PER_SEC;
			return;
		}
		hp.cur = -1;
		hp.cycles++;
		return;
	}
	if (hp.cur >= 0 || now < hp.next)
		return;

	hp.next = now + rnd_range(&hp.rng, NSEC_PER_SEC, 3 * NSEC_PER_SEC);
	cpu = hp.cand[rnd_below(&hp.rng, hp.ncand)];
	err = cpu_online_write(cpu, 0);
	if (err == EBUSY) {
		hp.ebusy++;
		return;
	}
	if (err) {
		hp_fail("cannot take CPU %d offline: %s", cpu, strerror(err));
		return;
	}
	hp.cur = cpu;
	hp.online_at = now_ns() + rnd_range(&hp.rng, NSEC_PER_SEC / 2, NSEC_PER_SEC);
}

/* Every CPU that was online at the start is online again; 0 if so. */
static int hp_restore(void)
{
	int i, tries, err, ret = 0;

	if (hp.cur >= 0) {
		if (!cpu_online_write(hp.cur, 1))
			hp.cycles++;
		hp.cur = -1;
	}
	for (i = 0; i < hp.ncand; i++) {
		int cpu = hp.cand[i];

		for (tries = 0; cpu_online_read(cpu) == 0 && tries < 10; tries++) {
			err = cpu_online_write(cpu, 1);
			if (!err)
				break;
			if (tries == 9) {
				hp_fail("CPU %d stays offline at the end: %s",
					cpu, strerror(err));
				ret = -1;
			}
			usleep(200 * 1000);
		}
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Main process                                                        */

enum { W_RUNNING, W_EXITED, W_STUCK };

static struct wtrack {
	pid_t pid;
	int state;
	int code;		/* si_code: CLD_EXITED, CLD_KILLED, ... */
	int status;		/* exit status or signal */
	bool reaped;
	bool reported;
} wt[MAX_WORKERS];

#define MAX_FAILURES		64

static char failures[MAX_FAILURES][256];
static int nfailures;

static void __printf(1, 2) add_failure(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (nfailures < MAX_FAILURES)
		vsnprintf(failures[nfailures], sizeof(failures[0]), fmt, ap);
	va_end(ap);
	if (nfailures < MAX_FAILURES) {
		fprintf(stderr, PROG ": FAIL: %s\n", failures[nfailures]);
	}
	nfailures++;
}

static void on_signal(int sig)
{
	got_signal = sig;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = ns_to_ts(t);

	if (!got_signal)
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void describe_exit(struct wtrack *w, char *buf, size_t size)
{
	if (w->code == CLD_EXITED)
		snprintf(buf, size, "exit status %d", w->status);
	else
		snprintf(buf, size, "killed by signal %d (%s)", w->status,
			 strsignal(w->status));
}

/* Note workers that exited, without reaping them (their pids stay taken). */
static int poll_workers(bool during_run)
{
	int i, running = 0;

	for (i = 0; i < opt.workers; i++) {
		struct wtrack *w = &wt[i];
		siginfo_t si;

		if (w->state != W_RUNNING)
			continue;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, w->pid, &si, WEXITED | WNOHANG | WNOWAIT) ||
		    si.si_pid != w->pid) {
			running++;
			continue;
		}
		w->state = W_EXITED;
		w->code = si.si_code;
		w->status = si.si_status;
		if (during_run && !(w->code == CLD_EXITED && !w->status)) {
			char how[64];

			describe_exit(w, how, sizeof(how));
			err_msg("worker %d (pid %d) ended early: %s", i,
				(int)w->pid, how);
		}
	}
	return running;
}

static long total_cnt(int c)
{
	long sum = 0;
	int i;

	for (i = 0; i < opt.workers; i++)
		sum += cnt_get(&sh->slot[i], c);
	return sum;
}

static long total_ops(void)
{
	long sum = 0;
	int c;

	for (c = 0; c < NR_OPS; c++)
		sum += total_cnt(c);
	return sum;
}

static void progress(FILE *out, int64_t t, int running)
{
	fprintf(out, PROG ": %3.0fs: %ld ops (policy %ld, nice %ld, affinity %ld, forks %ld, pi %ld)",
		(double)t / NSEC_PER_SEC, total_ops(), total_cnt(C_POLICY),
		total_cnt(C_NICE), total_cnt(C_AFFINITY), total_cnt(C_FORKS),
		total_cnt(C_PI_LOCKED));
	if (opt.hotplug)
		fprintf(out, ", hotplug %ld cycles", hp.cycles);
	fprintf(out, ", %d/%d workers running\n", running, opt.workers);
	fflush(out);
}

static void read_proc(pid_t pid, const char *file, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	buf[0] = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(buf, size, "?");
		return;
	}
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
}

/* State letter of /proc/PID/stat, '?' if unreadable. */
static char proc_state(pid_t pid)
{
	char buf[512], *p;

	read_proc(pid, "stat", buf, sizeof(buf));
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

/* "STUCK: WHAT (pid PID) still alive WHEN: state S, wchan W" and its stack */
static void report_task(const char *what, pid_t pid, const char *when)
{
	char wchan[128], stack[2048];

	read_proc(pid, "wchan", wchan, sizeof(wchan));
	add_failure("STUCK: %s (pid %d) still alive %s: state %c, wchan %s",
		    what, (int)pid, when, proc_state(pid),
		    wchan[0] ? wchan : "0");
	read_proc(pid, "stack", stack, sizeof(stack));
	if (stack[0] && strcmp(stack, "?"))
		fprintf(stderr, "%s\n", stack);
}

static void report_stuck(int i)
{
	struct wslot *s = &sh->slot[i];
	int op = __atomic_load_n(&s->cur_op, __ATOMIC_RELAXED);
	pid_t child = __atomic_load_n(&s->child, __ATOMIC_RELAXED);
	char what[64], when[64];
	char st;

	snprintf(what, sizeof(what), "worker %d", i);
	snprintf(when, sizeof(when), "%.0f s after the deadline",
		 (double)GRACE_NS / NSEC_PER_SEC);
	report_task(what, wt[i].pid, when);
	err_msg("  worker %d: current operation %s, child %d", i,
		op >= 0 && op < NR_OPS ? cnt_names[op] : "none (waiting for its child)",
		(int)child);
	st = child > 0 ? proc_state(child) : '?';
	if (st != '?' && st != 'Z') {
		snprintf(what, sizeof(what), "child of worker %d", i);
		report_task(what, child, when);
	}
}

static void kill_all(void)
{
	int i;

	for (i = 0; i < opt.workers; i++)
		if (wt[i].pid > 0 && !wt[i].reaped)
			kill(wt[i].pid, SIGKILL);
}

/* Reap every worker; SIGKILLed ones get KILL_WAIT_NS. 0 if all were reaped. */
static int reap_all(void)
{
	int64_t until = now_ns() + KILL_WAIT_NS;
	int i, left, status, ret = 0;

	do {
		left = 0;
		for (i = 0; i < opt.workers; i++) {
			struct wtrack *w = &wt[i];
			pid_t r;

			if (w->pid <= 0 || w->reaped)
				continue;
			r = waitpid(w->pid, &status, WNOHANG);
			if (r == w->pid) {
				w->reaped = true;
				if (w->state == W_RUNNING) {
					w->state = W_EXITED;
					w->code = WIFEXITED(status) ? CLD_EXITED : CLD_KILLED;
					w->status = WIFEXITED(status) ? WEXITSTATUS(status)
								      : WTERMSIG(status);
				}
			} else if (r < 0 && errno != EINTR) {
				w->reaped = true;
			} else {
				left++;
			}
		}
		if (left)
			usleep(50 * 1000);
	} while (left && now_ns() < until);

	for (i = 0; i < opt.workers; i++) {
		if (wt[i].pid > 0 && !wt[i].reaped) {
			add_failure("worker %d (pid %d) cannot be killed: state %c",
				    i, (int)wt[i].pid, proc_state(wt[i].pid));
			ret = -1;
		}
	}
	return ret;
}

/* Pids of live processes whose parent is us. */
static int find_descendants(pid_t *out, int max)
{
	char path[64], buf[512], *p;
	pid_t me_pid = getpid();
	int fd, n = 0, ppid;
	struct dirent *de;
	ssize_t len;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		pid_t pid = atoi(de->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = 0;
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1 || ppid != me_pid)
			continue;
		out[n++] = pid;
	}
	closedir(d);
	return n;
}

/*
 * We are a child subreaper: a worker's descendant that outlived it is
 * ours now. There must be none; reap (or kill and reap) any. Returns the
 * number found.
 */
static long reap_orphans(bool report)
{
	int64_t until = now_ns() + 2 * NSEC_PER_SEC;
	pid_t pids[64];
	long found = 0;
	bool killed = false;
	int status, i, n;
	pid_t r;

	for (;;) {
		r = waitpid(-1, &status, WNOHANG);
		if (r > 0) {
			found++;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)	/* ECHILD: none left */
			break;
		if (now_ns() < until) {
			usleep(50 * 1000);
			continue;
		}
		if (killed)
			break;
		n = find_descendants(pids, ARRAY_SIZE(pids));
		for (i = 0; i < n; i++) {
			if (report)
				report_task("orphaned descendant of a worker",
					    pids[i], "after its worker ended");
			kill(pids[i], SIGKILL);
		}
		killed = true;
		until = now_ns() + KILL_WAIT_NS;
	}
	if (found && report)
		add_failure("%ld orphaned descendant%s of workers reaped by the main process",
			    found, found == 1 ? "" : "s");
	return found;
}

static void set_main_sched(void)
{
	struct sched_attr attr = {
		.size		= sizeof(attr),
		.sched_policy	= SCHED_FIFO,
		.sched_flags	= SCHED_FLAG_RESET_ON_FORK,
		.sched_priority	= 1,
	};

	if (!sched_setattr(0, &attr, 0)) {
		priv.fifo = priv.nice = true;
		priv.main_mode = "SCHED_FIFO 1";
		return;
	}
	err_msg("cannot run as SCHED_FIFO 1 (%s): trying SCHED_NORMAL nice -20",
		strerror(errno));
	attr.sched_policy = SCHED_OTHER;
	attr.sched_priority = 0;
	attr.sched_nice = -20;
	if (!sched_setattr(0, &attr, 0)) {
		priv.nice = true;
		priv.main_mode = "SCHED_NORMAL nice -20";
	} else {
		err_msg("cannot run at nice -20 either (%s): unprivileged run, EPERM is expected and counted",
			strerror(errno));
		attr.sched_nice = getpriority(PRIO_PROCESS, 0);
		sched_setattr(0, &attr, 0);
		priv.main_mode = "SCHED_NORMAL (unprivileged)";
	}
	if (!opt.no_fifo)
		err_msg("no SCHED_FIFO stints (not permitted)");
	opt.no_fifo = true;
}

/*
 * Does the kernel have SCHED_O1? A child tries it. 0 yes, EXIT_SKIP no,
 * 1 on another error (message printed).
 */
static int probe_o1(void)
{
	int status, err;
	pid_t pid;

	if (opt.policy_normal)
		return 0;
	pid = fork();
	if (pid < 0) {
		err_msg("fork: %s", strerror(errno));
		return 1;
	}
	if (!pid) {
		err = set_attr(0, SCHED_O1, getpriority(PRIO_PROCESS, 0), 0) ? errno : 0;
		_exit(err > 255 ? 255 : err);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			err_msg("waitpid: %s", strerror(errno));
			return 1;
		}
	if (!WIFEXITED(status)) {
		err_msg("SCHED_O1 probe died with signal %d", WTERMSIG(status));
		return 1;
	}
	err = WEXITSTATUS(status);
	if (!err)
		return 0;
	if (err == EINVAL) {
		err_msg(NO_SCHED_O1_MSG);
		return EXIT_SKIP;
	}
	err_msg("sched_setattr(SCHED_O1): %s", strerror(err));
	return 1;
}

static int init_shared(void)
{
	pthread_mutexattr_t ma;
	int ret;

	sh_size = sizeof(*sh) + sizeof(struct wslot) * opt.workers;
	sh = mmap(NULL, sh_size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		err_msg("mmap: %s", strerror(errno));
		return -1;
	}
	/* PI + robust + process-shared: a robust PI futex */
	if ((ret = pthread_mutexattr_init(&ma)) ||
	    (ret = pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED)) ||
	    (ret = pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT)) ||
	    (ret = pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST)) ||
	    (ret = pthread_mutex_init(&sh->pi_lock, &ma))) {
		err_msg("PI mutex setup: %s", strerror(ret));
		return -1;
	}
	pthread_mutexattr_destroy(&ma);
	return 0;
}

struct result {
	double elapsed;
	long orphans;
	long totals[NR_CNT];
	int64_t max_op_ns;
	int max_op_worker;
	int max_op;
};

/* The checks after the run; failures are collected with add_failure(). */
static void check_results(struct result *r)
{
	char how[64];
	int i, c;

	memset(r->totals, 0, sizeof(r->totals));
	r->max_op_ns = 0;
	r->max_op_worker = -1;
	r->max_op = 0;
	for (i = 0; i < opt.workers; i++) {
		struct wslot *s = &sh->slot[i];
		struct wtrack *w = &wt[i];

		for (c = 0; c < NR_CNT; c++)
			r->totals[c] += cnt_get(s, c);
		if (s->max_op_ns > r->max_op_ns) {
			r->max_op_ns = s->max_op_ns;
			r->max_op_worker = i;
			r->max_op = s->max_op;
		}
		if (w->state == W_STUCK)
			continue;	/* reported already */
		if (w->state == W_EXITED &&
		    !(w->code == CLD_EXITED && !w->status)) {
			describe_exit(w, how, sizeof(how));
			add_failure("worker %d (pid %d): %s%s%s", i, (int)w->pid, how,
				    s->err[0] ? ": " : "", s->err);
			continue;
		}
		if (cnt_get(s, C_FORKS) != cnt_get(s, C_REAPS))
			add_failure("worker %d: %ld children forked, %ld reaped", i,
				    cnt_get(s, C_FORKS), cnt_get(s, C_REAPS));
		if (cnt_get(s, C_GC_FORKS) != cnt_get(s, C_GC_REAPS))
			add_failure("worker %d: %ld grandchildren forked, %ld reaped",
				    i, cnt_get(s, C_GC_FORKS), cnt_get(s, C_GC_REAPS));
		if (cnt_get(s, C_ERRORS))
			add_failure("worker %d: %ld unexpected errors, first: %s", i,
				    cnt_get(s, C_ERRORS), s->err);
	}
	if (hp.failures)
		add_failure("hotplug: %ld failures, first: %s", hp.failures,
			    hp.first_err);
}

static void print_table(FILE *f, const struct result *r)
{
	const long *t = r->totals;

	fprintf(f, "# " PROG ": %s, %d workers, %d CPUs, %.1f s (%.1f s elapsed), seed %llu, fifo %s, hotplug %s, main %s\n",
		o1_name, opt.workers, ncpus, opt.duration, r->elapsed,
		(unsigned long long)opt.seed, opt.no_fifo ? "off" : "on",
		opt.hotplug ? "on" : "off", priv.main_mode);
	fprintf(f, "%-16s %10s  %s\n", "operation", "count", "outcome");
	fprintf(f, "%-16s %10ld\n", "spin", t[C_SPIN]);
	fprintf(f, "%-16s %10ld\n", "sleep", t[C_SLEEP]);
	fprintf(f, "%-16s %10ld\n", "yield", t[C_YIELD]);
	fprintf(f, "%-16s %10ld\n", "nice change", t[C_NICE]);
	fprintf(f, "%-16s %10ld  %s %ld, normal %ld, batch %ld, idle %ld, fifo %ld (back to %s %ld)\n",
		"policy switch", t[C_POLICY], opt.policy_normal ? "o1=normal" : "o1",
		t[C_POL_O1], t[C_POL_NORMAL], t[C_POL_BATCH], t[C_POL_IDLE],
		t[C_POL_FIFO], opt.policy_normal ? "normal" : "o1", t[C_FIFO_RETURN]);
	fprintf(f, "%-16s %10ld  ok %ld, esrch %ld, skipped %ld\n", "sibling switch",
		t[C_SIBLING], t[C_SIB_OK], t[C_SIB_ESRCH], t[C_SIB_SKIP]);
	fprintf(f, "%-16s %10ld  subset %ld, all %ld, einval %ld\n", "affinity",
		t[C_AFFINITY], t[C_AFF_SUBSET], t[C_AFF_ALL], t[C_AFF_EINVAL]);
	fprintf(f, "%-16s %10ld  forked %ld, reaped %ld, skipped (child live) %ld, grandchildren %ld/%ld reaped, failed %ld, orphans %ld\n",
		"fork", t[C_FORK], t[C_FORKS], t[C_REAPS], t[C_FORK_SKIP],
		t[C_GC_REAPS], t[C_GC_FORKS], t[C_CHILD_FAIL], r->orphans);
	fprintf(f, "%-16s %10ld  lock+unlock %ld (%ld in FIFO), timeouts %ld, owner died %ld\n",
		"pi mutex", t[C_PI], t[C_PI_LOCKED], t[C_PI_IN_FIFO],
		t[C_PI_TIMEOUT], t[C_PI_OWNER_DIED]);
	fprintf(f, "%-16s %10ld  exact %ld, loose %ld, bad policy %ld, bad nice %ld, bad flags %ld\n",
		"getattr check", t[C_CHECK], t[C_CHECK_EXACT], t[C_CHECK_LOOSE],
		t[C_BAD_POLICY], t[C_BAD_NICE], t[C_BAD_FLAGS]);
	if (opt.hotplug)
		fprintf(f, "%-16s %10ld  cycles, ebusy %ld, failures %ld, slowest write %.0f ms\n",
			"cpu hotplug", hp.cycles, hp.ebusy, hp.failures,
			(double)hp.max_ns / NSEC_PER_MSEC);
	fprintf(f, "%-16s %10ld  eperm (expected) %ld, unexpected errors %ld\n",
		"total ops", total_ops(), t[C_EPERM], t[C_ERRORS]);
	if (r->max_op_worker >= 0)
		fprintf(f, "# longest single operation: %.1f ms (%s, worker %d)\n",
			(double)r->max_op_ns / NSEC_PER_MSEC, cnt_names[r->max_op],
			r->max_op_worker);
	if (nfailures)
		fprintf(f, "# result: FAIL (%d failure%s)\n", nfailures,
			nfailures == 1 ? "" : "s");
	else
		fprintf(f, "# result: PASS\n");
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void write_json(FILE *f, const struct result *r)
{
	char how[64];
	int i, c;

	fprintf(f, "{\n\"tool\": \"" PROG "\",\n\"result\": \"%s\",\n",
		nfailures ? "fail" : "pass");
	fprintf(f, "\"policy\": \"%s\",\n\"duration_s\": %.3f,\n\"elapsed_s\": %.3f,\n",
		o1_name, opt.duration, r->elapsed);
	fprintf(f, "\"workers\": %d,\n\"cpus\": %d,\n\"seed\": %llu,\n\"fifo\": %s,\n\"hotplug\": %s,\n",
		opt.workers, ncpus, (unsigned long long)opt.seed,
		opt.no_fifo ? "false" : "true", opt.hotplug ? "true" : "false");
	fprintf(f, "\"main\": \"%s\",\n\"totals\": {\"ops\": %ld", priv.main_mode,
		total_ops());
	for (c = 0; c < NR_CNT; c++)
		fprintf(f, ", \"%s\": %ld", cnt_names[c], r->totals[c]);
	fprintf(f, ", \"orphans\": %ld", r->orphans);
	fprintf(f, "},\n\"hotplug_stats\": {\"cycles\": %ld, \"ebusy\": %ld, \"failures\": %ld, \"max_write_ms\": %.3f},\n",
		hp.cycles, hp.ebusy, hp.failures, (double)hp.max_ns / NSEC_PER_MSEC);
	fprintf(f, "\"max_op_ms\": %.3f,\n\"per_worker\": [",
		(double)r->max_op_ns / NSEC_PER_MSEC);
	for (i = 0; i < opt.workers; i++) {
		struct wslot *s = &sh->slot[i];
		struct wtrack *w = &wt[i];

		if (w->state == W_STUCK)
			snprintf(how, sizeof(how), "stuck");
		else
			describe_exit(w, how, sizeof(how));
		fprintf(f, "%s\n  {\"worker\": %d, \"pid\": %d, \"exit\": ", i ? "," : "",
			i, (int)w->pid);
		json_str(f, how);
		fprintf(f, ", \"max_op_ms\": %.3f", (double)s->max_op_ns / NSEC_PER_MSEC);
		for (c = 0; c < NR_CNT; c++)
			fprintf(f, ", \"%s\": %ld", cnt_names[c], cnt_get(s, c));
		fprintf(f, ", \"error\": ");
		json_str(f, s->err);
		fputc('}', f);
	}
	fprintf(f, "\n],\n\"failures\": [");
	for (i = 0; i < nfailures && i < MAX_FAILURES; i++) {
		fprintf(f, "%s\n  ", i ? "," : "");
		json_str(f, failures[i]);
	}
	fprintf(f, "%s]\n}\n", nfailures ? "\n" : "");
}

/* Run the workers (and hotplug) to the deadline and wait for them. */
static void run(FILE *out, struct result *r)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int64_t start, deadline, next_progress, t, until;
	sigset_t block, old;
	int i, running;

	set_main_sched();
	/* orphaned children and grandchildren come to us, see reap_orphans() */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		err_msg("prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	fprintf(out, PROG ": %s, %d workers on %d CPUs for %.1f s, seed %llu, fifo %s, hotplug %s, main %s\n",
		o1_name, opt.workers, ncpus, opt.duration,
		(unsigned long long)opt.seed, opt.no_fifo ? "off" : "on",
		opt.hotplug ? "on" : "off", priv.main_mode);
	fflush(NULL);

	start = now_ns();
	deadline = start + (int64_t)llround(opt.duration * NSEC_PER_SEC);
	sh->deadline = deadline;
	if (opt.hotplug)
		hp_init(start, opt.seed);

	for (i = 0; i < opt.workers; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			err_msg("fork of worker %d: %s", i, strerror(errno));
			kill_all();
			reap_all();
			reap_orphans(false);
			exit(1);
		}
		if (!pid)
			worker_main(i, opt.seed);
		wt[i].pid = pid;
		__atomic_store_n(&sh->pids[i], pid, __ATOMIC_RELEASE);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);

	next_progress = start + PROGRESS_NS;
	running = opt.workers;
	for (t = now_ns(); t < deadline && !got_signal; t = now_ns()) {
		int64_t wake = t + TICK_NS;

		if (opt.hotplug)
			hp_step(t);
		running = poll_workers(true);
		if (t >= next_progress) {
			progress(out, t - start, running);
			next_progress += PROGRESS_NS;
		}
		if (wake > deadline)
			wake = deadline;
		sleep_until(wake);
	}

	if (opt.hotplug)
		hp_restore();
	if (got_signal) {
		kill_all();
		reap_all();
		reap_orphans(false);
		err_msg("interrupted by signal %d (%s), workers killed",
			got_signal, strsignal(got_signal));
		exit(128 + got_signal);
	}

	/* the workers stop by themselves; give them a grace period */
	until = deadline + GRACE_NS;
	while ((running = poll_workers(false)) && now_ns() < until && !got_signal)
		sleep_until(now_ns() + 50 * NSEC_PER_MSEC);
	r->elapsed = (double)(now_ns() - start) / NSEC_PER_SEC;

	for (i = 0; i < opt.workers && running; i++) {
		if (wt[i].state != W_RUNNING)
			continue;
		if (got_signal)
			continue;
		report_stuck(i);
		wt[i].state = W_STUCK;
	}
	kill_all();	/* only the stuck ones are still alive */
	reap_all();
	r->orphans = reap_orphans(!got_signal);
	if (got_signal) {
		err_msg("interrupted by signal %d (%s), workers killed",
			got_signal, strsignal(got_signal));
		exit(128 + got_signal);
	}
	check_results(r);
}

/* ------------------------------------------------------------------ */

enum {
	OPT_NO_FIFO = 256,
	OPT_HOTPLUG,
	OPT_POLICY_NORMAL,
};

static const struct option longopts[] = {
	{ "duration",		required_argument,	NULL, 'd' },
	{ "workers",		required_argument,	NULL, 'w' },
	{ "seed",		required_argument,	NULL, 's' },
	{ "no-fifo",		no_argument,		NULL, OPT_NO_FIFO },
	{ "hotplug",		no_argument,		NULL, OPT_HOTPLUG },
	{ "json",		required_argument,	NULL, 'j' },
	{ "policy-normal",	no_argument,		NULL, OPT_POLICY_NORMAL },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 }
};

static void parse_args(int argc, char **argv)
{
	char *end;
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "d:w:s:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			errno = 0;
			opt.duration = strtod(optarg, &end);
			if (!*optarg || *end || errno || !isfinite(opt.duration) ||
			    opt.duration <= 0 || opt.duration > 86400)
				usage_error("--duration '%s': expected seconds > 0 and <= 86400",
					    optarg);
			break;
		case 'w':
			if (parse_long(optarg, 1, MAX_WORKERS, &v))
				usage_error("--workers '%s': expected an integer in 1..%d",
					    optarg, MAX_WORKERS);
			opt.workers = v;
			break;
		case 's':
			if (parse_u64(optarg, &opt.seed))
				usage_error("--seed '%s': expected an unsigned 64-bit integer",
					    optarg);
			opt.have_seed = true;
			break;
		case OPT_NO_FIFO:
			opt.no_fifo = true;
			break;
		case OPT_HOTPLUG:
			opt.hotplug = true;
			break;
		case 'j':
			if (!*optarg)
				usage_error("--json: empty file name");
			opt.json = optarg;
			break;
		case OPT_POLICY_NORMAL:
			opt.policy_normal = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			/* getopt_long already named the bad option */
			fprintf(stderr, "Try '" PROG " --help' for more information.\n");
			exit(2);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);

	if (sched_getaffinity(0, sizeof(all_cpus), &all_cpus)) {
		err_msg("sched_getaffinity: %s", strerror(errno));
		exit(1);
	}
	ncpus = CPU_COUNT(&all_cpus);
	if (!opt.workers)
		opt.workers = ncpus * 2 > MAX_WORKERS ? MAX_WORKERS : ncpus * 2;
	if (!opt.have_seed)
		opt.seed = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	if (opt.policy_normal) {
		o1_policy = SCHED_OTHER;
		o1_name = "SCHED_NORMAL (--policy-normal)";
	}
}

int main(int argc, char **argv)
{
	struct result r;
	FILE *json, *out;
	int ret;

	parse_args(argc, argv);
	main_pid = getpid();

	json = open_json(opt.json);
	out = json == stdout ? stderr : stdout;

	ret = probe_o1();
	if (ret == EXIT_SKIP) {
		if (json) {
			fprintf(json, "{\"tool\": \"" PROG "\", \"result\": \"skip\", \"reason\": \"%s\"}\n",
				NO_SCHED_O1_MSG);
			close_json(json, opt.json);
		}
		return EXIT_SKIP;
	}
	if (ret || init_shared())
		return 1;

	run(out, &r);
	print_table(out, &r);
	if (json)
		write_json(json, &r);
	if (close_json(json, opt.json))
		return 1;
	munmap(sh, sh_size);
	return nfailures ? 1 : 0;
}
