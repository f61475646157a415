// SPDX-License-Identifier: GPL-2.0-only
/*
 * Under pressure (a perf ring more than half full), does merging all the
 * rings hold, in time order, lose less than holding back the newest 1 ms
 * (for records still in flight) as ringcap does otherwise? A burst on
 * both CPUs, uneven: CPU 0
 * makes getppid() as fast as it can, CPU 1 a steady 50k a second, into
 * small per-CPU rings. Alternating runs of each policy; the median drops.
 *
 *   rc_burst WORKLOAD ROUNDS CALLS PAGES
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ringcap.h"

static pid_t spawn(int cpu, char *const argv[])
{
	pid_t pid = fork();
	cpu_set_t set;

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(126);
	execv(argv[0], argv);
	_exit(127);
}

/* One burst; the share of events dropped, or a negative errno. */
static double burst(const char *wl, const char *calls, size_t size, bool time_order_only)
{
	struct rc_record_opts o = {
		.sz = sizeof(o),
		.events = RC_EVENT_BIT(1), /* syscalls */
		.comm = "rc_workload",
		.transport = RC_TRANSPORT_PERFBUF,
		.ringbuf_size = size,
		.wakeup_bytes = size / 4,
		.time_order_only = time_order_only,
		.cmdline = "rc_burst",
	};
	struct rc_stats_point pt;
	struct rc_session *s;
	pid_t a, b;
	int fd, status, left = 2;

	fd = open("/dev/null", O_WRONLY);
	s = rc_session__open(&o);
	if (fd < 0 || !s || rc_session__start(s, fd))
		return -1;
	a = spawn(0, (char *[]){ (char *)wl, "getppid", (char *)calls, NULL });
	b = spawn(1, (char *[]){ (char *)wl, "steady", "50000", "1", NULL });
	while (left) {
		if (rc_session__drain(s, 10) < 0)
			return -1;
		while (left && waitpid(-1, &status, WNOHANG) > 0)
			left--;
	}
	if (rc_session__stop(s))
		return -1;
	rc_stats__totals(rc_session__stats(s), &pt);
	rc_session__free(s);
	close(fd);
	(void)a;
	(void)b;
	return pt.made ? 100.0 * pt.dropped / pt.made : 0;
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
	double nohold[64], ordered[64];
	int i, rounds;
	size_t size;

	if (argc != 5) {
		fprintf(stderr, "usage: rc_burst WORKLOAD ROUNDS CALLS PAGES\n");
		return 1;
	}
	rounds = atoi(argv[2]);
	size = (size_t)atol(argv[4]) * sysconf(_SC_PAGESIZE);
	if (rounds < 1 || rounds > 64)
		return 1;
	for (i = 0; i < rounds; i++) {
		nohold[i] = burst(argv[1], argv[3], size, false);
		ordered[i] = burst(argv[1], argv[3], size, true);
		if (nohold[i] < 0 || ordered[i] < 0) {
			fprintf(stderr, "rc_burst: a run failed\n");
			return 1;
		}
	}
	qsort(nohold, rounds, sizeof(double), cmp);
	qsort(ordered, rounds, sizeof(double), cmp);
	printf("| perf rings of %s pages, %s calls on CPU 0 + 50k/s on CPU 1 | dropped, median of "
	       "%d |\n|---|---|\n| merged in time order, no hold under pressure | %.2f%% |\n"
	       "| merged in time order, always the 1 ms hold | %.2f%% |\n",
	       argv[4], argv[3], rounds, nohold[rounds / 2], ordered[rounds / 2]);
	return 0;
}
