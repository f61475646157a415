// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend's open and teardown: privileges, the transport, the
 * maps every source shares, the targets, the rings; the sources' programs
 * through load.c, and everything given back at the end (detaching through
 * attach.c). The drain (bpf.c) depends on this file, never the other way.
 */
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture/bpf/bpf.h"
#include "util/util.h"
#include "syscalls.skel.h"
#include "sched.skel.h"
#include "follow.skel.h"
#include "dyn.skel.h"
#include "profile.skel.h"
#include "offcpu.skel.h"

/* ---- privileges ------------------------------------------------------- */

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool have_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

static int check_privileges(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d) < 0)
		return 0; /* cannot tell: let the kernel decide */
	if (have_cap(d, CAP_SYS_ADMIN) || (have_cap(d, CAP_BPF) && have_cap(d, CAP_PERFMON)))
		return 0;
	pr_warn("recording needs root, or the CAP_BPF and CAP_PERFMON capabilities: "
		"run ringcap as root (sudo ringcap record ...), or grant them with "
		"'setcap cap_bpf,cap_perfmon+ep ringcap'\n");
	return -EPERM;
}

/* ---- maps, targets, rings -------------------------------------------- */

/* --transport auto: the BPF ring buffer where the kernel has it (5.8 and later). */
static enum rc_transport pick_transport(const struct rc_features *f, enum rc_transport t,
					bool overwrite)
{
	if (t != RC_TRANSPORT_AUTO)
		return t;
	if (overwrite)
		return RC_TRANSPORT_PERFBUF; /* only perf rings overwrite */
	if (f->ringbuf)
		return RC_TRANSPORT_RINGBUF;
	pr_info("this kernel has no BPF ring buffer: using the perf buffer\n");
	return RC_TRANSPORT_PERFBUF;
}

/*
 * The targets map (common.bpf.h): a bit per tgid, mapped here so that a
 * target is added with an atomic or, as the programs add children. One
 * unused word when nothing filters by pid.
 */
static int create_targets(struct rc_bpf *s)
{
	bool filter = s->c.opts.npids > 0 || s->c.opts.follow_forks;
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_MMAPABLE);
	size_t page = sysconf(_SC_PAGESIZE);
	__u32 words = filter ? RC_TARGET_WORDS : 1;
	int fd, err;
	void *p;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rc_targets", sizeof(__u32), sizeof(__u64), words,
			    &mo);
	if (fd < 0 || !filter)
		return fd;
	s->targets_len = (words * sizeof(__u64) + page - 1) / page * page;
	p = mmap(NULL, s->targets_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	s->targets = p;
	return fd;
}

/*
 * The CPUs online, from /sys/devices/system/cpu/online ("0-3,5"), in
 * @cpus (room for @max); their count, or -errno.
 */
static int online_cpus(uint32_t *cpus, uint32_t max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	unsigned int a, b;
	uint32_t n = 0;
	int c = 0;

	if (!f)
		return -errno;
	while (c != EOF && fscanf(f, "%u", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%u", &b) != 1 || b < a)
				break;
			c = fgetc(f);
		}
		for (; a <= b && n < max; a++)
			cpus[n++] = a;
		if (c != ',')
			break;
	}
	fclose(f);
	return n ? (int)n : -EINVAL;
}

/*
 * Does the kernel of @release (uname -r) compare an inner map to the
 * template by type, key, value and flags only (bpf_map_meta_equal(),
 * Linux 5.10)? Before, a ring's size had to match too. A release that does
 * not parse: assumed older.
 */
static bool meta_ignores_size(const char *release)
{
	unsigned int major, minor;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 5 || (major == 5 && minor >= 10);
}

