// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AUX source (auxsrc.h): the events opened per CPU as perf record
 * opens them for intel_pt//, mapped (aux.h), read by the drain.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "capture/perf/auxsrc.h"
#include "capture/perf/pmu.h"
#include "capture/session.h"
#include "util/util.h"

bool rc_is_pmu_event(const char *spec)
{
	return rc_pmu__is_spec(spec);
}

int rc_auxsrc__parse(struct rc_auxsrc *as, const char *const *specs, size_t n, int ncpus)
{
	char err[1024], name[64];
	size_t i;
	int ret;

	as->ncpus = ncpus;
	as->ev = calloc(n, sizeof(*as->ev));
	if (!as->ev)
		return -ENOMEM;
	as->nev = n;
	for (i = 0; i < n; i++) {
		struct rc_aux_event *e = &as->ev[i];

		e->spec = specs[i];
		/* RINGCAP_PMU_ROOT: another tree of PMUs, for tests (ringcap-record(1)) */
		ret =
		    rc_pmu__parse(getenv("RINGCAP_PMU_ROOT"), specs[i], &e->attr, err, sizeof(err));
		if (ret) {
			pr_warn("%s\n", err);
			return ret;
		}
		if (rc_pmu__name(specs[i], name, sizeof(name)) || !rc_pmu__is_aux(name)) {
			pr_warn("-e %s: the PMU '%s' writes no AUX stream: ringcap records "
				"intel_pt, intel_bts, arm_spe and cs_etm events this way\n",
				specs[i], name);
			return -EINVAL;
		}
	}
	return 0;
}

void rc_auxsrc__set_attr(struct perf_event_attr *a, bool inherit, uint64_t aux_size, bool overwrite)
{
	a->size = sizeof(*a);
	a->disabled = 1;
	a->inherit = inherit;
	a->sample_type = RC_AUX_SAMPLE_TYPE;
	a->sample_id_all = 1; /* pid, tid, time and cpu on every record */
	/*
	 * perf's own clock, not use_clockid: the kernel refuses a clock that
	 * is not NMI-safe (CLOCK_BOOTTIME) for a PMU without
	 * PERF_PMU_CAP_NO_NMI, which no AUX PMU has, and x86 gives the
	 * hardware clock's conversion (cap_user_time_zero) only without one.
	 * The records' times are moved to the capture clock when read.
	 */
	a->watermark = 1;
	a->wakeup_watermark = RC_AUX_DATA_SIZE / 2;
	/* wake the drain when a quarter of the AUX area is there to read */
	a->aux_watermark = overwrite ? 0 : (uint32_t)(aux_size / 4);
}

static void close_fds(struct rc_aux_event *e, int ncpus)
{
	int c;

	for (c = 0; e->fds && c < ncpus; c++) {
		if (e->cpus)
			rc_aux_ring__unmap(&e->cpus[c].ring);
		if (e->fds[c] >= 0)
			close(e->fds[c]);
		e->fds[c] = -1;
	}
}

static int open_event(struct rc_auxsrc *as, struct rc_aux_event *e, pid_t pid)
{
	int c, fd, err;

	e->fds = malloc(sizeof(*e->fds) * as->ncpus);
	e->cpus = calloc(as->ncpus, sizeof(*e->cpus));
	if (!e->fds || !e->cpus)
		return -ENOMEM;
	for (c = 0; c < as->ncpus; c++) {
		e->fds[c] = -1;
		e->cpus[c].cpu = c;
		e->cpus[c].ring.data.fd = -1;
	}
	rc_auxsrc__set_attr(&e->attr, pid > 0, as->aux_size, as->overwrite);
	for (c = 0; c < as->ncpus; c++) {
		fd = syscall(SYS_perf_event_open, &e->attr, pid, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == ENODEV)
			continue; /* an offline CPU */
		if (fd < 0) {
			err = -errno;
			pr_warn("-e %s: cannot open the event on CPU %d: %s\n", e->spec, c,
				strerror(-err));
			return err;
		}
		e->fds[c] = fd;
		err = rc_aux_ring__map(&e->cpus[c].ring, fd, RC_AUX_DATA_SIZE, as->aux_size,
				       as->overwrite);
		if (err) {
			pr_warn("-e %s: cannot map a %llu KiB AUX area on CPU %d: %s%s\n", e->spec,
				(unsigned long long)as->aux_size >> 10, c, strerror(-err),
				err == -ENOMEM	     ? " (try a smaller --aux-size)"
				: err == -EOPNOTSUPP ? " (the PMU has no AUX area)"
				: err == -EPERM	     ? " (over the locked-memory limit: raise "
						       "kernel.perf_event_mlock_kb, or a smaller "
						       "--aux-size)"
						     : "");
			return err;
		}
	}
	return 0;
}

int rc_auxsrc__open(struct rc_auxsrc *as, pid_t pid, uint64_t aux_size, bool overwrite)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i;
	int err;

	as->aux_size = aux_size ?: RC_AUX_DEFAULT_SIZE;
	as->overwrite = overwrite;
	if (as->aux_size < (uint64_t)page || (as->aux_size & (as->aux_size - 1))) {
		pr_warn("--aux-size %llu: a power-of-two number of pages (%ld bytes) is needed\n",
			(unsigned long long)as->aux_size, page);
		return -EINVAL;
	}
	for (i = 0; i < as->nev; i++) {
		err = open_event(as, &as->ev[i], pid);
		if (err)
			return err;
	}
	return 0;
}

