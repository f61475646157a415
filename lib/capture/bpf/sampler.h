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

struct bpf_program;
struct bpf_link;

/**
 * struct rc_sampler - the sampling events
 * @ncpus: possible CPUs: @fds and @links have as many, -1 and NULL where a CPU is offline
 * @fds: the events not attached
 * @links: the program attached to each, which owns its event from then on
 * @event: "cycles" or "cpu-clock", what is sampled
 * @freq: samples a second; 0: every @period events
 * @period: with @freq 0
 */
struct rc_sampler {
	int ncpus;
	int *fds;
	struct bpf_link **links;
	const char *event;
	uint64_t freq, period;
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
 * rc_sampler__close() - close the events
 * @sp: the events, detached; opened or zeroed
 */
void rc_sampler__close(struct rc_sampler *sp);

#endif /* RINGCAP_CAPTURE_BPF_SAMPLER_H */
