// SPDX-License-Identifier: GPL-2.0-only
/*
 * rc_prof: workloads with a known profile, for the sampling tests. Built
 * with frame pointers (and, as rc_prof_nofp, without), not static, so its
 * stacks go through libc and the vDSO as a user's program's do.
 *
 *   rc_prof burn MS OUT      burn MS ms of CPU in burn_a, burn_b and burn_c, 5:3:2,
 *                            and write each one's own CPU time (ns) to OUT
 *   rc_prof sys MS           call getppid() in sys_heavy() for MS ms
 *   rc_prof child MS OUT     a child runs burn for MS ms and exits; the parent
 *                            waits for it, then sleeps 300 ms; OUT as for burn
 *   rc_prof work N OUT       N rounds of fixed work, 5:3:2 in work_a, work_b and work_c
 *                            (the benchmark's), and write the wall time taken (ns) to OUT
 *   rc_prof inline MS OUT    burn MS ms of CPU in inl_inner, inlined (always_inline)
 *                            into inl_outer, inlined into burn_inl; write the time (ns)
 *                            to OUT. The lines marked LINE: below are the test's
 *                            expected lines (test_profile.c profile_inline)
 *   rc_prof block OUT        sleep 300 ms in blk_a and 200 ms in blk_b, 100 ms at a
 *                            time, write each one's time asleep (ns) to OUT, then
 *                            stay 2 s more (in main)
 *   rc_prof dlshort N MS LIB OUT
 *                            N times, one after the other, exec a child that burns MS ms
 *                            in burn_a, then dlopen()s LIB and burns MS ms in its
 *                            rc_dl_burn, and exits; then sleep 300 ms. OUT gets
 *                            "burn_a NS" and "rc_dl_burn NS", the children's total CPU
 *                            times; where there is no dlopen() (a static build), the
 *                            children do not try it: rc_dl_burn 0, then "nodl"
 */
#ifndef RC_PROF_STATIC
#include <dlfcn.h>
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

/* global, so that their names are in the symbol table stripped or not (.symtab, .debug) */
uint64_t burn_a(uint64_t ns);
uint64_t burn_b(uint64_t ns);
uint64_t burn_c(uint64_t ns);
void sys_heavy(uint64_t ns);
uint64_t blk_a(void);
uint64_t blk_b(void);
void work_a(unsigned int units);
void work_b(unsigned int units);
void work_c(unsigned int units);
uint64_t burn_inl(uint64_t ns);

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static volatile uint64_t sink;

/* Spin until @ns of this thread's CPU time have passed; returns the time spent. */
static inline uint64_t spin(uint64_t ns)
{
	uint64_t t0 = cpu_ns(), t;
	unsigned int i;

	do {
		for (i = 0; i < 20000; i++)
			sink += i * 7;
		t = cpu_ns();
	} while (t - t0 < ns);
	return t - t0;
}

NOINLINE uint64_t burn_a(uint64_t ns)
{
	return spin(ns);
}

NOINLINE uint64_t burn_b(uint64_t ns)
{
	return spin(ns);
}

NOINLINE uint64_t burn_c(uint64_t ns)
{
	return spin(ns);
}

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* The spin of spin(), spelled out: every line of it is inl_inner's */
static ALWAYS_INLINE uint64_t inl_inner(uint64_t ns)
{ /* LINE: inl_inner begin */
	struct timespec ts;
	uint64_t t0, t;
	unsigned int i;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	t0 = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	do {
		for (i = 0; i < 20000; i++)
			sink += i * 7;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		t = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	} while (t - t0 < ns);
	return t - t0;
} /* LINE: inl_inner end */

static ALWAYS_INLINE uint64_t inl_outer(uint64_t ns)
{
	uint64_t spent = inl_inner(ns); /* LINE: inl_outer call */

	return spent;
}

NOINLINE uint64_t burn_inl(uint64_t ns)
{
	return inl_outer(ns); /* LINE: burn_inl call */
}