int rc_auxsrc__watch(struct rc_auxsrc *as, int epfd)
{
	/*
	 * Edge-triggered: a per-task event whose tasks have all exited polls
	 * EPOLLHUP from then on, which would wake a level-triggered wait at
	 * once for the rest of the capture; the drain reads every CPU at any
	 * wake-up.
	 */
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	size_t i;
	int c;

	for (i = 0; i < as->nev; i++)
		for (c = 0; c < as->ncpus; c++)
			if (as->ev[i].fds[c] >= 0 &&
			    epoll_ctl(epfd, EPOLL_CTL_ADD, as->ev[i].fds[c], &ev) < 0)
				return -errno;
	return 0;
}

int rc_auxsrc__enable(struct rc_auxsrc *as, bool on)
{
	size_t i;
	int c, err = 0;

	as->stopped = !on;
	for (i = 0; i < as->nev; i++)
		for (c = 0; c < as->ncpus; c++)
			if (as->ev[i].fds && as->ev[i].fds[c] >= 0 &&
			    ioctl(as->ev[i].fds[c],
				  on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0 &&
			    !err)
				err = -errno;
	return err;
}

struct enable_ctx {
	const struct rc_aux_sink *outer;
	int fd;
};

/* After a truncation: enable the event again (the kernel disabled it). */
static int enable_again(void *ctx, int cpu)
{
	struct enable_ctx *e = ctx;

	(void)cpu;
	return ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0) < 0 ? -errno : 0;
}

static int pass_bytes(void *ctx, int cpu, const struct rc_aux_span *sp)
{
	const struct enable_ctx *e = ctx;

	return e->outer->bytes(e->outer->ctx, cpu, sp);
}

static int pass_meta(void *ctx, int cpu, const struct rc_aux_meta *m)
{
	const struct enable_ctx *e = ctx;

	return e->outer->meta(e->outer->ctx, cpu, m);
}

long rc_auxsrc__read(struct rc_auxsrc *as, const struct rc_aux_sink *sink)
{
	long total = 0, n;
	size_t i;
	int c;

	for (i = 0; i < as->nev; i++)
		for (c = 0; c < as->ncpus; c++) {
			struct enable_ctx ec = { sink, as->ev[i].fds[c] };
			/* stopping: the events stay stopped */
			struct rc_aux_sink s = { pass_bytes, pass_meta,
						 as->stopped ? NULL : enable_again, &ec };

			if (ec.fd < 0)
				continue;
			/* a snapshot: the event stopped while its area is read */
			if (as->overwrite && !as->stopped &&
			    ioctl(ec.fd, PERF_EVENT_IOC_DISABLE, 0) < 0)
				return -errno;
			n = rc_aux_cpu__read(&as->ev[i].cpus[c], &s);
			if (as->overwrite && !as->stopped &&
			    ioctl(ec.fd, PERF_EVENT_IOC_ENABLE, 0) < 0 && n >= 0)
				n = -errno;
			if (n < 0)
				return n;
			total += n;
		}
	return total;
}

size_t rc_auxsrc__max_entries(const struct rc_auxsrc *as)
{
	return as->nev * (size_t)as->ncpus;
}

size_t rc_auxsrc__entries(const struct rc_auxsrc *as, struct rc_stat_entry *out)
{
	size_t i, n = 0;
	int c;

	for (i = 0; i < as->nev; i++)
		for (c = 0; as->ev[i].fds && c < as->ncpus; c++) {
			const struct rc_aux_counts *k = &as->ev[i].cpus[c].n;

			if (as->ev[i].fds[c] < 0)
				continue;
			memset(&out[n], 0, sizeof(out[n]));
			out[n].cpu = c;
			out[n].type = RC_TYPE_AUX;
			out[n].made = k->made;
			out[n].captured = k->captured;
			out[n].dropped = k->lost;
			out[n].missed = k->meta_lost;
			out[n].throttles = k->truncated;
			out[n].not_run = k->wraps;
			n++;
		}
	return n;
}

void rc_auxsrc__close(struct rc_auxsrc *as)
{
	size_t i;

	for (i = 0; as->ev && i < as->nev; i++) {
		close_fds(&as->ev[i], as->ncpus);
		free(as->ev[i].fds);
		free(as->ev[i].cpus);
	}
	free(as->ev);
	memset(as, 0, sizeof(*as));
}

/* The hardware clock the PMUs stamp their traces with, read here. */
static bool hw_count(uint64_t *v)
{
#if defined(__x86_64__) || defined(__i386__)
	*v = __builtin_ia32_rdtsc();
	return true;
#elif defined(__aarch64__)
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(*v));
	return true;
#else
	(void)v;
	return false;
#endif
}

int64_t rc_aux__perf_to_boot(const struct rc_aux_ring *ring)
{
	struct rc_aux_clock clk;
	uint64_t count, boot;

	rc_aux_ring__clock(ring, &clk);
	if (!clk.valid || !hw_count(&count))
		return 0;
	boot = rc_now_ns(CLOCK_BOOTTIME);
	return (int64_t)(boot - rc_aux_clock__to_perf(&clk, count));
}
