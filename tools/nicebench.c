// SPDX-License-Identifier: GPL-2.0
/*
 * nicebench - measure how CPU-bound tasks of different nice values share
 * the CPUs, and how far that is from the ideal weighted share.
 *
 * Starts one forked CPU hog per --nice value with the given policy,
 * optionally pinned to a (bad) initial placement that is released after
 * --release ms, and reports per task its CPU share over the --duration
 * window, its migrations and its ideal (water-filled) share.
 *
 * The tool is scheduler-agnostic: it works on CFS/EEVDF for normal, batch
 * and idle, and with --policy o1 on a kernel with SCHED_O1 (policy 8).
 * --duty makes some tasks sleep part of each period, --rt makes some
 * SCHED_FIFO CPU hogs among the others.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
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
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#define PROG			"nicebench"
#include "sched_o1.h"

#define MAX_TASKS		1024
#define SPIN_CHECK		4096	/* hog iterations between sched_getcpu() */
#define READY_TIMEOUT_MS	10000
#define DEFAULT_PERIOD_MS	100

enum { POL_NORMAL, POL_BATCH, POL_IDLE, POL_O1, NR_POLICIES };

static const struct {
	const char *name;
	int policy;
} policies[NR_POLICIES] = {
	[POL_NORMAL]	= { "normal",	SCHED_OTHER },
	[POL_BATCH]	= { "batch",	SCHED_BATCH },
	[POL_IDLE]	= { "idle",	SCHED_IDLE },
	[POL_O1]	= { "o1",	SCHED_O1 },
};

/* CFS sched_prio_to_weight[], nice -20..19 */
static const int prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	 9548,  7620,  6100,  4904,  3906,
	 3121,  2501,  1991,  1586,  1277,
	 1024,   820,   655,   526,   423,
	  335,   272,   215,   172,   137,
	  110,    87,    70,    56,    45,
	   36,    29,    23,    18,    15,
};

#define WEIGHT_IDLEPRIO		3

/* Child -> parent state, one cache line per task in a MAP_SHARED page. */
enum { ST_STARTING, ST_READY, ST_FAILED };
enum { STEP_NONE, STEP_PDEATHSIG, STEP_SETATTR, STEP_AFFINITY };

struct slot {
	int state;
	int step;		/* which setup step failed */
	int err;		/* errno of that step */
	int cpu;		/* CPU the hog was last seen on */
	long migrations;	/* CPU changes seen by the hog */
} __aligned(64);

struct task {
	int nice;
	int start_cpu;		/* -1: not pinned */
	int duty;		/* % of each period it wants to run (100: hog) */
	int rt_prio;		/* > 0: SCHED_FIFO at this priority */
	long weight;
	double ideal;		/* fraction of one CPU */
	pid_t pid;
	clockid_t clk;
	int64_t cpu_ns[2];	/* task CPU clock at window start/end */
	long migr[2];		/* hog-counted migrations at start/end */
	long kmigr[2];		/* se.nr_migrations at start/end, -1 unknown */
	int end_cpu;
	int kend_cpu;		/* the kernel's task_cpu() at the end, -1 unknown */
	double share;
};

struct sample {
	double t;		/* seconds since release (end of interval) */
	double *share;		/* per task share over the interval */
	int *cpu;		/* per task current CPU */
	long *migr;		/* per task migrations since the window start */
	/*
	 * The kernel's view: the CPU whose queue holds the task and
	 * se.nr_migrations since the window start (NULL: not known). The
	 * hog sees a move only when it next runs, which for an O1 task
	 * pulled in its expired array can be seconds later.
	 */
	int *kcpu;
	long *kmigr;
};

static struct {
	int policy;		/* POL_* */
	int ntasks;
	bool have_nice;
	bool have_start;
	long release_ms;
	double duration;
	long interval_ms;
	int cpus;
	const char *json;
	bool quiet;
	bool ideal_only;
	bool rt_parent;
	long period_ms;
	long ready_timeout_ms;
} opt = {
	.policy		= POL_NORMAL,
	.release_ms	= 200,
	.duration	= 5.0,
	.period_ms	= DEFAULT_PERIOD_MS,
	.ready_timeout_ms = READY_TIMEOUT_MS,
};

static struct task tasks[MAX_TASKS];
static int start_list[MAX_TASKS];
static int nstart;
static int duty_list[MAX_TASKS];
static int nduty;
static int rt_list[MAX_TASKS];
static int nrt;
static struct slot *slots;
static size_t slots_size;
static cpu_set_t allowed;

static struct sample *samples;
static int nsamples, samples_cap;
static int64_t kernel_read_ns;	/* time spent reading the kernel's view */