/*
 * getppid() with the syscall instruction here: libc's syscall() has no
 * frame pointer, and a frame-pointer walk from inside it skips its caller.
 */
static inline long raw_getppid(void)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_getppid;
	register long x0 __asm__("x0");

	__asm__ volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	return x0;
#else
	return syscall(SYS_getppid);
#endif
}

/* A fixed amount of work: the same instructions whatever the clock says. */
static inline void units_of_work(unsigned int units)
{
	unsigned int i, u;

	for (u = 0; u < units; u++)
		for (i = 0; i < 100000; i++)
			sink += i * 7;
}

NOINLINE void work_a(unsigned int units)
{
	units_of_work(units);
}

NOINLINE void work_b(unsigned int units)
{
	units_of_work(units);
}

NOINLINE void work_c(unsigned int units)
{
	units_of_work(units);
}

static uint64_t mono_ns(void);

static NOINLINE int work(long rounds, const char *out)
{
	uint64_t t0 = mono_ns();
	uint32_t seed = 4321, m;
	long r;
	FILE *f;

	/* rounds of 1 to 4 times the 5:3:2, at random: no beat with a sampling period */
	for (r = 0; r < rounds; r++) {
		seed = seed * 1103515245u + 12345u;
		m = 1 + (seed >> 16) % 4;
		work_a(5 * m);
		work_b(3 * m);
		work_c(2 * m);
	}
	f = fopen(out, "w");
	if (!f)
		return 1;
	fprintf(f, "%llu\n", (unsigned long long)(mono_ns() - t0));
	return fclose(f) ? 1 : 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Sleep 100 ms with the syscall instruction here, for the same reason as
 * raw_getppid(): the stack at the switch-out then has this function's caller.
 */
static inline void raw_sleep_100ms(void)
{
	struct timespec ts = { 0, 100000000 };
#if defined(__x86_64__)
	register long r10 __asm__("r10") = 0;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_clock_nanosleep), "D"((long)CLOCK_MONOTONIC), "S"(0L),
			   "d"(&ts), "r"(r10)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_clock_nanosleep;
	register long x0 __asm__("x0") = CLOCK_MONOTONIC;
	register long x1 __asm__("x1") = 0;
	register long x2 __asm__("x2") = (long)&ts;
	register long x3 __asm__("x3") = 0;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
#else
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
#endif
}

NOINLINE uint64_t blk_a(void)
{
	uint64_t t0 = mono_ns();

	raw_sleep_100ms();
	return mono_ns() - t0;
}

NOINLINE uint64_t blk_b(void)
{
	uint64_t t0 = mono_ns();

	raw_sleep_100ms();
	return mono_ns() - t0;
}

static NOINLINE int block(const char *out)
{
	uint64_t a = 0, b = 0;
	FILE *f;

	a += blk_a();
	b += blk_b();
	a += blk_a();
	b += blk_b();
	a += blk_a();
	f = fopen(out, "w");
	if (!f)
		return 1;
	fprintf(f, "blk_a %llu\nblk_b %llu\n", (unsigned long long)a, (unsigned long long)b);
	if (fclose(f))
		return 1;
	usleep(2000000); /* the recorder reads our mappings while we live */
	return 0;
}

NOINLINE void sys_heavy(uint64_t ns)
{
	uint64_t t0 = cpu_ns();
	int i;

	while (cpu_ns() - t0 < ns)
		for (i = 0; i < 1000; i++)
			raw_getppid();
}

static NOINLINE int burn(long ms, const char *out)
{
	uint64_t spent[3] = {}, total = (uint64_t)ms * 1000000, slice;
	uint32_t seed = 12345;
	FILE *f;

	while (spent[0] + spent[1] + spent[2] < total) {
		/* 4 to 16 ms a round, at random: no beat with the sampling period */
		seed = seed * 1103515245u + 12345u;
		slice = 4000000 + (seed >> 8) % 12000000;
		spent[0] += burn_a(slice * 5 / 10);
		spent[1] += burn_b(slice * 3 / 10);
		spent[2] += burn_c(slice * 2 / 10);
	}
	f = fopen(out, "w");
	if (!f)
		return 1;
	fprintf(f, "burn_a %llu\nburn_b %llu\nburn_c %llu\n", (unsigned long long)spent[0],
		(unsigned long long)spent[1], (unsigned long long)spent[2]);
	return fclose(f) ? 1 : 0;
}

