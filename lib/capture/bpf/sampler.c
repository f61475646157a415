// SPDX-License-Identifier: GPL-2.0-only
/* The sampling source's perf events (sampler.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "util/sysfs.h"
#include "util/util.h"
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
	/* the count, and its enabled time for the rate while not throttled */
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* throttle records' times on a clock user space reads too */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (freq) {
		a->freq = 1;
		a->sample_freq = freq;
	} else {
		a->sample_period = period;
	}
}

/* The name of the event @a opens, as perf names it: what the capture says it sampled. */
static const char *event_name(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES)
		return "cycles";
	if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CPU_CLOCK)
		return "cpu-clock";
	return "unknown";
}

/* kernel.perf_event_max_sample_rate, or 0 when it cannot be read */
static uint64_t max_sample_rate(void)
{
	uint64_t v = 0;

	if (rc_sysfs__read_u64("/proc/sys/kernel/perf_event_max_sample_rate", &v))
		return 0;
	return v;
}

/*
 * The throttle records' ring: 128 KiB holds 4096 of them (32 bytes each).
 * The kernel throttles an event at most once a tick and unthrottles it at
 * a later one, and the ring is read once a second (RC_STATS_NS): two
 * seconds' worth at HZ=1000. Lost ones are counted (PERF_RECORD_LOST) and
 * said.
 */
#define RC_SAMPLER_RING_BYTES (128 * 1024)

/*
 * Keep a dup of the event's fd to read its count after the link took it,
 * and map its ring for the throttle records. Neither is needed to sample.
 */