static volatile sig_atomic_t got_signal;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " --nice LIST [options]\n"
"\n"
"Start one CPU-bound process per nice value, measure the CPU share each one\n"
"gets over a window and compare it with the ideal weighted share.\n"
"\n"
"Options:\n"
"  -n, --nice LIST       comma-separated nice values, one per task (-20..19),\n"
"                        e.g. 0,0,19,19 (required)\n"
"  -p, --policy POLICY   normal|batch|idle|o1 (default normal; o1 = SCHED_O1,\n"
"                        policy 8). Policy and nice are set atomically with\n"
"                        sched_setattr() in each task\n"
"  -s, --start LIST      comma-separated initial CPU per task (same count as\n"
"                        --nice); each task pins itself there before spinning\n"
"  -r, --release MS      with --start: run pinned for MS ms, then widen every\n"
"                        task's affinity to the parent's mask (default 200)\n"
"  -d, --duration SEC    measured window in seconds, starting at the release\n"
"                        (float, default 5)\n"
"  -i, --interval MS     also sample every task's share every MS ms during the\n"
"                        window (JSON \"samples\"; default 0 = off)\n"
"  -c, --cpus N          CPUs for the ideal share (default: CPUs in the\n"
"                        allowed mask)\n"
"  -j, --json FILE       write JSON to FILE ('-' = stdout; the table then goes\n"
"                        to stderr)\n"
"  -q, --quiet           do not print the table\n"
"      --ideal-only      only compute and print the ideal shares\n"
"      --waterfill       filter: stdin lines \"CPUS W:DUTY:RT ...\", stdout the\n"
"                        ideal shares of those tasks (for tools/bench-report.py)\n"
"      --rt-parent       run the parent as SCHED_FIFO 1 so it is not starved\n"
"                        by the hogs (needs privilege; hogs reset on fork)\n"
"      --duty LIST       comma-separated duty cycle per task in %% (1..100,\n"
"                        same count as --nice; default 100 = CPU hog): the\n"
"                        task burns duty %% of each period in CPU time, then\n"
"                        sleeps for the rest of the period\n"
"      --period MS       duty-cycle period (default %d)\n"
"      --rt LIST         comma-separated SCHED_FIFO priority per task (0..99,\n"
"                        same count as --nice; 0 = --policy): real-time hogs\n"
"                        among the others (needs privilege)\n"
"      --ready-timeout SEC  give up if the tasks are not all set up after SEC\n"
"                        seconds (default %d; big slow guests need more)\n"
"  -h, --help            show this help\n"
"\n"
"Share = task CPU time delta / window wall time (1.0 = one full CPU).\n"
"Ideal = weights water-filled over --cpus CPUs, no task above one CPU;\n"
"weights: normal/batch = CFS nice weights, idle = 3, o1 = timeslice based.\n"
"A --rt task's ideal is one whole CPU; a --duty task's ideal is at most its\n"
"duty cycle (the water level of a fair scheduler that credits sleepers).\n"
"\n"
"Exit status: 0 ok, 1 runtime error, 2 usage error.\n", DEFAULT_PERIOD_MS,
	READY_TIMEOUT_MS / 1000);
}

/* Parse "a,b,c" into out[]; exit 2 with a message on any bad element. */
static int parse_int_list(const char *optname, const char *arg, long min,
			  long max, int *out)
{
	const char *p = arg;
	int n = 0;

	if (!*arg)
		usage_error("%s: empty list", optname);
	for (;;) {
		size_t len = strcspn(p, ",");
		char buf[32];
		long v;

		if (n == MAX_TASKS)
			usage_error("%s: too many values (max %d)", optname,
				    MAX_TASKS);
		if (!len)
			usage_error("%s '%s': empty element %d", optname, arg,
				    n + 1);
		if (len < sizeof(buf)) {
			memcpy(buf, p, len);
			buf[len] = 0;
		}
		if (len >= sizeof(buf) || parse_long(buf, min, max, &v))
			usage_error("%s '%s': element %d '%.*s' is not an integer in %ld..%ld",
				    optname, arg, n + 1, (int)len, p, min, max);
		out[n++] = v;
		p += len;
		if (!*p)
			break;
		p++;
	}
	return n;
}

static int parse_policy(const char *s)
{
	int i;

	for (i = 0; i < NR_POLICIES; i++)
		if (!strcmp(s, policies[i].name))
			return i;
	usage_error("--policy '%s': expected normal, batch, idle or o1", s);
}

static void fmt_cpuset(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;
	int cpu, first = -1;

	buf[0] = 0;
	for (cpu = 0; cpu <= CPU_SETSIZE; cpu++) {
		bool in = cpu < CPU_SETSIZE && CPU_ISSET(cpu, set);

		if (in && first < 0)
			first = cpu;
		if (in || first < 0)
			continue;
		if (len < size)
			len += snprintf(buf + len, size - len, "%s%d",
					len ? "," : "", first);
		if (len < size && cpu - 1 > first)
			len += snprintf(buf + len, size - len, "-%d", cpu - 1);
		first = -1;
	}
}

/* ------------------------------------------------------------------ */
/* Ideal shares                                                        */

static long o1_weight(int nice)
{
	long base = nice >= 0 ? 100 : 400;
	long slice = base * (20 - nice) / 20;

	if (slice < 5)
		slice = 5;
	return slice * 1024 / 100;
}

/* What the series gives a real-time task: more than any nice level. */
static long rt_weight(int rt_prio)
{
	return o1_weight(NICE_MIN) + rt_prio * 1024L / 100;
}

/*
 * Whole-system mode (/proc/sys/kernel/sched_o1_all = 1): SCHED_NORMAL and
 * SCHED_BATCH tasks run in the O1 class at their nice level's weight,
 * SCHED_IDLE ones at nice 19's.
 */
static bool o1_all;