/* A child of dlshort: burn_a, then the library's rc_dl_burn; their CPU times to stdout. */
static NOINLINE int dlchild(long ms, const char *lib)
{
	uint64_t a = burn_a((uint64_t)ms * 1000000);
#ifdef RC_PROF_STATIC
	(void)lib;
	printf("%llu nodl\n", (unsigned long long)a);
	return 0;
#else
	uint64_t (*fn)(uint64_t);
	uint64_t d;
	void *h;

	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "rc_prof: %s\n", dlerror());
		return 1;
	}
	fn = (uint64_t(*)(uint64_t))dlsym(h, "rc_dl_burn");
	if (!fn)
		return 1;
	d = fn((uint64_t)ms * 1000000);
	printf("%llu %llu\n", (unsigned long long)a, (unsigned long long)d);
	return 0;
#endif
}

/* dlshort: @n children exec'd one after the other, their times summed into @out. */
static NOINLINE int dlshort(long n, const char *ms, const char *lib, const char *out)
{
	unsigned long long a = 0, d = 0, ca, cd;
	bool nodl = false;
	char line[128], self[4096];
	ssize_t len;
	long i;
	FILE *f;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = '\0';
	for (i = 0; i < n; i++) {
		int fds[2], st;
		pid_t pid;

		if (pipe(fds))
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			dup2(fds[1], 1);
			close(fds[0]);
			close(fds[1]);
			/* by its path, so that its name is rc_prof */
			execl(self, "rc_prof", "dlchild", ms, lib, (char *)NULL);
			_exit(127);
		}
		close(fds[1]);
		f = fdopen(fds[0], "r");
		if (!f || !fgets(line, sizeof(line), f))
			line[0] = '\0';
		if (f)
			fclose(f);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		if (sscanf(line, "%llu nodl", &ca) == 1 && strstr(line, "nodl"))
			a += ca, nodl = true;
		else if (sscanf(line, "%llu %llu", &ca, &cd) == 2)
			a += ca, d += cd;
		else
			return 1;
	}
	usleep(300000);
	f = fopen(out, "w");
	if (!f)
		return 1;
	fprintf(f, "burn_a %llu\nrc_dl_burn %llu\n%s", a, d, nodl ? "nodl\n" : "");
	return fclose(f) ? 1 : 0;
}

static NOINLINE int burn_inline(long ms, const char *out)
{
	uint64_t spent = burn_inl((uint64_t)ms * 1000000);
	FILE *f = fopen(out, "w");

	if (!f)
		return 1;
	fprintf(f, "burn_inl %llu\n", (unsigned long long)spent);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "inline"))
		return burn_inline(atol(argv[2]), argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "burn"))
		return burn(atol(argv[2]), argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "work"))
		return work(atol(argv[2]), argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "block"))
		return block(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "sys")) {
		sys_heavy((uint64_t)atol(argv[2]) * 1000000);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "child")) {
		int st;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid)
			_exit(burn(atol(argv[2]), argv[3]));
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		usleep(300000);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "dlchild"))
		return dlchild(atol(argv[2]), argv[3]);
	if (argc >= 6 && !strcmp(argv[1], "dlshort"))
		return dlshort(atol(argv[2]), argv[3], argv[4], argv[5]);
	fprintf(stderr,
		"usage: rc_prof burn MS OUT | sys MS | child MS OUT | work N OUT | block OUT "
		"| inline MS OUT | dlshort N MS LIB OUT\n");
	return 2;
}