static void keep_counting(struct rc_sampler_cpu *c, int fd)
{
	size_t page = sysconf(_SC_PAGESIZE);
	int err;

	c->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (c->fd < 0) {
		pr_info("sampling: no dup of the event to count it: %s\n", strerror(errno));
		return;
	}
	err = rc_perf_ring__map(&c->ring, c->fd,
				page > RC_SAMPLER_RING_BYTES ? page : RC_SAMPLER_RING_BYTES, false);
	if (err)
		pr_info("sampling: no ring for the throttle records: %s\n", strerror(-err));
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
	sp->freq = freq;
	sp->period = period;
	sp->fds = malloc(ncpus * sizeof(*sp->fds));
	sp->links = calloc(ncpus, sizeof(*sp->links));
	sp->cpu = calloc(ncpus, sizeof(*sp->cpu));
	if (!sp->fds || !sp->links || !sp->cpu)
		return -ENOMEM; /* ncpus still 0: rc_sampler__close() frees, closes nothing */
	sp->ncpus = ncpus;
	for (cpu = 0; cpu < ncpus; cpu++) {
		sp->fds[cpu] = -1;
		sp->cpu[cpu].fd = -1;
		sp->cpu[cpu].ring.fd = -1;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		make_attr(&a, hw, freq, period);
		fd = perf_open(&a, cpu);
		/*
		 * No cycles event here (ENODEV is an offline CPU, not a
		 * missing PMU): every CPU samples cpu-clock, those opened
		 * before this one too, so that the event the file names is
		 * the one each CPU sampled.
		 */
		if (fd < 0 && hw && (errno == ENOENT || errno == EOPNOTSUPP)) {
			hw = false;
			pr_warn("sampling cpu-clock: this machine has no hardware cycles event\n");
			for (; cpu > 0; cpu--) {
				if (sp->fds[cpu - 1] >= 0)
					close(sp->fds[cpu - 1]);
				sp->fds[cpu - 1] = -1;
				rc_perf_ring__unmap(&sp->cpu[cpu - 1].ring);
				if (sp->cpu[cpu - 1].fd >= 0)
					close(sp->cpu[cpu - 1].fd);
				sp->cpu[cpu - 1].fd = -1;
			}
			make_attr(&a, hw, freq, period);
			fd = perf_open(&a, cpu);
		}
		sp->event = event_name(&a);
		if (fd < 0 && errno == ENODEV)
			continue; /* an offline CPU */
		if (fd < 0)
			return open_failed(sp, cpu, -errno);
		sp->fds[cpu] = fd;
		keep_counting(&sp->cpu[cpu], fd);
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
	bool attached = false;
	int cpu;

	for (cpu = 0; sp->links && cpu < sp->ncpus; cpu++) {
		attached |= sp->links[cpu] != NULL;
		bpf_link__destroy(sp->links[cpu]); /* disables the event */
		sp->links[cpu] = NULL;
	}
	if (attached && !sp->stopped_at)
		sp->stopped_at = rc_now_ns(CLOCK_MONOTONIC); /* where an open throttle ends */
}

/* A throttle record's time: the kernel's perf_event_clock(), our CLOCK_MONOTONIC. */
static uint64_t throttle_time(const struct rc_perf_rec *rec)
{
	uint64_t t;

	if (rec->size < sizeof(struct perf_event_header) + sizeof(t))
		return 0;
	memcpy(&t, (const char *)rec->data + sizeof(struct perf_event_header), sizeof(t));
	return t;
}

/* The throttle records the kernel wrote since the last look. */
static void read_throttles(struct rc_sampler_cpu *c)
{
	struct rc_perf_rec rec;
	uint64_t pos, head, t;

	if (!c->ring.meta)
		return;
	head = rc_perf_ring__head(&c->ring);
	pos = c->ring.meta->data_tail;
	while (rc_perf_ring__next(&c->ring, &pos, head, &rec) > 0) {
		switch (rec.type) {
		case PERF_RECORD_THROTTLE:
			t = throttle_time(&rec);
			if (t && !c->throttled_at) {
				c->throttled_at = t;
				c->throttles++;
			}
			break;
		case PERF_RECORD_UNTHROTTLE:
			t = throttle_time(&rec);
			if (c->throttled_at && t > c->throttled_at)
				c->throttled_ns += t - c->throttled_at;
			c->throttled_at = 0;
			break;
		case PERF_RECORD_LOST:
			c->lost++;
			c->throttled_at = 0; /* its end may be lost too: not guessed */
			break;
		}
	}
	rc_perf_ring__store_tail(&c->ring, pos);
}

int rc_sampler__read(struct rc_sampler *sp, int cpu, struct rc_sampler_counts *out)
{
	struct rc_sampler_cpu *c;
	uint64_t v[3], now;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if (!sp->cpu || cpu < 0 || cpu >= sp->ncpus || sp->cpu[cpu].fd < 0)
		return -ENOENT;
	c = &sp->cpu[cpu];
	n = read(c->fd, v, sizeof(v));
	if (n < 0)
		return -errno;
	if (n != sizeof(v))
		return -EIO;
	read_throttles(c);
	now = sp->stopped_at ?: rc_now_ns(CLOCK_MONOTONIC);
	*out = (struct rc_sampler_counts){ .count = v[0],
					   .enabled = v[1],
					   .throttled_ns = c->throttled_ns,
					   .throttles = c->throttles,
					   .lost = c->lost };
	if (c->throttled_at && now > c->throttled_at)
		out->throttled_ns += now - c->throttled_at;
	return 0;
}

void rc_sampler__estimate(const struct rc_sampler_counts *c, bool clock, uint64_t runs,
			  uint64_t period_sum, uint64_t period, uint64_t *not_run,
			  uint64_t *throttled)
{
	double mean = runs ? (double)period_sum / runs : (double)period;
	double expected, when_throttled;

	*not_run = *throttled = 0;
	if (mean <= 0)
		return;
	if (clock) {
		/* a sample every period of the CPU's time, throttled or not */
		expected = c->enabled / mean;
		when_throttled = c->throttled_ns / mean;
	} else {
		/* the count stops while throttled: the time, at the rate it counted otherwise */
		when_throttled =
		    c->throttled_ns && c->enabled > c->throttled_ns
			? (double)c->throttled_ns * c->count / (c->enabled - c->throttled_ns) / mean
			: 0;
		expected = c->count / mean + when_throttled;
	}
	if (expected > runs)
		*not_run = (uint64_t)expected - runs;
	*throttled = (uint64_t)when_throttled < *not_run ? (uint64_t)when_throttled : *not_run;
}

void rc_sampler__close(struct rc_sampler *sp)
{
	int cpu;

	rc_sampler__detach(sp);
	for (cpu = 0; sp->fds && cpu < sp->ncpus; cpu++)
		if (sp->fds[cpu] >= 0)
			close(sp->fds[cpu]);
	for (cpu = 0; sp->cpu && cpu < sp->ncpus; cpu++) {
		rc_perf_ring__unmap(&sp->cpu[cpu].ring);
		if (sp->cpu[cpu].fd >= 0)
			close(sp->cpu[cpu].fd);
	}
	free(sp->fds);
	free(sp->links);
	free(sp->cpu);
	memset(sp, 0, sizeof(*sp));
}
