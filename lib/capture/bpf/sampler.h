/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sampling source's perf events (record -F / -c): one per CPU, system
 * wide, that runs profile.bpf.c's program at each sample. Which processes
 * count is the program's to decide, as for every other source.
 */
#ifndef RINGCAP_CAPTURE_BPF_SAMPLER_H
#define RINGCAP_CAPTURE_BPF_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include "capture/perf/ring.h"

struct bpf_program;
struct bpf_link;

/**
 * struct rc_sampler_cpu - one CPU's sampling event, as counted
 * @fd: a dup of the event's fd, kept to read its count once the link owns
 *	(and at detach closes) the other one; -1 where the CPU is offline
 * @ring: the event's data ring: the kernel writes PERF_RECORD_THROTTLE and
 *	_UNTHROTTLE records there (the program writes no samples to it);
 *	fd -1 where it could not be mapped
 * @throttled_at: CLOCK_MONOTONIC of a throttle not yet ended; 0: none
 * @throttled_ns: time throttled, ended throttles'
 * @throttles: throttles seen
 * @lost: throttle records the ring lost (PERF_RECORD_LOST): @throttled_ns is short
 */
struct rc_sampler_cpu {
	int fd;
	struct rc_perf_ring ring;
	uint64_t throttled_at, throttled_ns, throttles, lost;
};

/**
 * struct rc_sampler_counts - what one CPU's event counted, at one moment
 * @count: the event's count (cpu-clock: ns the timer ran; cycles: cycles),
 *	not counting while throttled (the kernel stops the event)
 * @enabled: ns the event was enabled
 * @throttled_ns: ns it was throttled, an open throttle counted up to now
 * @throttles: times it was throttled
 * @lost: throttle records lost: @throttled_ns is then a lower bound
 */
struct rc_sampler_counts {
	uint64_t count, enabled, throttled_ns, throttles, lost;
};

/**
 * struct rc_sampler - the sampling events
 * @ncpus: possible CPUs: @fds and @links have as many, -1 and NULL where a CPU is offline
 * @fds: the events not attached
 * @links: the program attached to each, which owns its event from then on
 * @event: "cycles" or "cpu-clock", what is sampled
 * @freq: samples a second; 0: every @period events
 * @period: with @freq 0
 * @cpu: [@ncpus], each CPU's event as counted
 * @stopped_at: CLOCK_MONOTONIC at rc_sampler__detach(); 0 while sampling
 */
struct rc_sampler {
	int ncpus;
	int *fds;
	struct bpf_link **links;
	const char *event;
	uint64_t freq, period;
	struct rc_sampler_cpu *cpu;
	uint64_t stopped_at;
};

/**
 * rc_sampler__open() - open the events, not yet counting
 * @sp: zeroed
 * @ncpus: possible CPUs
 * @freq: samples a second (record -F), or 0
 * @period: events between samples (record -c) when @freq is 0
 *
 * cycles where the CPU has a hardware PMU, else cpu-clock, said once on
 * stderr. A @freq above kernel.perf_event_max_sample_rate is refused with
 * perf's hint.
 *
 * Return: 0, or -errno with the cause said.
 */
int rc_sampler__open(struct rc_sampler *sp, int ncpus, uint64_t freq, uint64_t period);

/**
 * rc_sampler__attach() - run @prog at each sample, and start sampling
 * @sp: opened
 * @prog: a loaded perf_event program
 *
 * Return: 0, or -errno.
 */
int rc_sampler__attach(struct rc_sampler *sp, struct bpf_program *prog);

/**
 * rc_sampler__detach() - stop sampling
 * @sp: the events; attached or not
 */
void rc_sampler__detach(struct rc_sampler *sp);

/**
 * rc_sampler__read() - one CPU's event's count and throttling so far
 * @sp: opened
 * @cpu: the CPU
 * @c: set to the counts; zeroed where the CPU has no event
 *
 * Reads the throttle records the kernel wrote since the last call.
 *
 * Return: 0, -ENOENT where the CPU has no event, or -errno of read().
 */
int rc_sampler__read(struct rc_sampler *sp, int cpu, struct rc_sampler_counts *c);

/**
 * rc_sampler__estimate() - samples one CPU's program never ran for
 * @c: the CPU's counts (rc_sampler__read())
 * @clock: the event is cpu-clock, whose period is time
 * @runs: runs of the program on that CPU (made and filtered samples)
 * @period_sum: the sum of those runs' sample periods (ctx->sample_period)
 * @period: the period asked for (-c), 0 with -F: used while @runs is 0
 * @not_run: set to the samples the program did not run for: the samples
 *	asked for less @runs
 * @throttled: set to those of @not_run lost while the kernel throttled
 *	the event: its throttled time over the mean period
 *
 * The samples asked for: cpu-clock's, its enabled time over the period
 * (the kernel turns -F into a fixed period of 1e9/F ns); another event's,
 * its count over the mean period (the count goes on while the kernel
 * skips the program, and stops while it is throttled) plus the throttled
 * time at the rate it counted otherwise. The rest of @not_run the kernel
 * took and did not run the program for (another BPF program was running
 * on the CPU: bpf_prog_active), or never took (a timer that fired late).
 * Estimates: exact but for a partial period with a fixed period and no
 * throttling, otherwise as good as the mean period and the throttle records.
 */
void rc_sampler__estimate(const struct rc_sampler_counts *c, bool clock, uint64_t runs,
			  uint64_t period_sum, uint64_t period, uint64_t *not_run,
			  uint64_t *throttled);

/**
 * rc_sampler__close() - close the events
 * @sp: the events, detached; opened or zeroed
 */
void rc_sampler__close(struct rc_sampler *sp);

#endif /* RINGCAP_CAPTURE_BPF_SAMPLER_H */
