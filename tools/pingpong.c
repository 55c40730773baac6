// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: a starvation check in the manner of LTP's cfs-scheduler tests.
 * Two tasks hand a signal back and forth ROUNDS times on one CPU while
 * CPU hogs spin on that CPU; a scheduler that lets the hogs keep the CPU
 * after each wake-up makes the round trips slow, one that loses a wake-up
 * never finishes (the timeout ends the run with exit status 1).
 *
 * Every task inherits the caller's policy and nice level: run it under
 * o1run for SCHED_O1, or plainly for SCHED_NORMAL (whole-system mode puts
 * that in the O1 class).
 *
 * Usage: pingpong [-n ROUNDS] [-c CPU] [-H HOGS] [-t TIMEOUT_S]
 * Prints "Total time: SECONDS [sec]" and the round trips per second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_HOGS	64

static void die(const char *what)
{
	fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long number(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "pingpong: %s wants a number from %ld to %ld, got '%s'\n",
			opt, min, max, s);
		exit(2);
	}
	return v;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A child that dies with its parent. */
static pid_t fork_child(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0 && prctl(PR_SET_PDEATHSIG, SIGKILL))
		_exit(2);
	return pid;
}

int main(int argc, char **argv)
{
	long rounds = 2000, cpu = 0, nr_hogs = 1, timeout = 60, i;
	pid_t hogs[MAX_HOGS], partner;
	cpu_set_t set;
	sigset_t usr1;
	double t0, t1;
	int opt, sig;

	while ((opt = getopt(argc, argv, "n:c:H:t:h")) != -1) {
		switch (opt) {
		case 'n': rounds = number("-n", optarg, 1, LONG_MAX / 2); break;
		case 'c': cpu = number("-c", optarg, 0, CPU_SETSIZE - 1); break;
		case 'H': nr_hogs = number("-H", optarg, 0, MAX_HOGS); break;
		case 't': timeout = number("-t", optarg, 1, 86400); break;
		default:
			fprintf(stderr, "usage: pingpong [-n ROUNDS] [-c CPU] [-H HOGS] [-t TIMEOUT_S]\n");
			return opt == 'h' ? 0 : 2;
		}
	}

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	/* Blocked before the fork: a signal sent early stays pending. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &usr1, NULL))
		die("sigprocmask");

	for (i = 0; i < nr_hogs; i++) {
		hogs[i] = fork_child();
		if (hogs[i] == 0)
			for (volatile unsigned long spin = 0;; spin++)
				;
	}
	partner = fork_child();
	if (partner == 0) {
		pid_t parent = getppid();

		for (;;) {
			if (sigwait(&usr1, &sig))
				_exit(2);
			kill(parent, SIGUSR1);
		}
	}

	alarm(timeout);
	t0 = now_s();
	for (i = 0; i < rounds; i++) {
		if (kill(partner, SIGUSR1))
			die("kill");
		if (sigwait(&usr1, &sig))
			die("sigwait");
	}
	t1 = now_s();

	kill(partner, SIGKILL);
	for (i = 0; i < nr_hogs; i++)
		kill(hogs[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	printf("%ld round trips on CPU %ld beside %ld hog%s\n", rounds, cpu,
	       nr_hogs, nr_hogs == 1 ? "" : "s");
	printf("Total time: %.3f [sec]\n", t1 - t0);
	printf("%.1f round trips per second\n", rounds / (t1 - t0));
	return 0;
}