static bool read_o1_all(void)
{
	FILE *f = fopen("/proc/sys/kernel/sched_o1_all", "r");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

static long task_weight(int policy, int nice)
{
	if (o1_all && policy != POL_O1)
		return o1_weight(policy == POL_IDLE ? NICE_MAX : nice);
	switch (policy) {
	case POL_IDLE:
		return WEIGHT_IDLEPRIO;
	case POL_O1:
		return o1_weight(nice);
	default:
		return prio_to_weight[nice - NICE_MIN];
	}
}

/*
 * Water-filling: R = min(C, n) CPUs of capacity; share out R by weight;
 * tasks that would get more than their cap (one CPU, or their duty cycle)
 * are held at the cap and removed, and the rest is redistributed until
 * nobody is above its cap. Real-time tasks take a whole CPU first.
 */
static void waterfill(struct task *t, int n, int cpus)
{
	bool fixed[MAX_TASKS] = { false };
	double r = cpus < n ? cpus : n;
	int i, nrt = 0;

	for (i = 0; i < n; i++) {
		t[i].ideal = 0.0;
		if (t[i].rt_prio)
			nrt++;
	}
	for (i = 0; i < n; i++) {
		if (!t[i].rt_prio)
			continue;
		/* more real-time hogs than CPUs share the CPUs evenly */
		t[i].ideal = nrt > cpus ? (double)cpus / nrt : 1.0;
		fixed[i] = true;
		r -= t[i].ideal;
	}

	while (r > 0) {
		long long sum = 0;
		int capped = 0;

		for (i = 0; i < n; i++)
			if (!fixed[i])
				sum += t[i].weight;
		if (!sum)
			break;
		for (i = 0; i < n; i++) {
			double cap = t[i].duty / 100.0;

			if (!fixed[i] && t[i].weight * r > cap * sum) {
				fixed[i] = true;
				t[i].ideal = cap;
				r -= cap;
				capped++;
			}
		}
		if (!capped) {
			for (i = 0; i < n; i++)
				if (!fixed[i])
					t[i].ideal = (double)t[i].weight * r / sum;
			break;
		}
	}
}

static void compute_ideal(struct task *t, int n, int cpus)
{
	int i;

	for (i = 0; i < n; i++)
		t[i].weight = t[i].rt_prio ? rt_weight(t[i].rt_prio)
					   : task_weight(opt.policy, t[i].nice);
	waterfill(t, n, cpus);
}

/*
 * --waterfill: the same water-filling for other programs (the bench
 * report): each line of stdin is "CPUS WEIGHT:DUTY:RT_PRIO ...", each line
 * of stdout the ideal shares of those tasks, in order. Ends at EOF; a bad
 * line is an error (exit 2).
 */
static int waterfill_filter(void)
{
	static struct task t[MAX_TASKS];
	char line[65536], *p, *end;
	int n, cpus, i;

	while (fgets(line, sizeof(line), stdin)) {
		cpus = strtol(line, &end, 10);
		if (end == line || cpus < 1)
			usage_error("--waterfill: bad line '%s'", line);
		p = end;
		for (n = 0; n < MAX_TASKS; n++) {
			long w, d, rt;
			int used;

			while (*p == ' ')
				p++;
			if (*p == '\n' || !*p)
				break;
			if (sscanf(p, "%ld:%ld:%ld%n", &w, &d, &rt, &used) != 3 ||
			    w < 0 || d < 1 || d > 100 || rt < 0 || rt > 99)
				usage_error("--waterfill: bad task '%.40s'", p);
			t[n] = (struct task){ .weight = w, .duty = d, .rt_prio = rt };
			p += used;
		}
		waterfill(t, n, cpus);
		for (i = 0; i < n; i++)
			printf("%s%.12g", i ? " " : "", t[i].ideal);
		printf("\n");
		fflush(stdout);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Child                                                               */

static void __noreturn child_fail(struct slot *s, int step)
{
	s->err = errno;
	s->step = step;
	__atomic_store_n(&s->state, ST_FAILED, __ATOMIC_RELEASE);
	_exit(1);
}

/* Burn SPIN_CHECK iterations, then note a CPU change in the slot. */
static void spin_and_track(struct slot *s, uint64_t *x, int *last,
			   long *migrations)
{
	int cpu, i;

	for (i = 0; i < SPIN_CHECK; i++) {
		*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ __volatile__("" : "+r" (*x));
	}
	cpu = sched_getcpu();
	if (cpu != *last) {
		*last = cpu;
		__atomic_store_n(&s->migrations, ++*migrations, __ATOMIC_RELAXED);
		__atomic_store_n(&s->cpu, cpu, __ATOMIC_RELAXED);
	}
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * A CPU hog, or with duty < 100 a task that burns duty % of each period
 * in CPU time and then sleeps for the rest of the period.
 */
static void __noreturn hog(struct slot *s, int duty)
{
	int64_t run_ns = opt.period_ms * NSEC_PER_MSEC * duty / 100;
	struct timespec nap = {
		.tv_sec		= opt.period_ms * (100 - duty) / 100 / 1000,
		.tv_nsec	= opt.period_ms * (100 - duty) / 100 % 1000 *
				  NSEC_PER_MSEC,
	};
	uint64_t x = getpid();
	long migrations = 0;
	int last = sched_getcpu();

	__atomic_store_n(&s->cpu, last, __ATOMIC_RELAXED);
	__atomic_store_n(&s->migrations, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->state, ST_READY, __ATOMIC_RELEASE);

	if (duty >= 100)
		for (;;)
			spin_and_track(s, &x, &last, &migrations);
	for (;;) {
		int64_t until = thread_cpu_ns() + run_ns;

		do
			spin_and_track(s, &x, &last, &migrations);
		while (thread_cpu_ns() < until);
		nanosleep(&nap, NULL);
	}
}

static void __noreturn child_main(struct task *t, struct slot *s, pid_t parent)
{
	struct sched_attr attr = {
		.size		= sizeof(attr),
		.sched_policy	= policies[opt.policy].policy,
		.sched_nice	= t->nice,
	};
	sigset_t set;

	if (t->rt_prio) {
		attr.sched_policy = SCHED_FIFO;
		attr.sched_nice = 0;
		attr.sched_priority = t->rt_prio;
	}

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);

	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		child_fail(s, STEP_PDEATHSIG);
	if (getppid() != parent)	/* parent already gone */
		_exit(1);

	/*
	 * Pin first: a task that took its policy on a CPU where a --rt hog
	 * already spins might never run again to move away.
	 */
	if (t->start_cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(t->start_cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			child_fail(s, STEP_AFFINITY);
	}

	if (sched_setattr(0, &attr, 0))
		child_fail(s, STEP_SETATTR);
	hog(s, t->duty);
}

/* ------------------------------------------------------------------ */
/* Parent                                                              */

static void on_signal(int sig)
{
	got_signal = sig;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Sleep until absolute CLOCK_MONOTONIC time; -1 if a signal asks to stop. */
static int sleep_until(int64_t deadline)
{
	struct timespec ts = {
		.tv_sec		= deadline / NSEC_PER_SEC,
		.tv_nsec	= deadline % NSEC_PER_SEC,
	};
	int ret;

	while (!got_signal) {
		ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (!ret)
			return 0;
		if (ret != EINTR) {
			errno = ret;
			return -1;
		}
	}
	return -1;
}

static void kill_children(void)
{
	int i;

	for (i = 0; i < opt.ntasks; i++)
		if (tasks[i].pid > 0)
			kill(tasks[i].pid, SIGKILL);
	for (i = 0; i < opt.ntasks; i++) {
		if (tasks[i].pid <= 0)
			continue;
		while (waitpid(tasks[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
		tasks[i].pid = 0;
	}
}

static void __noreturn die_with_children(void)
{
	int sig = got_signal;

	kill_children();
	if (sig) {
		err_msg("interrupted by signal %d (%s), tasks killed", sig,
			strsignal(sig));
		exit(128 + sig);
	}
	exit(1);
}

static const char *task_policy(const struct task *t)
{
	return t->rt_prio ? "fifo" : policies[opt.policy].name;
}

static void report_child_failure(int i)
{
	struct task *t = &tasks[i];
	struct slot *s = &slots[i];
	const char *pol = task_policy(t);

	switch (s->step) {
	case STEP_SETATTR:
		if (s->err == EINVAL && opt.policy == POL_O1 && !t->rt_prio)
			err_msg(NO_SCHED_O1_MSG);
		else if (s->err == EPERM)
			err_msg("task %d: sched_setattr(policy %s, nice %d): not permitted: %s",
				i, pol, t->nice,
				t->rt_prio ? "SCHED_FIFO needs CAP_SYS_NICE or RLIMIT_RTPRIO" :
				t->nice < 0 ? "a negative nice needs CAP_SYS_NICE or RLIMIT_NICE"
					    : "needs CAP_SYS_NICE");
		else
			err_msg("task %d: sched_setattr(policy %s, nice %d): %s",
				i, pol, t->nice, strerror(s->err));
		break;
	case STEP_AFFINITY:
		err_msg("task %d: cannot pin itself to CPU %d: %s", i,
			t->start_cpu, strerror(s->err));
		break;
	case STEP_PDEATHSIG:
		err_msg("task %d: prctl(PR_SET_PDEATHSIG): %s", i,
			strerror(s->err));
		break;
	default:
		err_msg("task %d: setup failed", i);
	}
}

/* Wait until every child has reported ready; -1 (message printed) if not. */
static int wait_ready(void)
{
	int64_t deadline = now_ns() + opt.ready_timeout_ms * NSEC_PER_MSEC;
	int i, nready, status;

	for (;;) {
		nready = 0;
		for (i = 0; i < opt.ntasks; i++) {
			int st = __atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE);

			if (st == ST_FAILED) {
				report_child_failure(i);
				return -1;
			}
			if (st == ST_READY) {
				nready++;
				continue;
			}
			if (waitpid(tasks[i].pid, &status, WNOHANG) == tasks[i].pid) {
				tasks[i].pid = 0;
				/* it may have reported just before exiting */
				if (__atomic_load_n(&slots[i].state,
						    __ATOMIC_ACQUIRE) == ST_FAILED)
					report_child_failure(i);
				else
					err_msg("task %d died during setup", i);
				return -1;
			}
		}
		if (nready == opt.ntasks)
			return 0;
		if (got_signal)
			return -1;
		if (now_ns() > deadline) {
			err_msg("tasks not ready after %ld ms", opt.ready_timeout_ms);
			return -1;
		}
		usleep(1000);
	}
}

/* Read se.nr_migrations from /proc/PID/sched, -1 if not available. */
static long kernel_migrations(pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char *colon;

		if (strncmp(line, "se.nr_migrations", 16) ||
		    (line[16] != ' ' && line[16] != ':'))
			continue;
		colon = strchr(line, ':');
		if (colon)
			val = strtol(colon + 1, NULL, 10);
		break;
	}
	free(line);
	fclose(f);
	return val;
}

/* The CPU whose queue holds @pid (field 39 of /proc/PID/stat), -1 unknown. */
static int kernel_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	int field, cpu = -1;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name may hold spaces and ')': fields follow the last ')'. */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 39; field++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%d", &cpu) != 1)
		cpu = -1;
	return cpu;
}

/*
 * Read every task's CPU clock; the wall time returned is the midpoint of
 * the reads. Returns -1 (message printed) if a task vanished.
 */
static int read_cpu_clocks(int64_t *ns, int64_t *wall)
{
	int64_t t0, t1;
	struct timespec ts;
	int i;

	t0 = now_ns();
	for (i = 0; i < opt.ntasks; i++) {
		if (clock_gettime(tasks[i].clk, &ts)) {
			err_msg("task %d (pid %d): cannot read its CPU clock: %s",
				i, (int)tasks[i].pid, strerror(errno));
			return -1;
		}
		ns[i] = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	}
	t1 = now_ns();
	*wall = t0 + (t1 - t0) / 2;
	return 0;
}

static int check_alive(void)
{
	int i, status;

	for (i = 0; i < opt.ntasks; i++) {
		if (waitpid(tasks[i].pid, &status, WNOHANG) == tasks[i].pid) {
			tasks[i].pid = 0;
			err_msg("task %d died during the measurement (%s %d)", i,
				WIFSIGNALED(status) ? "signal" : "exit status",
				WIFSIGNALED(status) ? WTERMSIG(status)
						    : WEXITSTATUS(status));
			return -1;
		}
	}
	return 0;
}

static int snapshot(int k, int64_t *wall)
{
	int64_t ns[MAX_TASKS];
	int i;

	if (read_cpu_clocks(ns, wall))
		return -1;
	for (i = 0; i < opt.ntasks; i++) {
		tasks[i].cpu_ns[k] = ns[i];
		tasks[i].migr[k] = __atomic_load_n(&slots[i].migrations,
						   __ATOMIC_RELAXED);
		tasks[i].kmigr[k] = kernel_migrations(tasks[i].pid);
	}
	return 0;
}

static int take_sample(int64_t start, int64_t *prev_wall, int64_t *prev_ns)
{
	struct sample *s = &samples[nsamples];
	int64_t ns[MAX_TASKS], wall, t0;
	double dt;
	int i;

	if (read_cpu_clocks(ns, &wall))
		return -1;
	dt = (double)(wall - *prev_wall);
	s->t = (double)(wall - start) / NSEC_PER_SEC;
	for (i = 0; i < opt.ntasks; i++) {
		s->share[i] = dt > 0 ? (ns[i] - prev_ns[i]) / dt : 0.0;
		s->cpu[i] = __atomic_load_n(&slots[i].cpu, __ATOMIC_RELAXED);
		s->migr[i] = __atomic_load_n(&slots[i].migrations,
					     __ATOMIC_RELAXED) - tasks[i].migr[0];
		prev_ns[i] = ns[i];
	}
	/* After the clocks, so that the shares' interval is not stretched. */
	t0 = now_ns();
	for (i = 0; i < opt.ntasks && s->kmigr; i++) {
		long km = tasks[i].kmigr[0] >= 0 ? kernel_migrations(tasks[i].pid) : -1;

		s->kcpu[i] = kernel_cpu(tasks[i].pid);
		if (km < 0 || s->kcpu[i] < 0) {
			free(s->kcpu);
			free(s->kmigr);
			s->kcpu = NULL;
			s->kmigr = NULL;
			break;
		}
		s->kmigr[i] = km - tasks[i].kmigr[0];
	}
	kernel_read_ns += now_ns() - t0;
	*prev_wall = wall;
	nsamples++;
	return 0;
}

static int alloc_samples(int n)
{
	int i;

	samples = calloc(n, sizeof(*samples));
	if (!samples)
		return -1;
	samples_cap = n;
	for (i = 0; i < n; i++) {
		samples[i].share = calloc(opt.ntasks, sizeof(double));
		samples[i].cpu = calloc(opt.ntasks, sizeof(int));
		samples[i].migr = calloc(opt.ntasks, sizeof(long));
		samples[i].kcpu = calloc(opt.ntasks, sizeof(int));
		samples[i].kmigr = calloc(opt.ntasks, sizeof(long));
		if (!samples[i].share || !samples[i].cpu || !samples[i].migr ||
		    !samples[i].kcpu || !samples[i].kmigr)
			return -1;
	}
	return 0;
}

static void free_samples(void)
{
	int i;

	if (!samples)
		return;
	for (i = 0; i < samples_cap; i++) {
		free(samples[i].share);
		free(samples[i].cpu);
		free(samples[i].migr);
		free(samples[i].kcpu);
		free(samples[i].kmigr);
	}
	free(samples);
}

static int set_rt_parent(void)
{
	struct sched_attr attr = {
		.size		= sizeof(attr),
		.sched_policy	= SCHED_FIFO,
		.sched_flags	= SCHED_FLAG_RESET_ON_FORK,
		.sched_priority	= 1,
	};

	if (!sched_setattr(0, &attr, 0))
		return 0;
	err_msg("--rt-parent: cannot make the parent SCHED_FIFO: %s%s",
		strerror(errno),
		errno == EPERM ? " (needs CAP_SYS_NICE or RLIMIT_RTPRIO)" : "");
	return -1;
}

/* Run the benchmark; returns the measured window in seconds. */
static double run(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;
	int64_t t_start, t_end, deadline, prev_wall;
	int64_t prev_ns[MAX_TASKS];
	pid_t parent = getpid();
	int i, nmax = 0;

	slots_size = sizeof(struct slot) * opt.ntasks;
	slots = mmap(NULL, slots_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED) {
		err_msg("mmap: %s", strerror(errno));
		exit(1);
	}

	if (opt.interval_ms) {
		nmax = (int)floor(opt.duration * 1000.0 / opt.interval_ms + 0.000000001);
		if (alloc_samples(nmax)) {
			err_msg("out of memory for %d samples", nmax);
			exit(1);
		}
	}

	if (opt.rt_parent && set_rt_parent())
		exit(1);

	/* Children start with default signal handling. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	fflush(NULL);
	for (i = 0; i < opt.ntasks; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			err_msg("fork: %s", strerror(errno));
			die_with_children();
		}
		if (!pid)
			child_main(&tasks[i], &slots[i], parent);
		tasks[i].pid = pid;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);

	for (i = 0; i < opt.ntasks; i++) {
		int ret = clock_getcpuclockid(tasks[i].pid, &tasks[i].clk);

		if (ret) {
			err_msg("clock_getcpuclockid(task %d): %s", i,
				strerror(ret));
			die_with_children();
		}
	}

	if (wait_ready())
		die_with_children();

	if (opt.have_start) {
		if (sleep_until(now_ns() + opt.release_ms * NSEC_PER_MSEC))
			die_with_children();
		for (i = 0; i < opt.ntasks; i++) {
			if (sched_setaffinity(tasks[i].pid, sizeof(allowed),
					      &allowed)) {
				err_msg("task %d: cannot widen its affinity: %s",
					i, strerror(errno));
				die_with_children();
			}
		}
	}

	if (snapshot(0, &t_start))
		die_with_children();
	deadline = t_start + (int64_t)llround(opt.duration * NSEC_PER_SEC);

	prev_wall = t_start;
	for (i = 0; i < opt.ntasks; i++)
		prev_ns[i] = tasks[i].cpu_ns[0];
	for (i = 1; i <= nmax; i++) {
		int64_t at = t_start + i * opt.interval_ms * NSEC_PER_MSEC;

		if (at > deadline)
			at = deadline;
		if (sleep_until(at) || take_sample(t_start, &prev_wall, prev_ns))
			die_with_children();
	}
	if (sleep_until(deadline) || check_alive() || snapshot(1, &t_end))
		die_with_children();

	for (i = 0; i < opt.ntasks; i++) {
		tasks[i].end_cpu = __atomic_load_n(&slots[i].cpu, __ATOMIC_RELAXED);
		tasks[i].kend_cpu = kernel_cpu(tasks[i].pid);
	}

	kill_children();
	munmap(slots, slots_size);
	return (double)(t_end - t_start) / NSEC_PER_SEC;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

struct summary {
	double max_rel_err;
	double mean_rel_err;
	bool have_ratio;
	double ratio;
	double ideal_ratio;
};

static void summarize(struct summary *s)
{
	double sum0 = 0, sum19 = 0, isum0 = 0, isum19 = 0, sum_err = 0;
	int n0 = 0, n19 = 0, i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < opt.ntasks; i++) {
		struct task *t = &tasks[i];
		double err = t->ideal > 0 ? fabs(t->share - t->ideal) / t->ideal : 0;

		if (err > s->max_rel_err)
			s->max_rel_err = err;
		sum_err += err;
		if (t->rt_prio || t->duty < 100)
			continue;	/* the ratio is one of CPU hogs */
		if (t->nice == 0) {
			sum0 += t->share;
			isum0 += t->ideal;
			n0++;
		} else if (t->nice == 19) {
			sum19 += t->share;
			isum19 += t->ideal;
			n19++;
		}
	}
	s->mean_rel_err = sum_err / opt.ntasks;
	if (n0 && n19 && sum19 > 0) {
		s->have_ratio = true;
		s->ratio = (sum0 / n0) / (sum19 / n19);
		s->ideal_ratio = (isum0 / n0) / (isum19 / n19);
	}
}

static void print_ideal_table(FILE *f)
{
	int i;

	fprintf(f, "# " PROG " ideal shares: policy=%s cpus=%d tasks=%d\n",
		policies[opt.policy].name, opt.cpus, opt.ntasks);
	fprintf(f, "%4s %4s %-6s %7s %7s\n", "task", "nice", "policy", "weight",
		"ideal%");
	for (i = 0; i < opt.ntasks; i++)
		fprintf(f, "%4d %4d %-6s %7ld %7.2f\n", i, tasks[i].nice,
			task_policy(&tasks[i]), tasks[i].weight,
			tasks[i].ideal * 100.0);
}

static void write_ideal_json(FILE *f)
{
	int i;

	fprintf(f, "{\"policy\": \"%s\", \"cpus\": %d, \"tasks\": [",
		policies[opt.policy].name, opt.cpus);
	for (i = 0; i < opt.ntasks; i++)
		fprintf(f, "%s\n  {\"task\": %d, \"nice\": %d, \"weight\": %ld, \"ideal\": %.6f, "
			"\"duty\": %d, \"rt_prio\": %d}",
			i ? "," : "", i, tasks[i].nice, tasks[i].weight,
			tasks[i].ideal, tasks[i].duty, tasks[i].rt_prio);
	fprintf(f, "\n]}\n");
}

static void print_table(FILE *f, double window, const struct summary *s)
{
	int i;

	fprintf(f, "# " PROG ": policy=%s%s cpus=%d window=%.3fs release=%ldms tasks=%d\n",
		policies[opt.policy].name, o1_all ? " (whole-system O1)" : "",
		opt.cpus, window, opt.release_ms,
		opt.ntasks);
	fprintf(f, "%4s %4s %-6s %5s %7s %7s %7s %6s %4s\n", "task", "nice",
		"policy", "start", "share%", "ideal%", "err%", "migr", "cpu");
	for (i = 0; i < opt.ntasks; i++) {
		struct task *t = &tasks[i];
		char start[16] = "-";

		if (t->start_cpu >= 0)
			snprintf(start, sizeof(start), "%d", t->start_cpu);
		fprintf(f, "%4d %4d %-6s %5s %7.2f %7.2f %+7.2f %6ld %4d\n", i,
			t->nice, task_policy(t), start,
			t->share * 100.0, t->ideal * 100.0,
			t->ideal > 0 ? (t->share - t->ideal) / t->ideal * 100.0 : 0,
			t->migr[1] - t->migr[0], t->end_cpu);
	}
	fprintf(f, "# max rel err %.2f%%, mean rel err %.2f%%", s->max_rel_err * 100.0,
		s->mean_rel_err * 100.0);
	if (s->have_ratio)
		fprintf(f, ", share ratio nice0/nice19 %.2f (ideal %.2f)",
			s->ratio, s->ideal_ratio);
	fputc('\n', f);
}

static void write_json(FILE *f, double window, const struct summary *s)
{
	int i, k;

	fprintf(f, "{\n\"policy\": \"%s\",\n\"o1_all\": %s,\n\"cpus\": %d,\n\"duration_s\": %.6f,\n"
		"\"window_s\": %.6f,\n\"release_ms\": %ld,\n\"interval_ms\": %ld,\n"
		"\"period_ms\": %ld,\n\"tasks\": [",
		policies[opt.policy].name, o1_all ? "true" : "false", opt.cpus,
		opt.duration, window,
		opt.release_ms, opt.interval_ms, opt.period_ms);
	for (i = 0; i < opt.ntasks; i++) {
		struct task *t = &tasks[i];

		fprintf(f, "%s\n  {\"task\": %d, \"nice\": %d, ", i ? "," : "",
			i, t->nice);
		if (t->start_cpu >= 0)
			fprintf(f, "\"start_cpu\": %d, ", t->start_cpu);
		else
			fprintf(f, "\"start_cpu\": null, ");
		fprintf(f, "\"weight\": %ld, \"share\": %.6f, \"ideal\": %.6f, ",
			t->weight, t->share, t->ideal);
		fprintf(f, "\"migrations\": %ld, ", t->migr[1] - t->migr[0]);
		if (t->kmigr[0] >= 0 && t->kmigr[1] >= 0)
			fprintf(f, "\"nr_migrations_kernel\": %ld, ",
				t->kmigr[1] - t->kmigr[0]);
		else
			fprintf(f, "\"nr_migrations_kernel\": null, ");
		if (t->kend_cpu >= 0)
			fprintf(f, "\"kernel_end_cpu\": %d, ", t->kend_cpu);
		else
			fprintf(f, "\"kernel_end_cpu\": null, ");
		fprintf(f, "\"end_cpu\": %d, \"policy\": \"%s\", \"duty\": %d, "
			"\"rt_prio\": %d}", t->end_cpu, task_policy(t), t->duty,
			t->rt_prio);
	}
	fprintf(f, "\n],\n\"summary\": {\"max_rel_err\": %.6f, \"mean_rel_err\": %.6f, ",
		s->max_rel_err, s->mean_rel_err);
	if (s->have_ratio)
		fprintf(f, "\"ratio_nice0_nice19\": %.4f, \"ideal_ratio_nice0_nice19\": %.4f}",
			s->ratio, s->ideal_ratio);
	else
		fprintf(f, "\"ratio_nice0_nice19\": null, \"ideal_ratio_nice0_nice19\": null}");

	if (opt.interval_ms) {
		fprintf(f, ",\n\"kernel_read_us\": %.1f", nsamples ?
			(double)kernel_read_ns / nsamples / 1000.0 : 0.0);
		fprintf(f, ",\n\"samples\": [");
		for (k = 0; k < nsamples; k++) {
			fprintf(f, "%s\n  {\"t\": %.4f, \"share\": [", k ? "," : "",
				samples[k].t);
			for (i = 0; i < opt.ntasks; i++)
				fprintf(f, "%s%.4f", i ? ", " : "",
					samples[k].share[i]);
			fprintf(f, "], \"cpu\": [");
			for (i = 0; i < opt.ntasks; i++)
				fprintf(f, "%s%d", i ? ", " : "", samples[k].cpu[i]);
			fprintf(f, "], \"migr\": [");
			for (i = 0; i < opt.ntasks; i++)
				fprintf(f, "%s%ld", i ? ", " : "", samples[k].migr[i]);
			if (samples[k].kmigr) {
				fprintf(f, "], \"kcpu\": [");
				for (i = 0; i < opt.ntasks; i++)
					fprintf(f, "%s%d", i ? ", " : "",
						samples[k].kcpu[i]);
				fprintf(f, "], \"kmigr\": [");
				for (i = 0; i < opt.ntasks; i++)
					fprintf(f, "%s%ld", i ? ", " : "",
						samples[k].kmigr[i]);
			}
			fprintf(f, "]}");
		}
		fprintf(f, "\n]");
	}
	fprintf(f, "\n}\n");
}

/* ------------------------------------------------------------------ */

enum {
	OPT_IDEAL_ONLY = 256,
	OPT_RT_PARENT,
	OPT_DUTY,
	OPT_PERIOD,
	OPT_RT,
	OPT_READY_TIMEOUT,
	OPT_WATERFILL,
};

static const struct option longopts[] = {
	{ "nice",	required_argument,	NULL, 'n' },
	{ "policy",	required_argument,	NULL, 'p' },
	{ "start",	required_argument,	NULL, 's' },
	{ "release",	required_argument,	NULL, 'r' },
	{ "duration",	required_argument,	NULL, 'd' },
	{ "interval",	required_argument,	NULL, 'i' },
	{ "cpus",	required_argument,	NULL, 'c' },
	{ "json",	required_argument,	NULL, 'j' },
	{ "quiet",	no_argument,		NULL, 'q' },
	{ "ideal-only",	no_argument,		NULL, OPT_IDEAL_ONLY },
	{ "rt-parent",	no_argument,		NULL, OPT_RT_PARENT },
	{ "duty",	required_argument,	NULL, OPT_DUTY },
	{ "period",	required_argument,	NULL, OPT_PERIOD },
	{ "rt",		required_argument,	NULL, OPT_RT },
	{ "ready-timeout", required_argument,	NULL, OPT_READY_TIMEOUT },
	{ "waterfill",	no_argument,		NULL, OPT_WATERFILL },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

static void parse_args(int argc, char **argv)
{
	int nice_list[MAX_TASKS];
	char *end;
	long v;
	int c, i;

	while ((c = getopt_long(argc, argv, "n:p:s:r:d:i:c:j:qh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'n':
			opt.ntasks = parse_int_list("--nice", optarg, NICE_MIN,
						    NICE_MAX, nice_list);
			opt.have_nice = true;
			break;
		case 'p':
			opt.policy = parse_policy(optarg);
			break;
		case 's':
			nstart = parse_int_list("--start", optarg, 0,
						CPU_SETSIZE - 1, start_list);
			opt.have_start = true;
			break;
		case 'r':
			if (parse_long(optarg, 0, 3600 * 1000L, &v))
				usage_error("--release '%s': expected milliseconds in 0..3600000",
					    optarg);
			opt.release_ms = v;
			break;
		case 'd':
			errno = 0;
			opt.duration = strtod(optarg, &end);
			if (!*optarg || *end || errno || !isfinite(opt.duration) ||
			    opt.duration <= 0 || opt.duration > 86400)
				usage_error("--duration '%s': expected seconds > 0 and <= 86400",
					    optarg);
			break;
		case 'i':
			if (parse_long(optarg, 0, 3600 * 1000L, &v))
				usage_error("--interval '%s': expected milliseconds in 0..3600000",
					    optarg);
			opt.interval_ms = v;
			break;
		case 'c':
			if (parse_long(optarg, 1, CPU_SETSIZE, &v))
				usage_error("--cpus '%s': expected an integer in 1..%d",
					    optarg, CPU_SETSIZE);
			opt.cpus = v;
			break;
		case 'j':
			if (!*optarg)
				usage_error("--json: empty file name");
			opt.json = optarg;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case OPT_IDEAL_ONLY:
			opt.ideal_only = true;
			break;
		case OPT_WATERFILL:
			exit(waterfill_filter());
		case OPT_RT_PARENT:
			opt.rt_parent = true;
			break;
		case OPT_DUTY:
			nduty = parse_int_list("--duty", optarg, 1, 100, duty_list);
			break;
		case OPT_PERIOD:
			if (parse_long(optarg, 1, 60 * 1000L, &v))
				usage_error("--period '%s': expected milliseconds in 1..60000",
					    optarg);
			opt.period_ms = v;
			break;
		case OPT_RT:
			nrt = parse_int_list("--rt", optarg, 0, 99, rt_list);
			break;
		case OPT_READY_TIMEOUT:
			if (parse_long(optarg, 1, 3600, &v))
				usage_error("--ready-timeout '%s': expected seconds in 1..3600",
					    optarg);
			opt.ready_timeout_ms = v * 1000;
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
	if (!opt.have_nice)
		usage_error("--nice LIST is required");

	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		err_msg("sched_getaffinity: %s", strerror(errno));
		exit(1);
	}
	if (!opt.cpus)
		opt.cpus = CPU_COUNT(&allowed);

	if (opt.have_start) {
		if (nstart != opt.ntasks)
			usage_error("--start has %d CPUs but --nice has %d tasks",
				    nstart, opt.ntasks);
		for (i = 0; i < nstart; i++) {
			char buf[256];

			if (CPU_ISSET(start_list[i], &allowed))
				continue;
			fmt_cpuset(&allowed, buf, sizeof(buf));
			usage_error("--start: CPU %d (task %d) is not in the allowed CPU mask %s",
				    start_list[i], i, buf);
		}
	} else {
		opt.release_ms = 0;	/* nothing to release */
	}
	if (nduty && nduty != opt.ntasks)
		usage_error("--duty has %d values but --nice has %d tasks",
			    nduty, opt.ntasks);
	if (nrt && nrt != opt.ntasks)
		usage_error("--rt has %d values but --nice has %d tasks",
			    nrt, opt.ntasks);

	for (i = 0; i < opt.ntasks; i++) {
		tasks[i].nice = nice_list[i];
		tasks[i].start_cpu = opt.have_start ? start_list[i] : -1;
		tasks[i].duty = nduty ? duty_list[i] : 100;
		tasks[i].rt_prio = nrt ? rt_list[i] : 0;
		tasks[i].kmigr[0] = -1;
		tasks[i].kmigr[1] = -1;
	}
}

int main(int argc, char **argv)
{
	FILE *json, *table;
	struct summary sum;
	double window;
	int i, ret;

	parse_args(argc, argv);
	o1_all = read_o1_all();
	compute_ideal(tasks, opt.ntasks, opt.cpus);

	json = open_json(opt.json);
	table = json == stdout ? stderr : stdout;

	if (opt.ideal_only) {
		if (!opt.quiet)
			print_ideal_table(table);
		if (json)
			write_ideal_json(json);
		return close_json(json, opt.json);
	}

	window = run();
	for (i = 0; i < opt.ntasks; i++)
		tasks[i].share = (tasks[i].cpu_ns[1] - tasks[i].cpu_ns[0]) /
				 (window * NSEC_PER_SEC);
	summarize(&sum);

	if (!opt.quiet)
		print_table(table, window, &sum);
	if (json)
		write_json(json, window, &sum);
	ret = close_json(json, opt.json);
	free_samples();
	return ret;
}
