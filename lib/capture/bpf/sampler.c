// SPDX-License-Identifier: GPL-2.0-only
/* The sampling source's perf events (sampler.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "internal.h"
#include "capture/bpf/sampler.h"

static int perf_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void make_attr(struct perf_event_attr *a, bool hw, uint64_t freq, uint64_t period)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	a->config = hw ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK;
	a->disabled = 1;
	if (freq) {
		a->freq = 1;
		a->sample_freq = freq;
	} else {
		a->sample_period = period;
	}
}

/* kernel.perf_event_max_sample_rate, or 0 when it cannot be read */
static uint64_t max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	unsigned long long v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static int open_failed(const struct rc_sampler *sp, int cpu, int err)
{
	if (err == -EACCES || err == -EPERM)
		pr_warn("failed to open the %s sampling event on CPU %d: %s (root, or "
			"CAP_PERFMON, is needed; kernel.perf_event_paranoid may forbid it)\n",
			sp->event, cpu, strerror(-err));
	else
		pr_warn("failed to open the %s sampling event on CPU %d: %s\n", sp->event, cpu,
			strerror(-err));
	return err;
}

int rc_sampler__open(struct rc_sampler *sp, int ncpus, uint64_t freq, uint64_t period)
{
	struct perf_event_attr a;
	uint64_t max = freq ? max_sample_rate() : 0;
	bool hw = true;
	int cpu, fd;

	if (freq && max && freq > max) {
		pr_warn("-F %llu is above the kernel's limit of %llu samples a second "
			"(kernel.perf_event_max_sample_rate, which the kernel lowers itself when "
			"sampling takes too long): use -F %llu or less, or raise the limit with "
			"'sysctl -w kernel.perf_event_max_sample_rate=%llu'\n",
			(unsigned long long)freq, (unsigned long long)max, (unsigned long long)max,
			(unsigned long long)freq);
		return -EINVAL;
	}
	if (!freq && !period) {
		pr_warn("sampling needs a frequency (-F) or a period (-c) above 0\n");
		return -EINVAL;
	}
	sp->ncpus = ncpus;
	sp->freq = freq;
	sp->period = period;
	sp->fds = malloc(ncpus * sizeof(*sp->fds));
	sp->links = calloc(ncpus, sizeof(*sp->links));
	if (!sp->fds || !sp->links)
		return -ENOMEM;
	for (cpu = 0; cpu < ncpus; cpu++)
		sp->fds[cpu] = -1;
	for (cpu = 0; cpu < ncpus; cpu++) {
		make_attr(&a, hw, freq, period);
		fd = perf_open(&a, cpu);
		/* no cycles event here (ENODEV is an offline CPU, not a missing PMU) */
		if (fd < 0 && hw && (errno == ENOENT || errno == EOPNOTSUPP)) {
			hw = false;
			pr_warn("sampling cpu-clock: this machine has no hardware cycles event\n");
			make_attr(&a, hw, freq, period);
			fd = perf_open(&a, cpu);
		}
		sp->event = hw ? "cycles" : "cpu-clock";
		if (fd < 0 && errno == ENODEV)
			continue; /* an offline CPU */
		if (fd < 0)
			return open_failed(sp, cpu, -errno);
		sp->fds[cpu] = fd;
	}
	return 0;
}

int rc_sampler__attach(struct rc_sampler *sp, struct bpf_program *prog)
{
	int cpu, err;

	for (cpu = 0; cpu < sp->ncpus; cpu++) {
		if (sp->fds[cpu] < 0)
			continue;
		sp->links[cpu] = bpf_program__attach_perf_event(prog, sp->fds[cpu]);
		if (!sp->links[cpu]) {
			err = -errno;
			pr_warn("failed to attach the sampling program on CPU %d: %s\n", cpu,
				strerror(-err));
			return err;
		}
		sp->fds[cpu] = -1; /* the link's now: bpf_link__destroy() closes it */
	}
	return 0;
}

void rc_sampler__detach(struct rc_sampler *sp)
{
	int cpu;

	for (cpu = 0; sp->links && cpu < sp->ncpus; cpu++) {
		bpf_link__destroy(sp->links[cpu]);
		sp->links[cpu] = NULL;
	}
}

void rc_sampler__close(struct rc_sampler *sp)
{
	int cpu;

	rc_sampler__detach(sp);
	for (cpu = 0; sp->fds && cpu < sp->ncpus; cpu++)
		if (sp->fds[cpu] >= 0)
			close(sp->fds[cpu]);
	free(sp->fds);
	free(sp->links);
	memset(sp, 0, sizeof(*sp));
}
