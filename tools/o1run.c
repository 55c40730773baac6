// SPDX-License-Identifier: GPL-2.0
/*
 * o1run - run a command (or move a task) under SCHED_O1, in the spirit of
 * chrt(1) and nice(1).
 *
 *   o1run [-n NICE] [-R] [--] COMMAND [ARG...]
 *   o1run -p PID [-n NICE] [-R]
 *   o1run --show -p PID
 *   o1run --normal [-n NICE] [-R] (-p PID | [--] COMMAND [ARG...])
 *
 * Policy and nice are set atomically with sched_setattr().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>

#define PROG			"o1run"
#include "sched_o1.h"

static const char *const policy_names[] = {
	[0] = "SCHED_OTHER",
	[1] = "SCHED_FIFO",
	[2] = "SCHED_RR",
	[3] = "SCHED_BATCH",
	[5] = "SCHED_IDLE",
	[6] = "SCHED_DEADLINE",
	[7] = "SCHED_EXT",
	[8] = "SCHED_O1",
};

static const char *policy_name(unsigned int policy)
{
	if (policy < ARRAY_SIZE(policy_names) && policy_names[policy])
		return policy_names[policy];
	return "unknown";
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [-n NICE] [-R] [--] COMMAND [ARG...]\n"
"       " PROG " -p PID [-n NICE] [-R]\n"
"       " PROG " --show -p PID\n"
"       " PROG " --normal [-n NICE] [-R] (-p PID | [--] COMMAND [ARG...])\n"
"\n"
"Run COMMAND under SCHED_O1 (policy 8), or move the existing task PID to it.\n"
"Policy and nice are set atomically with sched_setattr().\n"
"\n"
"Options:\n"
"  -n, --nice NICE       nice value -20..19 (default: keep the current nice)\n"
"  -p, --pid PID         operate on the existing task (thread id) PID\n"
"  -R, --reset-on-fork   set SCHED_FLAG_RESET_ON_FORK: children start as\n"
"                        SCHED_OTHER with nice 0 if the nice was negative\n"
"  -s, --show            print PID's policy, nice and time slice\n"
"      --normal          move to SCHED_NORMAL instead of SCHED_O1\n"
"  -h, --help            show this help\n"
"\n"
"Exit status: 0 ok, 1 scheduling error, 2 usage error, 126/127 COMMAND could\n"
"not be executed / was not found (like env(1)); otherwise COMMAND's status.\n");
}

/* "pid 123" or "the calling process", for messages */
static const char *target_str(pid_t pid)
{
	static char buf[32];

	if (!pid)
		return "the calling process";
	snprintf(buf, sizeof(buf), "pid %d", (int)pid);
	return buf;
}

static int show(pid_t pid)
{
	struct sched_attr attr;
	struct timespec ts;

	memset(&attr, 0, sizeof(attr));
	if (sched_getattr(pid, &attr, sizeof(attr), 0)) {
		if (errno == ESRCH)
			fprintf(stderr, PROG ": no such process: %d\n", (int)pid);
		else
			fprintf(stderr, PROG ": sched_getattr(%s): %s\n",
				target_str(pid), strerror(errno));
		return 1;
	}
	if (sched_rr_get_interval(pid, &ts)) {
		fprintf(stderr, PROG ": sched_rr_get_interval(%s): %s\n",
			target_str(pid), strerror(errno));
		return 1;
	}
	printf("pid %d: policy %s (%u)", (int)pid, policy_name(attr.sched_policy),
	       attr.sched_policy);
	if (attr.sched_policy == SCHED_FIFO || attr.sched_policy == SCHED_RR)
		printf(", priority %u", attr.sched_priority);
	printf(", nice %d, timeslice %.3f ms%s\n", attr.sched_nice,
	       ts.tv_sec * 1e3 + ts.tv_nsec / 1e6,
	       attr.sched_flags & SCHED_FLAG_RESET_ON_FORK ? ", reset-on-fork" : "");
	return 0;
}