/*
 * The rings map (common.bpf.h): with @pcpu, a map of ring buffers of
 * @size, filled by open_transport(); else one entry of an array, never
 * filled, which no program reaches. Its fd, or -1 and errno.
 *
 * The inner map is only the template the outer one is made to. From 5.10
 * the kernel neither compares a ring's size nor reads it at verification:
 * the template is a ring of a page, where one of @size cost a third ring's
 * pages zeroed and freed at every start (2 ms of CPU, of the 23 ms of
 * 'record -- true', with the 8 MiB rings of two CPUs). 5.8 and 5.9 compare
 * max_entries: there, a ring of @size.
 */
static int create_rings(const struct rc_bpf *s, bool pcpu, size_t size)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo);
	int inner, fd, err;

	if (meta_ignores_size(s->c.uts.release))
		size = sysconf(_SC_PAGESIZE);
	inner = pcpu ? bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rc_ring", 0, 0, size, NULL)
		     : bpf_map_create(BPF_MAP_TYPE_ARRAY, "rc_ring", sizeof(__u32), sizeof(__u32),
				      1, NULL);
	if (inner < 0)
		return -1;
	mo.inner_map_fd = inner;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "rc_rings", sizeof(__u32), sizeof(__u32),
			    pcpu ? s->c.ncpus : 1, &mo);
	err = errno;
	close(inner);
	errno = err;
	return fd;
}

/* The least share of --ringbuf-size a CPU's ring gets: below, the one ring. */
#define RC_RING_MIN (64u << 10)

/*
 * ringbuf: a ring per CPU online when there are more than one (bpf/common.bpf.h,
 * RC_KNOB_RINGBUF_PCPU), each an equal share of --ringbuf-size rounded
 * down to a power of two, so that the memory stays what the option says,
 * and of the wakeup mark the same part.
 * One CPU, or a share under RC_RING_MIN: the one ring, which costs less
 * on one CPU (the bench machine: 186 ns an event, against 228 in a ring
 * of a CPU's, its lookup) and shares nothing there. RINGCAP_RINGS=one:
 * the one ring anyway (ringcap-record(1), ENVIRONMENT).
 */
static int pick_rings(struct rc_bpf *s)
{
	const char *env = getenv("RINGCAP_RINGS");
	size_t share;
	int n;

	s->ring_size = s->c.opts.ringbuf_size;
	s->nrings = 1;
	if (s->c.transport != RC_TRANSPORT_RINGBUF)
		return 0;
	if (env && strcmp(env, "cpu")) {
		if (strcmp(env, "one"))
			pr_warn("RINGCAP_RINGS=%s: not 'one' or 'cpu', ignored\n", env);
		else
			return 0; /* a testing aid: the one ring on any machine */
	}
	s->ring_cpus = calloc(s->c.ncpus, sizeof(*s->ring_cpus));
	if (!s->ring_cpus)
		return -ENOMEM;
	n = online_cpus(s->ring_cpus, s->c.ncpus);
	if (n <= 1)
		return 0; /* one CPU, or none known: the one ring */
	for (share = s->c.opts.ringbuf_size / n; share & (share - 1);)
		share &= share - 1;
	if (share < RC_RING_MIN) {
		pr_info("a ring per CPU: %zu bytes each, less than %u: using one ring\n", share,
			RC_RING_MIN);
		return 0;
	}
	s->rings_fd = create_rings(s, true, share);
	if (s->rings_fd < 0) {
		pr_info("no map of BPF ring buffers (%s): using one ring\n", strerror(errno));
		return 0;
	}
	/* the wakeup mark as the size: each ring's the same part of it */
	if (s->c.opts.wakeup_bytes) { /* a mark, however small: never level-triggered */
		s->c.opts.wakeup_bytes = s->c.opts.wakeup_bytes * share / s->c.opts.ringbuf_size;
		if (!s->c.opts.wakeup_bytes)
			s->c.opts.wakeup_bytes = 1;
	}
	s->nrings = n;
	s->ring_size = share;
	pr_debug("a BPF ring buffer per CPU: %d of %zu bytes, each waking the reader at %zu\n", n,
		 share, (size_t)s->c.opts.wakeup_bytes);
	return 0;
}

