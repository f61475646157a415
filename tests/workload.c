// SPDX-License-Identifier: GPL-2.0-only
/*
 * A workload with a known ground truth, for the integration tests.
 *
 *   rc_workload getppid N [PIDFILE]   N getppid() calls, then exit 0
 *   rc_workload forkexec PROGRAM      fork; the child execs PROGRAM; wait
 *   rc_workload sleep MS              sleep, then exit 0
 *   rc_workload exit CODE             exit with CODE
 *   rc_workload steady RATE SECONDS [TICK_MS]
 *                                     RATE getppid() a second, in bursts every TICK_MS
 *                                     (1), then exit 0
 *   rc_workload bounce N              N getppid(), moving to the next CPU before each
 *   rc_workload uneven N0 N1          N0 getppid() on CPU 0 and, in a child at once, N1 on CPU 1
 *   rc_workload seq N                 lseek(-1, i, SEEK_SET) for i = 0 .. N-1: numbered calls
 *   rc_workload args N                for i = 0 .. N-1, calls of 1, 2, 4, 5 and 6 arguments, each
 *                                     failing, none 0, with values of i (test_dyn.c's sc_args[])
 *   rc_workload int80 N               N 32-bit getpid() (i386's number 20) by int $0x80,
 *                                     with bx..bp 0x1001 to 0x1006 (it takes none), then
 *                                     i386's exit_group(7), 252 (x86-64; elsewhere exit 3)
 *   rc_workload signal N              SIGUSR1 to itself N times, each handled
 *   rc_workload probe N               rc_probe_target(i, 1000 + i) for i = 0 .. N-1 (uprobes)
 *   rc_workload probethreads T N      T threads on CPU 0, each rc_probe_target(its tid, i) N times
 *
 * Statically linked and raw syscalls: it makes exactly the calls it is
 * asked for.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	handled++;
}

long rc_probe_target(long a, long b);

/* Not inlined, and with a body the compiler cannot drop: a uprobe target. */
__attribute__((noinline, used)) long rc_probe_target(long a, long b)
{
	__asm__ volatile("" : : "r"(a), "r"(b) : "memory");
	return a + b;
}

static long probe_calls;

/* One of probethreads' threads: its tid as the first argument, every call. */
static void *probe_thread(void *arg)
{
	long i, tid = syscall(__NR_gettid);

	for (i = 0; i < probe_calls; i++)
		rc_probe_target(tid, i);
	return NULL;
}

/*
 * T threads pinned to CPU 0 calling a probed function: uprobe programs run
 * preemptible on PREEMPT_RT and with preempt=full, so a record half built
 * when its task is preempted must not take another thread's values.
 */
