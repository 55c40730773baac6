/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the project's tools share: the sched_setattr()/sched_getattr()
 * system calls (glibc 2.36 has no wrappers), nice limits, a few compiler
 * helpers, and the error and parsing helpers of their command lines
 * (define PROG, the program's name, before including this file).
 *
 * SCHED_O1, struct sched_attr and the SCHED_FLAG_* and SCHED_ATTR_SIZE_*
 * values come from the patched kernel's uapi headers, as in the series'
 * selftests: tools/Makefile builds with the headers that "make headers"
 * installs in build/obj/default/usr/include.
 */
#ifndef SMPNICE_SCHED_O1_H
#define SMPNICE_SCHED_O1_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <linux/sched.h>
#include <linux/sched/types.h>

#ifndef __noreturn
#define __noreturn		__attribute__((__noreturn__))
#endif
#ifndef __printf
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#endif
#ifndef __aligned
#define __aligned(x)		__attribute__((__aligned__(x)))
#endif
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define NICE_MIN		(-20)
#define NICE_MAX		19
#define NSEC_PER_SEC		1000000000LL
#define NSEC_PER_MSEC		1000000LL

#define NO_SCHED_O1_MSG \
	"this kernel has no SCHED_O1 (policy 8): boot a kernel with the smpnice series"

static inline int sched_setattr(pid_t pid, struct sched_attr *attr,
				unsigned int flags)
{
	return syscall(SYS_sched_setattr, pid, attr, flags);
}

static inline int sched_getattr(pid_t pid, struct sched_attr *attr,
				unsigned int size, unsigned int flags)
{
	return syscall(SYS_sched_getattr, pid, attr, size, flags);
}

#ifndef PROG
#error "define PROG before including sched_o1.h"
#endif

/* Bad usage: say what and how to get help, exit 2. */
static inline void __noreturn __printf(1, 2) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	exit(2);
}

static inline void __printf(1, 2) err_msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Strict integer parse: the whole string, no leading blanks, in [min, max]. */
static inline int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s || !(*s == '-' || *s == '+' || (*s >= '0' && *s <= '9')))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* The --json output: NULL for none, "-" for standard output. Exits on error. */
static inline FILE *open_json(const char *path)
{
	FILE *f;

	if (!path)
		return NULL;
	if (!strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f) {
		err_msg("cannot open --json file '%s': %s", path, strerror(errno));
		exit(1);
	}
	return f;
}

/* Flush or close what open_json() gave; 1 (and a message) on error. */
static inline int close_json(FILE *f, const char *path)
{
	if (!f)
		return 0;
	if (f == stdout ? fflush(f) : fclose(f)) {
		err_msg("writing --json file '%s': %s", path, strerror(errno));
		return 1;
	}
	return 0;
}

#endif /* SMPNICE_SCHED_O1_H */