static int set_policy(pid_t pid, int policy, bool have_nice, int nice,
		      bool reset_on_fork)
{
	struct sched_attr attr = {
		.size		= sizeof(attr),
		.sched_policy	= policy,
		.sched_flags	= reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0,
	};
	int cur;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, pid);
	if (cur == -1 && errno) {
		if (errno == ESRCH)
			fprintf(stderr, PROG ": no such process: %d\n", (int)pid);
		else
			fprintf(stderr, PROG ": getpriority(%s): %s\n",
				target_str(pid), strerror(errno));
		return 1;
	}
	attr.sched_nice = have_nice ? nice : cur;

	if (!sched_setattr(pid, &attr, 0))
		return 0;

	if (errno == EINVAL && policy == SCHED_O1) {
		fprintf(stderr, PROG ": " NO_SCHED_O1_MSG "\n");
		return 1;
	}
	switch (errno) {
	case ESRCH:
		fprintf(stderr, PROG ": no such process: %d\n", (int)pid);
		break;
	case EPERM:
		fprintf(stderr, PROG ": sched_setattr(%s, %s, nice %d): not permitted: %s\n",
			target_str(pid), policy_name(policy), attr.sched_nice,
			attr.sched_nice < cur ?
			"lowering nice needs CAP_SYS_NICE or RLIMIT_NICE" :
			pid ? "changing another user's task needs CAP_SYS_NICE" :
			"this policy change needs CAP_SYS_NICE");
		break;
	default:
		fprintf(stderr, PROG ": sched_setattr(%s, %s, nice %d): %s\n",
			target_str(pid), policy_name(policy), attr.sched_nice,
			strerror(errno));
		break;
	}	return 1;
}

enum { OPT_NORMAL = 256 };

static const struct option longopts[] = {
	{ "nice",		required_argument,	NULL, 'n' },
	{ "pid",		required_argument,	NULL, 'p' },
	{ "reset-on-fork",	no_argument,		NULL, 'R' },
	{ "show",		no_argument,		NULL, 's' },
	{ "normal",		no_argument,		NULL, OPT_NORMAL },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 }
};

int main(int argc, char **argv)
{
	bool have_nice = false, reset_on_fork = false, do_show = false;
	bool normal = false;
	pid_t pid = 0;
	long v;
	int nice = 0, c, ret;

	/* '+': stop at the first non-option, it is the COMMAND */
	while ((c = getopt_long(argc, argv, "+n:p:Rsh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_long(optarg, NICE_MIN, NICE_MAX, &v))
				usage_error("--nice '%s': expected an integer in %d..%d",
					    optarg, NICE_MIN, NICE_MAX);
			nice = v;
			have_nice = true;
			break;
		case 'p':
			if (parse_long(optarg, 1, INT32_MAX, &v))
				usage_error("--pid '%s': expected a positive process id",
					    optarg);
			pid = v;
			break;
		case 'R':
			reset_on_fork = true;
			break;
		case 's':
			do_show = true;
			break;
		case OPT_NORMAL:
			normal = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "Try '" PROG " --help' for more information.\n");
			return 2;
		}
	}

	if (do_show) {
		if (!pid)
			usage_error("--show needs -p PID");
		if (have_nice || reset_on_fork || normal)
			usage_error("--show cannot be combined with %s",
				    "--nice, --reset-on-fork or --normal");
		if (optind < argc)
			usage_error("--show takes no command ('%s')", argv[optind]);
		return show(pid);
	}
	if (pid && optind < argc)
		usage_error("give either -p PID or a command, not both ('%s')",
			    argv[optind]);
	if (!pid && optind == argc)
		usage_error("missing command (or -p PID)");

	ret = set_policy(pid, normal ? SCHED_OTHER : SCHED_O1, have_nice, nice,
			 reset_on_fork);
	if (ret || pid)
		return ret;

	execvp(argv[optind], &argv[optind]);
	ret = errno == ENOENT ? 127 : 126;
	fprintf(stderr, PROG ": failed to execute '%s': %s\n", argv[optind],
		strerror(errno));
	return ret;
}