static int create_maps(struct rc_bpf *s)
{
	LIBBPF_OPTS(bpf_map_create_opts, mmapable, .map_flags = BPF_F_MMAPABLE);
	long page = sysconf(_SC_PAGESIZE);

	if (s->c.transport == RC_TRANSPORT_PERFBUF)
		s->events_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "rc_events",
					      sizeof(__u32), sizeof(__u32), s->c.ncpus, NULL);
	else /* a ring per CPU: a page, which no program reaches */
		s->events_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rc_events", 0, 0,
					      s->nrings > 1 ? (size_t)page : s->ring_size, NULL);
	if (s->events_fd < 0)
		goto fail;
	if (s->rings_fd < 0)
		s->rings_fd = create_rings(s, false, 0);
	if (s->rings_fd < 0)
		goto fail;
	s->notify_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "rc_notify", sizeof(__u32),
				      sizeof(__u32), s->c.ncpus, NULL);
	if (s->notify_fd < 0)
		goto fail;
	s->targets_fd = create_targets(s);
	if (s->targets_fd < 0)
		goto fail;
	s->stats_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "rc_stats", sizeof(__u32),
				     sizeof(struct rc_bpf_stats), 1, NULL);
	if (s->stats_fd < 0)
		goto fail;
	s->reader_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rc_reader", sizeof(__u32),
				      sizeof(__u64), 1, &mmapable);
	if (s->reader_fd < 0)
		goto fail;
	/* record -g: the stack records' buffers, a nesting level each (common.bpf.h) */
	s->stackbufs_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "rc_stackbufs", sizeof(__u32),
					 sizeof(struct rc_ev_stack) + 2 * RC_STACK_MAX * sizeof(__u64),
					 s->c.opts.call_graph ? RC_STACK_NEST : 1, NULL);
	if (s->stackbufs_fd < 0)
		goto fail;
	s->stacknest_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "rc_stacknest", sizeof(__u32),
					 sizeof(__u32), 1, NULL);
	if (s->stacknest_fd < 0)
		goto fail;
	return 0;
fail:
	pr_warn("failed to create BPF maps: %s%s\n", strerror(errno),
		errno == EINVAL ? " (a kernel without BPF ring buffers? Linux 5.8 or later needed)"
				: "");
	return -errno;
}

/*
 * The compat follow programs' entry for target @pid, made before its bit is
 * set (follow.bpf.c): -EEXIST when it is a target already.
 */
static int add_followed(struct rc_bpf *s, pid_t pid)
{
	__u32 key = pid, one = 1;
	int err;

	if (!bpf_map_update_elem(bpf_map__fd(s->fw.followed), &key, &one, BPF_NOEXIST))
		return 0;
	err = -errno;
	if (err == -EEXIST)
		return err;
	if (err == -E2BIG)
		pr_warn("failed to add pid %d to the targets: the map of followed processes is "
			"full (%u at most on this kernel)\n",
			pid, bpf_map__max_entries(s->fw.followed));
	else
		pr_warn("failed to add pid %d to the targets: %s\n", pid, strerror(-err));
	return err;
}

int rc_bpf__add_target(struct rc_capture *c, pid_t pid)
{
	struct rc_bpf *s = to_bpf(c);
	int err;

	if (s->aux.nev && !s->aux_pid)
		s->aux_pid = pid; /* a command's: its AUX events follow it (inherit) */
	if (s->user || !s->targets)
		return 0; /* the user's programs choose what they trace; or no pid filter */
	if (pid <= 0 || (uint32_t)pid >= RC_TGID_LIMIT) {
		pr_warn("failed to add pid %d to the targets: out of range\n", pid);
		return -EINVAL;
	}
	if (s->follow_compat && s->fw.followed) {
		err = add_followed(s, pid);
		if (err)
			return err == -EEXIST ? 0 : err;
		/*
		 * Added as the compat programs add and take it away: should the
		 * process die between the entry and this, their subtraction
		 * came first, and the sum is still the word without the bit,
		 * where an or after it would leave a borrow in the tgids above.
		 */
		__atomic_fetch_add(&s->targets[pid / 64], 1ull << (pid % 64), __ATOMIC_SEQ_CST);
		return 0;
	}
	__atomic_fetch_or(&s->targets[pid / 64], 1ull << (pid % 64), __ATOMIC_SEQ_CST);
	return 0;
}

