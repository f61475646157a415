// SPDX-License-Identifier: GPL-2.0-only
/*
 * The benchmark's workloads, each with an exact ground truth, and a
 * measure of itself.
 *
 *   rc_load storm N CPUS       N getppid() calls on each of CPUS CPUs (one
 *                              process pinned to each, from CPU 0 up)
 *   rc_load pingpong N         two threads, one on each CPU, pass a byte
 *                              back and forth over two pipes N times:
 *                              2N write() and 2N read() calls
 *   rc_load burst N IDLE_MS    idle for IDLE_MS, then N getppid() calls
 *   rc_load spawn FILE CMD...  run CMD, wait for it, and write its exit
 *                              status and rusage to FILE:
 *                              status=S cpu_ns=T maxrss_kib=M
 *
 * spawn measures a recorder: started from a small process, a program's
 * peak RSS is its own, and not that of a large parent (exec keeps the
 * high-water mark of the address space it replaces).
 *
 * When RC_LOAD_REPORT names a file, it gets one line at the end:
 *
 *   calls=C wall_ns=W cpu_ns=T
 *
 * C is the calls of the measured kind made, W the wall time of the
 * measured part (the idle time of burst excluded), T the user and system
 * time of this process, its threads and its children. The benchmark takes
 * T away from the recorder's rusage (the recorder waits for us, so our
 * time is in its count) and compares W with an untraced run.
 *
 * Statically linked and raw syscalls: it makes exactly the calls it says.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000ull + tv.tv_usec * 1000ull;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void getppid_loop(long n)
{
	long i;

	for (i = 0; i < n; i++)
		syscall(__NR_getppid);
}

/* One pinned process per CPU, all started before any is waited for. */
static int storm(long n, int cpus)
{
	int i, status, bad = 0;

	if (cpus == 1) {
		if (pin(0))
			return -1;
		getppid_loop(n);
		return 0;
	}
	for (i = 0; i < cpus; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return -1;
		if (pid == 0) {
			if (pin(i))
				_exit(126);
			getppid_loop(n);
			_exit(0);
		}
	}
	for (i = 0; i < cpus; i++)
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	return bad ? -1 : 0;
}

struct pong {
	int in, out, cpu;
	long n;
};

static void *ponger(void *arg)
{
	struct pong *p = arg;
	char c;
	long i;

	if (pin(p->cpu))
		return (void *)1;
	for (i = 0; i < p->n; i++)
		if (syscall(__NR_read, p->in, &c, 1) != 1 ||
		    syscall(__NR_write, p->out, &c, 1) != 1)
			return (void *)1;
	return NULL;
}

static int pingpong(long n)
{
	int ab[2], ba[2];
	struct pong p;
	pthread_t thr;
	void *ret;
	char c = 'x';
	long i;

	if (pipe(ab) || pipe(ba))
		return -1;
	p = (struct pong){ .in = ab[0], .out = ba[1], .cpu = 1, .n = n };
	if (pin(0) || pthread_create(&thr, NULL, ponger, &p))
		return -1;
	for (i = 0; i < n; i++)
		if (syscall(__NR_write, ab[1], &c, 1) != 1 || syscall(__NR_read, ba[0], &c, 1) != 1)
			return -1;
	if (pthread_join(thr, &ret) || ret)
		return -1;
	return 0;
}

static int report(long calls, uint64_t wall)
{
	const char *path = getenv("RC_LOAD_REPORT");
	struct rusage self, kids;
	char line[128];
	int fd, len, err;

	if (!path)
		return 0;
	if (getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &kids))
		return -1;
	len = snprintf(line, sizeof(line), "calls=%ld wall_ns=%llu cpu_ns=%llu\n", calls,
		       (unsigned long long)wall,
		       (unsigned long long)(tv_ns(self.ru_utime) + tv_ns(self.ru_stime) +
					    tv_ns(kids.ru_utime) + tv_ns(kids.ru_stime)));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	/* pwrite, not write: pingpong's count of write() calls stays exact */
	err = pwrite(fd, line, len, 0) != len;
	return close(fd) || err ? -1 : 0;
}

static int spawn(const char *path, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *f;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "status=%d cpu_ns=%llu maxrss_kib=%ld\n",
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
		(unsigned long long)(tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime)), ru.ru_maxrss);
	if (fclose(f))
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static long arg_long(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end || v < min ? -1 : v;
}

int main(int argc, char **argv)
{
	long n, calls;
	uint64_t start;
	int err = -1;

	if (argc >= 4 && !strcmp(argv[1], "spawn")) {
		err = spawn(argv[2], argv + 3);
		if (err < 0)
			perror("rc_load spawn");
		return err < 0 ? 2 : err;
	}
	n = argc >= 3 ? arg_long(argv[2], 1) : -1;
	calls = n;
	if (n < 0)
		goto usage;
	if (argc == 4 && !strcmp(argv[1], "storm")) {
		long cpus = arg_long(argv[3], 1);

		if (cpus < 1 || cpus > sysconf(_SC_NPROCESSORS_ONLN))
			goto usage;
		start = now_ns();
		err = storm(n, cpus);
		calls = n * cpus;
	} else if (argc == 3 && !strcmp(argv[1], "pingpong")) {
		start = now_ns();
		err = pingpong(n);
		calls = 4 * n;
	} else if (argc == 4 && !strcmp(argv[1], "burst")) {
		long ms = arg_long(argv[3], 0);
		struct timespec idle = { ms / 1000, (ms % 1000) * 1000000 };

		if (ms < 0 || pin(0))
			goto usage;
		nanosleep(&idle, NULL);
		start = now_ns();
		getppid_loop(n);
		err = 0;
	} else {
		goto usage;
	}
	if (err) {
		perror("rc_load");
		return 2;
	}
	return report(calls, now_ns() - start) ? 2 : 0;

usage:
	fprintf(stderr,
		"usage: rc_load storm N CPUS | pingpong N | burst N IDLE_MS | spawn FILE CMD...\n");
	return 1;
}
