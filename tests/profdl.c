// SPDX-License-Identifier: GPL-2.0-only
/*
 * librc_prof_dl.so: code that rc_prof dlopen()s after it starts (rc_prof
 * dlshort), for the test that its samples are named although the process
 * lives for a few tens of milliseconds. Built with frame pointers.
 */
#include <stdint.h>
#include <time.h>

uint64_t rc_dl_burn(uint64_t ns);

static volatile uint64_t dl_sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Spin until @ns of this thread's CPU time have passed; returns the time spent. */
__attribute__((noinline)) uint64_t rc_dl_burn(uint64_t ns)
{
	uint64_t t0 = cpu_ns(), t;
	unsigned int i;

	do {
		for (i = 0; i < 20000; i++)
			dl_sink += i * 7;
		t = cpu_ns();
	} while (t - t0 < ns);
	return t - t0;
}