static int open_transport(struct rc_bpf *s)
{
	struct rc_perfbuf_opts po = {
		.size = s->c.opts.ringbuf_size,
		.wakeup_events = s->c.opts.wakeup_events,
		.wakeup_bytes = s->c.opts.wakeup_events ? 0 : s->c.opts.wakeup_bytes,
		.overwrite = s->c.opts.overwrite,
	};
	int err;

	if (s->c.transport == RC_TRANSPORT_RINGBUF && s->nrings > 1)
		return rc_ringbuf__init_percpu(&s->rb, s->rings_fd, s->ring_cpus, s->nrings,
					       s->ring_size,
					       s->c.opts.wakeup_bytes ? s->reader_fd : -1,
					       s->c.opts.wakeup_bytes);
	if (s->c.transport == RC_TRANSPORT_RINGBUF)
		return rc_ringbuf__init(&s->rb, s->events_fd, s->ring_size,
					s->c.opts.wakeup_bytes ? s->reader_fd : -1,
					s->c.opts.wakeup_bytes);
	err = rc_perfbuf__init(&s->pb, s->events_fd, s->c.ncpus, &po);
	s->pb.no_hold_under_pressure = !s->c.opts.time_order_only;
	if (!err && s->c.opts.overwrite && s->c.opts.snap_type)
		err = rc_notify__init(&s->nb, s->notify_fd, s->c.ncpus);
	return err;
}

struct rc_capture *rc_bpf__open(const struct rc_record_opts *opts)
{
	struct rc_bpf *s;
	int err;

	err = check_privileges();
	if (err)
		return rc_err_ptr(err);
	s = calloc(1, sizeof(*s));
	if (!s)
		return rc_err_ptr(-ENOMEM);
	rc_capture__init(&s->c, opts);
	s->c.clock_every = 1024; /* a clock read costs as much as a ring read */
	s->events_fd = s->targets_fd = s->stats_fd = s->notify_fd = s->reader_fd = -1;
	s->rings_fd = -1;
	s->stackbufs_fd = s->stacknest_fd = -1;
	s->rb.epfd = s->pb.epfd = s->nb.epfd = -1;
	err = rc_features__probe_keep(&s->feat, &s->kbtf);
	if (err)
		goto err_out;
	s->c.transport = pick_transport(&s->feat, s->c.opts.transport, s->c.opts.overwrite);
	if (s->c.opts.overwrite && s->c.transport != RC_TRANSPORT_PERFBUF) {
		pr_warn("the flight recorder (--overwrite) needs the perf buffer: "
			"use --transport perfbuf or auto\n");
		err = -EINVAL;
		goto err_out;
	}
	s->c.opts.transport = s->c.transport;
	s->c.ncpus = libbpf_num_possible_cpus();
	if (s->c.ncpus <= 0) {
		err = s->c.ncpus ?: -EINVAL;
		goto err_out;
	}
	err = pick_rings(s);
	if (err)
		goto err_out;
	if (s->c.transport == RC_TRANSPORT_RINGBUF && s->c.opts.wakeup_bytes > s->ring_size / 2) {
		/* a mark the ring cannot hold is never reached: the reader would wake on its timeout */
		pr_info("wake-up mark %zu bytes: more than half the %zu-byte ring; using %zu\n",
			(size_t)s->c.opts.wakeup_bytes, s->ring_size, s->ring_size / 2);
		s->c.opts.wakeup_bytes = s->ring_size / 2;
	}
	s->captured = calloc(s->c.ncpus, sizeof(*s->captured));
	s->percpu = calloc(s->c.ncpus, sizeof(*s->percpu));
	s->est = calloc(s->c.ncpus, sizeof(*s->est));
	s->paused = calloc(s->c.ncpus, sizeof(*s->paused));
	s->pre_dropped = calloc(s->c.ncpus, sizeof(*s->pre_dropped));
	if (!s->captured || !s->percpu || !s->est || !s->paused || !s->pre_dropped) {
		err = -ENOMEM;
		goto err_out;
	}
	err = rc_bpf__aux_parse(s);
	err = err ?: rc_bpf__describe(s);
	if (err)
		goto err_out;
	s->ring = rc_bpf__pick_ring(s);
	err = rc_batcher__init(&s->bt, &s->c);
	if (err)
		goto err_out;
	if (!s->user) {
		err = create_maps(s);
		err = err ?: rc_bpf__load_sources(s);
		err = err ?: open_transport(s);
		if (err)
			goto err_out;
	}
	return &s->c;

err_out:
	rc_bpf__teardown(&s->c);
	rc_capture__release(&s->c);
	free(s);
	return rc_err_ptr(err);
}