static int probe_threads(long t, long n)
{
	pthread_t th[64];
	cpu_set_t set;
	long i;

	if (t < 1 || t > 64)
		return 2;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) /* the threads inherit it */
		return 2;
	probe_calls = n;
	for (i = 0; i < t; i++)
		if (pthread_create(&th[i], NULL, probe_thread, NULL))
			return 2;
	for (i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* @n getppid() calls on @cpu. */
static int calls_on(int cpu, long n)
{
	cpu_set_t set;
	long i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 2;
	for (i = 0; i < n; i++)
		syscall(__NR_getppid);
	return 0;
}

/* Two CPUs at once, one busier: @n0 calls on CPU 0, @n1 on CPU 1 in a child. */
static int uneven(long n0, long n1)
{
	int status, err;
	pid_t pid = fork();

	if (pid < 0)
		return 2;
	if (pid == 0)
		_exit(calls_on(1, n1));
	err = calls_on(0, n0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 2;
	return err ?: WEXITSTATUS(status);
}

static void *sleeper(void *arg)
{
	syscall(__NR_nanosleep, arg, NULL);
	return NULL;
}

/* @t threads (64 at most), each in one nanosleep() of @ms, all at once */
static int sleepers(long t, long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	pthread_t tid[64];
	long i, n;

	if (t < 1 || t > 64)
		return 2;
	for (n = 0; n < t; n++)
		if (pthread_create(&tid[n], NULL, sleeper, &ts))
			break;
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	return n == t ? 0 : 2;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "getppid")) {
		long i, n = atol(argv[2]);

		if (argc >= 4) {
			FILE *f = fopen(argv[3], "w");

			if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
				return 2;
		}
		for (i = 0; i < n; i++)
			syscall(__NR_getppid);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "forkexec")) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			execl(argv[2], argv[2], "exit", "7", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid)
			return 2;
		return WIFEXITED(status) && WEXITSTATUS(status) == 7 ? 0 : 3;
	}
	if (argc >= 3 && !strcmp(argv[1], "sleep")) {
		struct timespec ts = { atol(argv[2]) / 1000, (atol(argv[2]) % 1000) * 1000000 };

		nanosleep(&ts, NULL);
		return 0;
	}
	/* one getppid(), then MS of sleep: an event early in a run that goes on */
	if (argc >= 3 && !strcmp(argv[1], "mark")) {
		struct timespec ts = { atol(argv[2]) / 1000, (atol(argv[2]) % 1000) * 1000000 };

		syscall(__NR_getppid);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "steady")) {
		long rate = atol(argv[2]), tick = argc >= 5 ? atol(argv[4]) : 1;
		long i, k, per_tick, ticks;
		struct timespec next;

		/* exactly RATE a second: a whole number of calls a tick, whole ticks a second */
		if (tick < 1 || tick > 1000 || 1000 % tick || (rate * tick) % 1000) {
			fprintf(stderr, "rc_workload: steady %ld a second in ticks of %ld ms: "
					"not a whole number of calls a tick\n", rate, tick);
			return 2;
		}
		per_tick = rate * tick / 1000;
		ticks = atol(argv[3]) * (1000 / tick);
		clock_gettime(CLOCK_MONOTONIC, &next);
		for (k = 0; k < ticks; k++) {
			for (i = 0; i < per_tick; i++)
				syscall(__NR_getppid);
			next.tv_nsec += tick * 1000000;
			if (next.tv_nsec >= 1000000000) {
				next.tv_sec++;
				next.tv_nsec -= 1000000000;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		}
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "bounce")) {
		long i, n = atol(argv[2]), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		cpu_set_t set;

		for (i = 0; i < n; i++) {
			CPU_ZERO(&set);
			CPU_SET(i % ncpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				return 2;
			syscall(__NR_getppid);
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "uneven"))
		return uneven(atol(argv[2]), atol(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "seq")) {
		long i, n = atol(argv[2]);

		for (i = 0; i < n; i++)
			syscall(__NR_lseek, -1, i, SEEK_SET);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "args")) {
		long i, n = atol(argv[2]), fd;

		for (i = 0; i < n; i++) {
			fd = 1000000 + i; /* none open: EBADF */
			syscall(__NR_close, fd);
			syscall(__NR_flock, fd, 2000 + i);
			syscall(__NR_pread64, fd, 0x1000 + i, 3000 + i, 4000 + i);
			/*
			 * a pid past pid_max: no child; infop, which the kernel writes
			 * even then, and ru in kernel space: EFAULT, nothing written
			 */
			syscall(__NR_waitid, P_PID, 0x3ff00000 + i, 0xffff800000008000ul + i, WEXITED,
				0xffff800000009000ul + i);
			syscall(__NR_sendto, fd, 0x5000 + i, 6000 + i, 0x40, 0x7000 + i, 16 + i);
		}
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "int80")) {
#if defined(__x86_64__)
		long i, n = atol(argv[2]);

		for (i = 0; i < n; i++) {
			long ret = 20; /* i386's __NR_getpid, a 32-bit call from a 64-bit task */

			/* i386's argument registers, ebx to ebp: what ringcap's args must show */
			__asm__ volatile("push %%rbp\n\tmov $0x1006, %%ebp\n\tint $0x80\n\tpop %%rbp"
					 : "+a"(ret)
					 : "b"(0x1001), "c"(0x1002), "d"(0x1003), "S"(0x1004), "D"(0x1005)
					 : "memory", "r8", "r9", "r10", "r11");
			if (ret != getpid())
				return 2;
		}
		{
			long nr = 252; /* i386's exit_group: never returns */

			__asm__ volatile("int $0x80" : "+a"(nr) : "b"(7) : "memory");
		}
		return 2;
#else
		return 3;
#endif
	}
	if (argc >= 3 && !strcmp(argv[1], "signal")) {
		long i, n = atol(argv[2]);

		signal(SIGUSR1, on_usr1);
		for (i = 0; i < n; i++)
			kill(getpid(), SIGUSR1);
		return handled == n ? 0 : 1;
	}
	if (argc >= 3 && !strcmp(argv[1], "probe")) {
		long i, n = atol(argv[2]), sum = 0;

		for (i = 0; i < n; i++)
			sum += rc_probe_target(i, 1000 + i);
		return sum == n * (n - 1) + 1000 * n ? 0 : 1;
	}
	if (argc >= 4 && !strcmp(argv[1], "probethreads"))
		return probe_threads(atol(argv[2]), atol(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "sleepers"))
		return sleepers(atol(argv[2]), atol(argv[3]));
	fprintf(stderr,
		"usage: rc_workload getppid N [PIDFILE] | forkexec PROGRAM | "
		"sleep MS | exit CODE | steady RATE SECONDS [TICK_MS] | bounce N | uneven N0 N1 | seq N | "
		"signal N | "
		"probe N | probethreads T N | sleepers T MS\n");
	return 1;
}