/* ---- teardown --------------------------------------------------------- */

static void log_sideband(struct rc_bpf *s)
{
	struct rc_sideband_stats st = rc_sideband__stats(s->sb);

	pr_info("side-band: %llu records, %llu code mappings (%llu files opened), %llu execs, "
		"%llu new processes\n",
		(unsigned long long)st.records, (unsigned long long)st.maps,
		(unsigned long long)st.opened, (unsigned long long)st.execs,
		(unsigned long long)st.forks);
	if (st.lost || st.dropped)
		pr_warn("side-band: %llu records lost by the kernel, %llu not kept: frames of "
			"the processes they were of may be [unknown]\n",
			(unsigned long long)st.lost, (unsigned long long)st.dropped);
}

void rc_bpf__teardown(struct rc_capture *c)
{
	struct rc_bpf *s = to_bpf(c);

	if (s->attached)
		rc_bpf__detach(s);
	bpf_link__destroy(s->fw.fork_link); /* an attach that failed half way */
	bpf_link__destroy(s->fw.exit_link);
	rc_batcher__destroy(&s->bt);
	rc_bpf__loaded(s); /* a load that failed half way */
	if (s->sb) {
		log_sideband(s);
		if (s->c.stacks)
			rc_stacks__set_sideband(s->c.stacks, NULL);
		rc_sideband__free(s->sb);
		s->sb = NULL;
	}
	rc_auxsrc__close(&s->aux);
	rc_ringbuf__destroy(&s->rb);
	rc_perfbuf__destroy(&s->pb);
	rc_perfbuf__destroy(&s->nb);
	rc_snapshot__free(&s->snap);
	syscalls_bpf__destroy(s->sys);
	sched_bpf__destroy(s->sched);
	follow_bpf__destroy(s->follow);
	rc_user__free(s->user);
	dyn_bpf__destroy(s->dyn);
	rc_sampler__close(&s->sampler);
	profile_bpf__destroy(s->prof);
	offcpu_bpf__destroy(s->offcpu);
	free(s->dcaptured);
	free(s->dpercpu);
	free(s->ulost);
	free(s->ddropped);
	free(s->dpaused);
	free(s->dpre);
	if (s->events_fd >= 0)
		close(s->events_fd);
	if (s->rings_fd >= 0)
		close(s->rings_fd);
	free(s->ring_cpus);
	if (s->targets)
		munmap(s->targets, s->targets_len);
	if (s->targets_fd >= 0)
		close(s->targets_fd);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	if (s->notify_fd >= 0)
		close(s->notify_fd);
	if (s->reader_fd >= 0)
		close(s->reader_fd);
	if (s->stackbufs_fd >= 0)
		close(s->stackbufs_fd);
	if (s->stacknest_fd >= 0)
		close(s->stacknest_fd);
	free(s->captured);
	free(s->percpu);
	free(s->est);
	free(s->paused);
	free(s->pre_dropped);
}
