// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend: load the selected sources' BPF programs around one
 * shared ring, filter map and counter map; drain the ring into batches;
 * hand full batches to a writer thread that sorts, compresses and writes
 * them, so the drain never waits on zstd or the disk. When every batch is
 * in use the drain waits for the writer (back-pressure): records are then
 * dropped in the kernel, where they are counted, never in user space.
 */
#include <linux/types.h>
#include <linux/capability.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "events.h"
#include "capture/bpf/ringbuf.h"
#include "capture/bpf/perfbuf.h"
#include "syscalls.skel.h"
#include "sched.skel.h"
#include "follow.skel.h"
#include "dyn.skel.h"
#include "capture/dyn.h"
#include "capture/bpf/userbpf.h"
#include "capture/backend.h"
#include "capture/batch.h"

_Static_assert(sizeof(struct rc_rec_hdr) == sizeof(struct rc_ev_hdr), "record header");
_Static_assert(offsetof(struct rc_rec_hdr, comm) == offsetof(struct rc_ev_hdr, comm), "comm");
_Static_assert(RC_DYN_BASE == RC_FIRST_DYN_ID, "dynamic event ids");

#define TARGETS_MAX 65536
#define BATCH_ROOM  (RC_REC_MAX + sizeof(struct rc_rec_lost)) /* the largest record, and a loss */
#define HOLD_NS                                                                                    \
	1000000ull /* perfbuf: a record this recent may still have an older one in flight          \
		    */
#define SCHED_EVENTS                                                                               \
	(RC_EVENT_BIT(RC_EV_SCHED_SWITCH) | RC_EVENT_BIT(RC_EV_SCHED_WAKEUP) |                     \
	 RC_EVENT_BIT(RC_EV_SCHED_FORK) | RC_EVENT_BIT(RC_EV_SCHED_EXEC) |                         \
	 RC_EVENT_BIT(RC_EV_SCHED_EXIT))

struct rc_bpf;

/* A kind of ring the programs write to, as the drain sees it. */
struct ring_ops {
	size_t (*pending)(const struct rc_bpf *s);	/* bytes waiting, where it says */
	long (*read)(struct rc_bpf *s, uint64_t until); /* into the current batch */
	int (*wait)(struct rc_bpf *s, int ms);		/* until data or @ms */
};

struct rc_bpf {
	struct rc_capture c; /* first: the engine frees the struct through it */
	const struct ring_ops *ring;
	struct syscalls_bpf *sys;
	struct sched_bpf *sched;
	struct follow_bpf *follow;
	struct dyn_bpf *dyn;	      /* tracepoints by name, uprobes */
	struct rc_features feat;      /* what this kernel has, probed at open */
	uint64_t *dcaptured;	      /* [cpu * dset.n + index] */
	struct rc_dyn_stats *dpercpu; /* one dstats element, every CPU's */
	size_t nentries_max;
	struct rc_user *user; /* --bpf: the user's object, instead of ours */
	uint64_t *ulost;      /* --bpf: each CPU's perf ring's losses */
	uint64_t *ddropped;   /* each CPU's drops of dset's events, at the last count */
	int events_fd, targets_fd, stats_fd, notify_fd;
	struct rc_ringbuf rb;
	struct rc_perfbuf pb;	 /* perfbuf: the CPUs' rings */
	struct rc_perfbuf nb;	 /* perfbuf --snapshot-on: the trigger rings */
	struct rc_snapshot snap; /* overwrite: the last snapshot taken */
	uint64_t nsnap;
	uint64_t (*captured)[RC_EV_SLOTS];
	uint64_t malformed;
	struct rc_bpf_stats *percpu;
	bool attached;
	uint64_t ring_hwm;
	struct rc_batcher bt; /* the batches the drain fills, and the writer thread */
};

/* ---- event names ------------------------------------------------------ */

int rc_parse_events(const char *spec, uint32_t *mask, char *bad, size_t badlen)
{
	const struct rc_schema *s = rc_builtin_schema();
	char *copy, *tok, *save = NULL;
	int err = 0;

	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct rc_event_desc *ev = rc_schema__event_by_name(s, tok);

		if (!strcmp(tok, "syscalls"))
			*mask |= RC_EVENT_BIT(RC_EV_SYSCALL);
		else if (!strcmp(tok, "sched"))
			*mask |= SCHED_EVENTS;
		else if (ev)
			*mask |= RC_EVENT_BIT(ev->id);
		else {
			snprintf(bad, badlen, "%s", tok);
			err = -EINVAL;
			break;
		}
	}
	free(copy);
	if (!err && !*mask) {
		snprintf(bad, badlen, "%s", spec);
		err = -EINVAL;
	}
	return err;
}

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

/* ---- BPF setup -------------------------------------------------------- */

static int share_maps(struct rc_bpf *s, struct bpf_map *events, struct bpf_map *targets,
		      struct bpf_map *stats, struct bpf_map *notify)
{
	int err = bpf_map__reuse_fd(events, s->events_fd);

	err = err ?: bpf_map__reuse_fd(targets, s->targets_fd);
	err = err ?: bpf_map__reuse_fd(notify, s->notify_fd);
	return err ?: bpf_map__reuse_fd(stats, s->stats_fd);
}

static struct rc_knobs make_knobs(const struct rc_record_opts *o)
{
	struct rc_knobs k = {
		.self_tgid = getpid(),
		.filter_pids = o->npids > 0 || o->follow_forks,
		.filter_comm = o->comm && *o->comm,
		.wakeup_bytes = o->wakeup_bytes,
		.transport =
		    o->transport == RC_TRANSPORT_PERFBUF ? RC_KNOB_PERFBUF : RC_KNOB_RINGBUF,
		.snap_type = o->overwrite ? o->snap_type : 0,
		.snap_nr = o->snap_nr,
	};

	if (k.filter_comm)
		strncpy(k.comm, o->comm, sizeof(k.comm) - 1);
	return k;
}

static int load_failed(const char *what, int err)
{
	pr_warn("failed to load the %s BPF programs: %s (run with -v to see libbpf's log)\n", what,
		strerror(-err));
	return err;
}

/* Refuse in one line what this kernel cannot load, before libbpf tries. */
static int need(const struct rc_bpf *s, enum rc_feature_need what, const char *source)
{
	const char *missing = rc_features__missing(&s->feat, what);

	if (!missing)
		return 0;
	pr_warn("%s needs %s, which this kernel (%s) does not have; 'ringcap record --check' "
		"lists what it has and what record can use\n",
		source, missing, s->feat.release);
	return -EOPNOTSUPP;
}

static bool have_kind(const struct rc_dyn_set *d, enum rc_dyn_kind kind)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->ev[i].kind == kind)
			return true;
	return false;
}

/* Tell the tracepoint program about each tracepoint: by its ftrace id. */
static int fill_tpconf(struct rc_bpf *s)
{
	int fd = bpf_map__fd(s->dyn->maps.tpconf);
	size_t i;

	for (i = 0; i < s->c.dset.n; i++) {
		const struct rc_dyn_event *e = &s->c.dset.ev[i];
		struct rc_tp_conf c = { .type = e->id,
					.fixed = e->tp.size,
					.nlocs = e->tp.nlocs,
					.ftrace_id = e->tp.id };
		__u32 key = e->id;
		uint16_t k;

		if (e->kind != RC_DYN_TP)
			continue;
		for (k = 0; k < e->tp.nlocs && k < RC_TP_MAX_LOCS; k++) {
			c.loc_off[k] = e->tp.loc_off[k];
			c.loc_rel[k] = e->tp.loc_rel[k];
		}
		if (bpf_map_update_elem(fd, &key, &c, BPF_ANY) < 0) {
			pr_warn("failed to configure tracepoint %s: %s\n", e->name,
				strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static int open_dyn(struct rc_bpf *s, const struct rc_knobs *k)
{
	struct dyn_bpf *d;
	int err;

	if (have_kind(&s->c.dset, RC_DYN_TP) &&
	    (err = need(s, RC_NEED_TRACEPOINTS, "-e SYSTEM:NAME")))
		return err;
	if ((have_kind(&s->c.dset, RC_DYN_UPROBE) || have_kind(&s->c.dset, RC_DYN_URETPROBE)) &&
	    (err = need(s, RC_NEED_UPROBES, "-e uprobe:")))
		return err;
	d = dyn_bpf__open();
	if (!d)
		return load_failed("tracepoint and uprobe", -errno);
	s->dyn = d;
	d->rodata->knobs = *k;
	bpf_program__set_autoload(d->progs.handle_tp, have_kind(&s->c.dset, RC_DYN_TP));
	bpf_program__set_autoload(d->progs.handle_uprobe, have_kind(&s->c.dset, RC_DYN_UPROBE));
	bpf_program__set_autoload(d->progs.handle_uretprobe,
				  have_kind(&s->c.dset, RC_DYN_URETPROBE));
	err = share_maps(s, d->maps.events, d->maps.targets, d->maps.stats, d->maps.notify);
	err = err ?: dyn_bpf__load(d);
	if (err)
		return load_failed("tracepoint and uprobe", err);
	return fill_tpconf(s);
}

static void count_captured(struct rc_bpf *s, const void *rec);

/* --bpf: a record of the user's, wrapped. */
static int user_put(void *ctx, const void *rec, size_t len)
{
	struct rc_bpf *s = ctx;
	int err = rc_batcher__put(&s->bt, rec, len);

	if (!err)
		count_captured(s, rec);
	return err;
}

/* --bpf, a perf event array: the kernel's count of what it could not write, as a record. */
static int user_lost(void *ctx, int cpu, uint64_t n)
{
	struct rc_bpf *s = ctx;
	struct rc_rec_lost l = { .hdr = { .ts = rc_now_ns(CLOCK_BOOTTIME),
					  .type = RC_REC_LOST,
					  .size = sizeof(l),
					  .cpu = cpu },
				 .lost = n };

	if (cpu < 0 || cpu >= s->c.ncpus)
		return -EINVAL;
	s->ulost[cpu] += n;
	return rc_batcher__put(&s->bt, &l, sizeof(l));
}

static int open_user(struct rc_bpf *s)
{
	struct rc_user_opts uo = { .path = s->c.opts.bpf_object,
				   .map = s->c.opts.bpf_map,
				   .event_type = s->c.opts.event_type,
				   .sets = s->c.opts.bpf_sets,
				   .nsets = s->c.opts.nbpf_sets,
				   .put = user_put,
				   .lost = user_lost,
				   .ctx = s };

	if (s->c.opts.events || s->c.dset.n) {
		pr_warn("--bpf records the object's own events: drop -e\n");
		return -EINVAL;
	}
	if (s->c.opts.overwrite || s->c.opts.npids || (s->c.opts.comm && *s->c.opts.comm)) {
		pr_warn("--bpf: --overwrite, -p and --comm are for ringcap's own programs\n");
		return -EINVAL;
	}
	s->user = rc_user__open(&uo, &s->c.dset, s->c.schema);
	if (!s->user)
		return -errno;
	s->c.transport = s->c.opts.transport = rc_user__transport(s->user);
	return 0;
}

/*
 * ringcap's own events and enums, but for an event a tracepoint of the
 * same name recorded through the generic program stands for: a name has
 * one meaning in a capture.
 */
static int add_builtin(struct rc_bpf *s)
{
	const struct rc_schema *b = rc_builtin_schema();
	uint32_t i;
	size_t k;
	int err = 0;

	for (i = 0; !err && i < b->nenums; i++)
		err = rc_schema__add_enum(s->c.schema, &b->enums[i]);
	for (i = 0; !err && i < b->nevents; i++) {
		bool shadowed = false;

		for (k = 0; k < s->c.dset.n && !shadowed; k++)
			shadowed = !strcmp(s->c.dset.ev[k].name, b->events[i].name);
		if (!shadowed)
			err = rc_schema__add_event(s->c.schema, &b->events[i]);
	}
	return err;
}

/* Find the events -e names beyond the built-in ones, and describe them. */
static int describe_dyn(struct rc_bpf *s)
{
	size_t i, n;
	int err = 0;

	s->c.schema = rc_schema__new(NULL);
	if (!s->c.schema)
		return -errno;
	s->c.dset.builtin_mask = s->c.opts.events;
	for (i = 0; !err && i < s->c.opts.ntracepoints; i++)
		err = rc_dyn__add_tracepoints(&s->c.dset, s->c.opts.tracepoints[i]);
	for (i = 0; !err && i < s->c.opts.nuprobes; i++)
		err = rc_dyn__add_uprobe(&s->c.dset, s->c.opts.uprobes[i]);
	if (!err && s->c.opts.bpf_object)
		err = open_user(s);
	if (err)
		return err;
	if (!s->c.opts.events && !s->c.dset.n) {
		pr_warn("no events to record: give -e\n");
		return -EINVAL;
	}
	err = add_builtin(s) ?: rc_dyn__describe(&s->c.dset, s->c.schema);
	if (err)
		return err;
	n = s->c.dset.n ? s->c.dset.n : 1;
	s->dcaptured = calloc((size_t)s->c.ncpus * n, sizeof(*s->dcaptured));
	s->dpercpu = calloc(s->c.ncpus, sizeof(*s->dpercpu));
	s->ulost = calloc(s->c.ncpus, sizeof(*s->ulost));
	s->ddropped = calloc(s->c.ncpus, sizeof(*s->ddropped));
	/* one entry per CPU and event, and one per event for all CPUs (missed) */
	s->nentries_max = (size_t)(s->c.ncpus + 1) * (RC_EV_MAX + s->c.dset.n);
	s->c.last.entries = calloc(s->nentries_max, sizeof(*s->c.last.entries));
	if (!s->dcaptured || !s->dpercpu || !s->ulost || !s->ddropped || !s->c.last.entries)
		return -ENOMEM;
	return 0;
}

static int open_sources(struct rc_bpf *s)
{
	uint32_t ev = s->c.opts.events;
	struct rc_knobs k = make_knobs(&s->c.opts);
	int err;

	if (ev & RC_EVENT_BIT(RC_EV_SYSCALL)) {
		err = need(s, RC_NEED_SYSCALLS, "-e syscalls");
		if (err)
			return err;
		s->sys = syscalls_bpf__open();
		if (!s->sys)
			return load_failed("syscalls", -errno);
		s->sys->rodata->knobs = k;
		err = share_maps(s, s->sys->maps.events, s->sys->maps.targets, s->sys->maps.stats,
				 s->sys->maps.notify);
		err = err ?: syscalls_bpf__load(s->sys);
		if (err)
			return load_failed("syscalls", err);
	}
	if (ev & SCHED_EVENTS) {
		struct sched_bpf *sk;

		err = need(s, RC_NEED_SCHED, "-e sched");
		if (err)
			return err;
		sk = sched_bpf__open();
		if (!sk)
			return load_failed("sched", -errno);
		s->sched = sk;
		sk->rodata->knobs = k;
		bpf_program__set_autoload(sk->progs.handle_sched_switch,
					  ev & RC_EVENT_BIT(RC_EV_SCHED_SWITCH));
		bpf_program__set_autoload(sk->progs.handle_sched_wakeup,
					  ev & RC_EVENT_BIT(RC_EV_SCHED_WAKEUP));
		bpf_program__set_autoload(sk->progs.handle_sched_process_fork,
					  ev & RC_EVENT_BIT(RC_EV_SCHED_FORK));
		bpf_program__set_autoload(sk->progs.handle_sched_process_exec,
					  ev & RC_EVENT_BIT(RC_EV_SCHED_EXEC));
		/* the variant whose arguments the kernel's prototype has */
		bpf_program__set_autoload(sk->progs.handle_sched_process_exit,
					  (ev & RC_EVENT_BIT(RC_EV_SCHED_EXIT)) &&
					      !s->feat.exit_group_dead);
		bpf_program__set_autoload(sk->progs.handle_sched_process_exit_gd,
					  (ev & RC_EVENT_BIT(RC_EV_SCHED_EXIT)) &&
					      s->feat.exit_group_dead);
		err = share_maps(s, sk->maps.events, sk->maps.targets, sk->maps.stats,
				 sk->maps.notify);
		err = err ?: sched_bpf__load(sk);
		if (err)
			return load_failed("sched", err);
	}
	if (s->c.dset.n) {
		err = open_dyn(s, &k);
		if (err)
			return err;
	}
	if (s->c.opts.follow_forks) {
		err = need(s, RC_NEED_FOLLOW, "following a command's children");
		if (err)
			return err;
		s->follow = follow_bpf__open();
		if (!s->follow)
			return load_failed("follow", -errno);
		s->follow->rodata->knobs = k;
		bpf_program__set_autoload(s->follow->progs.handle_follow_exit,
					  !s->feat.exit_group_dead);
		bpf_program__set_autoload(s->follow->progs.handle_follow_exit_gd,
					  s->feat.exit_group_dead);
		err = share_maps(s, s->follow->maps.events, s->follow->maps.targets,
				 s->follow->maps.stats, s->follow->maps.notify);
		err = err ?: follow_bpf__load(s->follow);
		if (err)
			return load_failed("follow", err);
	}
	return 0;
}

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

static int create_maps(struct rc_bpf *s)
{
	if (s->c.transport == RC_TRANSPORT_PERFBUF)
		s->events_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "rc_events",
					      sizeof(__u32), sizeof(__u32), s->c.ncpus, NULL);
	else
		s->events_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rc_events", 0, 0,
					      s->c.opts.ringbuf_size, NULL);
	if (s->events_fd < 0)
		goto fail;
	s->notify_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "rc_notify", sizeof(__u32),
				      sizeof(__u32), s->c.ncpus, NULL);
	if (s->notify_fd < 0)
		goto fail;
	s->targets_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "rc_targets", sizeof(__u32), sizeof(__u8),
				       TARGETS_MAX, NULL);
	if (s->targets_fd < 0)
		goto fail;
	s->stats_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "rc_stats", sizeof(__u32),
				     sizeof(struct rc_bpf_stats), 1, NULL);
	if (s->stats_fd < 0)
		goto fail;
	return 0;
fail:
	pr_warn("failed to create BPF maps: %s%s\n", strerror(errno),
		errno == EINVAL ? " (a kernel without BPF ring buffers? Linux 5.8 or later needed)"
				: "");
	return -errno;
}

static struct rc_bpf *to_bpf(struct rc_capture *c)
{
	return (struct rc_bpf *)c;
}

static int bpf_add_target(struct rc_capture *c, pid_t pid)
{
	struct rc_bpf *s = to_bpf(c);
	__u32 key = pid;
	__u8 one = 1;

	if (s->user)
		return 0; /* the user's programs choose what they trace */
	if (bpf_map_update_elem(s->targets_fd, &key, &one, BPF_ANY) < 0) {
		pr_warn("failed to add pid %d to the targets: %s\n", pid, strerror(errno));
		return -errno;
	}
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

	if (s->c.transport == RC_TRANSPORT_RINGBUF)
		return rc_ringbuf__init(&s->rb, s->events_fd, s->c.opts.ringbuf_size);
	err = rc_perfbuf__init(&s->pb, s->events_fd, s->c.ncpus, &po);
	s->pb.fullest_first = !s->c.opts.time_order_only;
	if (!err && s->c.opts.overwrite && s->c.opts.snap_type)
		err = rc_notify__init(&s->nb, s->notify_fd, s->c.ncpus);
	return err;
}

static void bpf_teardown(struct rc_capture *c);
static const struct ring_ops *pick_ring(const struct rc_bpf *s);

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
	s->events_fd = s->targets_fd = s->stats_fd = s->notify_fd = -1;
	s->rb.epfd = s->pb.epfd = s->nb.epfd = -1;
	rc_features__probe(&s->feat);
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
	s->captured = calloc(s->c.ncpus, sizeof(*s->captured));
	s->percpu = calloc(s->c.ncpus, sizeof(*s->percpu));
	if (!s->captured || !s->percpu) {
		err = -ENOMEM;
		goto err_out;
	}
	err = describe_dyn(s);
	if (err)
		goto err_out;
	s->ring = pick_ring(s);
	err = rc_batcher__init(&s->bt, &s->c);
	if (err)
		goto err_out;
	if (!s->user) {
		err = create_maps(s);
		err = err ?: open_sources(s);
		err = err ?: open_transport(s);
		if (err)
			goto err_out;
	}
	return &s->c;

err_out:
	bpf_teardown(&s->c);
	rc_capture__release(&s->c);
	free(s);
	return rc_err_ptr(err);
}

/* ---- draining --------------------------------------------------------- */

/* Is this a record a BPF program of ours made? Counts it malformed if not. */
static bool check_record(void *ctx, const void *rec, uint32_t len)
{
	struct rc_bpf *s = ctx;
	struct rc_ev_hdr h;

	if (len < sizeof(h) || len > RC_REC_MAX) {
		s->malformed++;
		return false;
	}
	memcpy(&h, rec, sizeof(h));
	if (h.size != len || !h.type || h.cpu >= s->c.ncpus || h.size % RC_REC_ALIGN ||
	    (h.type >= RC_EV_MAX && !rc_dyn__event(&s->c.dset, h.type))) {
		s->malformed++;
		return false;
	}
	return true;
}

static void count_captured(struct rc_bpf *s, const void *rec)
{
	struct rc_ev_hdr h;

	memcpy(&h, rec, sizeof(h));
	if (h.type >= RC_DYN_BASE)
		s->dcaptured[(size_t)h.cpu * s->c.dset.n + h.type - RC_DYN_BASE]++;
	else
		s->captured[h.cpu][h.type]++;
}

static bool count_record(void *ctx, const void *rec, uint32_t len)
{
	if (!check_record(ctx, rec, len))
		return false;
	count_captured(ctx, rec);
	return true;
}

/* ---- the rings: the BPF ring buffer, perf rings, libbpf's for --bpf ---- */

static long bpf_snapshot(struct rc_bpf *s, enum rc_snapshot_why reason);

static size_t ringbuf_pending(const struct rc_bpf *s)
{
	return rc_ringbuf__pending(&s->rb);
}

static long ringbuf_read(struct rc_bpf *s, uint64_t until)
{
	return rc_ringbuf__read(&s->rb, s->bt.cur->buf, RC_BATCH_SIZE, &s->bt.cur->len,
				count_record, s);
}

static int ringbuf_wait(struct rc_bpf *s, int ms)
{
	return rc_ringbuf__wait(&s->rb, ms);
}

static size_t perfbuf_pending(const struct rc_bpf *s)
{
	return rc_perfbuf__pending(&s->pb);
}

/* merged across the CPUs' rings, up to @until */
static long perfbuf_read(struct rc_bpf *s, uint64_t until)
{
	return rc_perfbuf__read(&s->pb, s->bt.cur->buf, RC_BATCH_SIZE, &s->bt.cur->len, until,
				count_record, s);
}

/*
 * Flight recorder: the trigger rings wake us (--snapshot-on), and a
 * trigger takes a snapshot.
 */
static int perfbuf_wait(struct rc_bpf *s, int ms)
{
	int err;

	if (!s->c.opts.overwrite || !s->nb.nrings)
		return rc_perfbuf__wait(&s->pb, ms); /* no rings in nb: a sleep */
	err = rc_notify__poll(&s->nb, ms);
	if (err > 0) {
		long n = bpf_snapshot(s, RC_SNAPSHOT_EVENT);

		return n < 0 ? (int)n : 1;
	}
	return err;
}

static size_t user_pending(const struct rc_bpf *s)
{
	return 0; /* libbpf's rings do not say */
}

static long user_read(struct rc_bpf *s, uint64_t until)
{
	return rc_user__consume(s->user);
}

static int user_wait(struct rc_bpf *s, int ms)
{
	return rc_user__poll(s->user, ms);
}

static const struct ring_ops ringbuf_ops = { ringbuf_pending, ringbuf_read, ringbuf_wait };
static const struct ring_ops perfbuf_ops = { perfbuf_pending, perfbuf_read, perfbuf_wait };
static const struct ring_ops user_ops = { user_pending, user_read, user_wait };

static const struct ring_ops *pick_ring(const struct rc_bpf *s)
{
	if (s->user)
		return &user_ops;
	return s->c.transport == RC_TRANSPORT_PERFBUF ? &perfbuf_ops : &ringbuf_ops;
}

/*
 * Read everything committed, batch by batch. perfbuf: only records older
 * than HOLD_NS unless @all, so that one still in flight on another CPU
 * (its time taken, not yet in its ring) is merged in its place.
 */
static long read_ring(struct rc_bpf *s, bool all)
{
	size_t pending = s->ring->pending(s);
	uint64_t until = all ? UINT64_MAX : rc_now_ns(CLOCK_BOOTTIME) - HOLD_NS;
	long total = 0, n;
	int err;

	if (s->c.opts.overwrite)
		return 0; /* the rings are read at snapshots */
	if (pending > s->ring_hwm)
		s->ring_hwm = pending;
	do {
		if (RC_BATCH_SIZE - s->bt.cur->len < BATCH_ROOM) {
			err = rc_batcher__submit(&s->bt);
			if (err)
				return err;
		}
		n = s->ring->read(s, until);
		total += n;
	} while (RC_BATCH_SIZE - s->bt.cur->len < BATCH_ROOM);
	return total;
}

_Static_assert((int)RC_SNAPSHOT_SIGNAL == (int)RC_SNAP_SIGNAL &&
		   (int)RC_SNAPSHOT_EXIT == (int)RC_SNAP_EXIT &&
		   (int)RC_SNAPSHOT_EVENT == (int)RC_SNAP_EVENT,
	       "snapshot reasons");

static long bpf_snapshot(struct rc_bpf *s, enum rc_snapshot_why reason)
{
	struct rc_snapshot *sn = &s->snap;
	struct rc_rec_snapshot m = { .hdr = { .type = RC_REC_SNAPSHOT, .size = sizeof(m) } };
	size_t i;
	int err;

	if (!s->c.opts.overwrite || !s->c.started)
		return -EINVAL;
	err = rc_perfbuf__snapshot(&s->pb, sn, check_record, s);
	if (err)
		return err;
	m.seq = ++s->nsnap;
	m.reason = reason;
	m.nrec = sn->nrefs;
	m.taken_ts = sn->taken_ts;
	/* the marker sorts first: the writer keeps equal timestamps in order */
	m.hdr.ts = sn->nrefs ? sn->refs[0].ts : sn->taken_ts;
	m.last_ts = sn->nrefs ? sn->refs[sn->nrefs - 1].ts : sn->taken_ts;
	err = rc_batcher__put(&s->bt, &m, sizeof(m));
	for (i = 0; !err && i < sn->nrefs; i++) {
		err = rc_batcher__put(&s->bt, sn->refs[i].rec, sn->refs[i].len);
		if (!err)
			count_captured(s, sn->refs[i].rec);
	}
	err = err ?: rc_batcher__submit(&s->bt);
	if (err)
		return err;
	pr_debug("snapshot %llu: %zu records, %llu older ones left out (a ring had overwritten "
		 "their time)\n",
		 (unsigned long long)m.seq, sn->nrefs, (unsigned long long)sn->cut);
	return sn->nrefs;
}

/* Runs of @prog the kernel skipped: it was already running on that CPU. */
static uint64_t prog_missed(const struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

/*
 * One program serves every tracepoint (every uprobe), and the kernel
 * counts skipped runs per program: they are counted under the first event
 * that program serves.
 */
static void add_dyn_missed(struct rc_bpf *s, struct rc_stats *st)
{
	static const enum rc_dyn_kind kinds[] = { RC_DYN_TP, RC_DYN_UPROBE, RC_DYN_URETPROBE };
	const struct bpf_program *progs[] = { s->dyn->progs.handle_tp, s->dyn->progs.handle_uprobe,
					      s->dyn->progs.handle_uretprobe };
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		uint64_t m;

		for (i = 0; i < s->c.dset.n && s->c.dset.ev[i].kind != kinds[k]; i++)
			;
		if (i == s->c.dset.n || !(m = prog_missed(progs[k])))
			continue;
		st->entries[st->nentries++] = (struct rc_stat_entry){ .cpu = RC_CPU_ANY,
								      .type = s->c.dset.ev[i].id,
								      .missed = m };
	}
}

/*
 * Events lost before a program could count them: the kernel does not run
 * a tracing program that is already running on the CPU (an interrupt's
 * wakeup during a wakeup), and counts that only per program.
 */
static void add_missed(struct rc_bpf *s, struct rc_stats *st)
{
	struct {
		uint32_t type;
		const struct bpf_program *prog;
	} progs[8];
	uint64_t missed[RC_EV_MAX] = {};
	size_t i, n = 0;
	uint32_t t;

	if (s->sys) {
		progs[n++] = (typeof(progs[0])){ RC_EV_SYSCALL, s->sys->progs.handle_sys_enter };
		progs[n++] = (typeof(progs[0])){ RC_EV_SYSCALL, s->sys->progs.handle_sys_exit };
	}
	if (s->sched) {
		progs[n++] =
		    (typeof(progs[0])){ RC_EV_SCHED_SWITCH, s->sched->progs.handle_sched_switch };
		progs[n++] =
		    (typeof(progs[0])){ RC_EV_SCHED_WAKEUP, s->sched->progs.handle_sched_wakeup };
		progs[n++] = (typeof(progs[0])){ RC_EV_SCHED_FORK,
						 s->sched->progs.handle_sched_process_fork };
		progs[n++] = (typeof(progs[0])){ RC_EV_SCHED_EXEC,
						 s->sched->progs.handle_sched_process_exec };
		progs[n++] = (typeof(progs[0])){ RC_EV_SCHED_EXIT,
						 s->sched->progs.handle_sched_process_exit };
	}
	if (s->follow) {
		progs[n++] =
		    (typeof(progs[0])){ RC_TYPE_FOLLOW, s->follow->progs.handle_follow_fork };
		/* a skipped exit only keeps a dead tgid a target: nothing is lost */
	}
	for (i = 0; i < n; i++)
		missed[progs[i].type] += prog_missed(progs[i].prog);
	for (t = 0; t < RC_EV_MAX; t++) {
		if (!missed[t])
			continue;
		st->entries[st->nentries++] =
		    (struct rc_stat_entry){ .cpu = RC_CPU_ANY, .type = t, .missed = missed[t] };
	}
	if (s->dyn)
		add_dyn_missed(s, st);
}

/* The counters of the events of dset, one BPF map read each. */
static int dyn_stats(struct rc_bpf *s, struct rc_stats *st)
{
	int fd = bpf_map__fd(s->dyn->maps.dstats);
	__u32 i;
	int cpu;

	memset(s->ddropped, 0, s->c.ncpus * sizeof(*s->ddropped));
	for (i = 0; i < s->c.dset.n; i++) {
		if (bpf_map_lookup_elem(fd, &i, s->dpercpu) < 0)
			return -errno;
		for (cpu = 0; cpu < s->c.ncpus; cpu++) {
			const struct rc_dyn_stats *b = &s->dpercpu[cpu];

			s->ddropped[cpu] += b->dropped;
			struct rc_stat_entry e = {
				cpu,	     RC_DYN_BASE + i,
				b->made,     b->dropped,
				b->filtered, s->dcaptured[(size_t)cpu * s->c.dset.n + i]
			};

			if (e.made || e.dropped || e.filtered || e.captured)
				st->entries[st->nentries++] = e;
		}
	}
	return 0;
}

/*
 * --bpf: what the user's programs made is what was read, and what a perf
 * ring lost (counted under the struct's event). A BPF ring buffer that
 * was full is the programs' to count: the kernel does not.
 */
static void user_stats(struct rc_bpf *s, struct rc_stats *st)
{
	uint16_t lost_id = rc_user__event_id(s->user);
	size_t i;
	int cpu;

	for (i = 0; i < s->c.dset.n; i++) {
		for (cpu = 0; cpu < s->c.ncpus; cpu++) {
			uint64_t c = s->dcaptured[(size_t)cpu * s->c.dset.n + i];
			uint64_t l = RC_DYN_BASE + i == lost_id ? s->ulost[cpu] : 0;
			struct rc_stat_entry e = { cpu, RC_DYN_BASE + i, c + l, l, 0, c };

			if (e.made)
				st->entries[st->nentries++] = e;
		}
	}
}

/* Take the counters now into s->c.last. */
static int snapshot_stats(struct rc_bpf *s)
{
	struct rc_stats *st = &s->c.last;
	__u32 zero = 0;
	int cpu, t, n = 0;

	if (!s->user && bpf_map_lookup_elem(s->stats_fd, &zero, s->percpu) < 0)
		return -errno;
	st->ts = rc_now_ns(CLOCK_BOOTTIME);
	st->ring_size = s->c.opts.ringbuf_size;
	st->ring_hwm = s->ring_hwm;
	st->ring_pending = s->c.opts.overwrite ? 0 : s->ring->pending(s);
	st->user_dropped = s->malformed + s->pb.malformed;
	st->writer_wait_ns = rc_batcher__wait_ns(&s->bt);
	for (cpu = 0; cpu < s->c.ncpus; cpu++) {
		for (t = 1; t < RC_EV_MAX; t++) {
			const struct rc_bpf_stats *b = &s->percpu[cpu];
			struct rc_stat_entry e = { cpu,
						   t,
						   b->made[t],
						   b->dropped[t],
						   b->filtered[t],
						   s->captured[cpu][t] };

			if (e.made || e.dropped || e.filtered || e.captured)
				st->entries[n++] = e;
		}
	}
	st->nentries = n;
	if (s->dyn) {
		int err = dyn_stats(s, st);

		if (err)
			return err;
	}
	if (s->user)
		user_stats(s, st);
	add_missed(s, st);
	return 0;
}

static int bpf_sample(struct rc_capture *c)
{
	return snapshot_stats(to_bpf(c));
}

/* What was read so far, then the counters, to the file. */
static int push_stats(struct rc_bpf *s)
{
	int err = rc_batcher__submit(&s->bt);

	err = err ?: snapshot_stats(s);
	if (err)
		return err;
	s->c.last_stats = rc_now_ns(CLOCK_MONOTONIC);
	return rc_batcher__stats(&s->bt, &s->c.last);
}

static long bpf_read(struct rc_capture *c, uint64_t end)
{
	return read_ring(to_bpf(c), false);
}

static int bpf_wait(struct rc_capture *c, int ms)
{
	struct rc_bpf *s = to_bpf(c);

	return s->ring->wait(s, ms);
}

static int bpf_push_stats(struct rc_capture *c)
{
	return push_stats(to_bpf(c));
}

static int bpf_flush(struct rc_capture *c)
{
	return rc_batcher__flush(&to_bpf(c)->bt);
}

static int bpf_drained(struct rc_capture *c)
{
	return rc_batcher__submit(&to_bpf(c)->bt);
}

/* ---- start and stop --------------------------------------------------- */

static int attach_dyn(struct rc_bpf *s)
{
	size_t i;

	for (i = 0; i < s->c.dset.n; i++) {
		struct rc_dyn_event *e = &s->c.dset.ev[i];
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = e->id, .func_name = e->symbol,
			    .retprobe = e->kind == RC_DYN_URETPROBE);

		LIBBPF_OPTS(bpf_tracepoint_opts, to, .bpf_cookie = e->id);

		if (e->kind == RC_DYN_TP)
			e->link = bpf_program__attach_tracepoint_opts(
			    s->dyn->progs.handle_tp, e->tp.system, e->tp.name, &to);
		else
			e->link = bpf_program__attach_uprobe_opts(
			    e->kind == RC_DYN_UPROBE ? s->dyn->progs.handle_uprobe
						     : s->dyn->progs.handle_uretprobe,
			    -1, e->path, 0, &uo);
		if (!e->link) {
			int err = -errno;

			pr_warn("failed to attach to %s: %s\n", e->name, strerror(errno));
			return err;
		}
	}
	return 0;
}

static void detach_dyn(struct rc_bpf *s)
{
	size_t i;

	for (i = 0; i < s->c.dset.n; i++) {
		bpf_link__destroy(s->c.dset.ev[i].link);
		s->c.dset.ev[i].link = NULL;
	}
}

static int attach_sources(struct rc_bpf *s)
{
	int err = 0;

	if (s->sys)
		err = syscalls_bpf__attach(s->sys);
	if (!err && s->sched)
		err = sched_bpf__attach(s->sched);
	if (!err && s->dyn)
		err = attach_dyn(s);
	if (!err && s->user)
		err = rc_user__attach(s->user);
	/* last: on a shared tracepoint, the sources see a target before it is forgotten */
	if (!err && s->follow)
		err = follow_bpf__attach(s->follow);
	if (err)
		pr_warn("failed to attach BPF programs: %s\n", strerror(-err));
	return err;
}

static void detach_sources(struct rc_bpf *s)
{
	if (s->follow)
		follow_bpf__detach(s->follow);
	if (s->sched)
		sched_bpf__detach(s->sched);
	if (s->sys)
		syscalls_bpf__detach(s->sys);
	detach_dyn(s);
	if (s->user)
		rc_user__detach(s->user);
	s->attached = false;
}

static int bpf_start(struct rc_capture *c, int fd)
{
	struct rc_bpf *s = to_bpf(c);
	struct rc_writer_opts wo = { .sz = sizeof(wo),
				     .compress_level = s->c.opts.compress_level,
				     .no_compress = s->c.opts.no_compress };
	int err;

	/*
	 * Attach before the header is written: once the file is not empty,
	 * tracing is on. Events of the meantime wait in the ring.
	 */
	err = attach_sources(s);
	if (err)
		return err;
	s->attached = true;
	if (fd >= 0) {
		s->c.w = rc_writer__new(fd, &s->c.meta, &wo);
		if (!s->c.w)
			return -errno;
	}
	return rc_batcher__start(&s->bt);
}

/*
 * After detaching, a program already running on another CPU may still
 * count and reserve a record. Detaching does not wait for it; an RCU grace
 * period does (BPF tracing programs run inside RCU read-side sections), and
 * membarrier(MEMBARRIER_CMD_GLOBAL) waits for one. Then drain until two
 * snapshots in a row agree with the records read.
 */
static int settle(struct rc_bpf *s)
{
	struct rc_stats_point pt = {};
	int i, agreed = 0;

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0)
		usleep(10000); /* no membarrier: give in-flight programs time */
	for (i = 0; i < 1000; i++) {
		long n = read_ring(s, true);
		int err;

		if (n < 0)
			return n;
		err = snapshot_stats(s);
		if (err)
			return err;
		rc_stats__totals(&s->c.last, &pt);
		if (pt.made == pt.dropped + pt.captured + s->malformed && !n) {
			if (++agreed == 2)
				return 0;
			continue;
		}
		agreed = 0;
		usleep(1000);
	}
	pr_warn("counters did not settle: %llu made, %llu dropped, %llu read\n",
		(unsigned long long)pt.made, (unsigned long long)pt.dropped,
		(unsigned long long)pt.captured);
	return 0;
}

/*
 * perfbuf: every drop goes into the stream as a lost record. The kernel
 * reports a loss only before the next record that fits, so the last ones
 * never reach the ring: the programs' own counts (each CPU's drops) say
 * how many, and a record flagged RC_LOST_F_AT_END carries them.
 */
static int write_lost_ledger(struct rc_bpf *s)
{
	uint64_t ts = rc_now_ns(CLOCK_BOOTTIME);
	uint32_t i;
	int err = 0;

	/* every CPU: one offline at the start got no ring, and drops all it makes */
	for (i = 0; !err && i < (uint32_t)s->c.ncpus; i++) {
		struct rc_pring none = { .cpu = i }, *r = &none;
		struct rc_rec_lost l = {
			.hdr = { .ts = ts, .type = RC_REC_LOST, .size = sizeof(l), .cpu = i }
		};
		uint64_t dropped = 0;
		uint32_t k;
		int t;

		for (k = 0; k < s->pb.nrings; k++)
			if (s->pb.rings[k].cpu == i)
				r = &s->pb.rings[k];
		for (t = 0; t < RC_EV_SLOTS; t++)
			dropped += s->percpu[i].dropped[t];
		dropped += s->ddropped[i]; /* tracepoints' and probes' */
		if (r->owed) {
			l.lost = r->owed;
			err = rc_batcher__put(&s->bt, &l, sizeof(l));
			r->owed = 0;
		}
		if (!err && dropped > r->lost) {
			l.lost = dropped - r->lost;
			l.flags = RC_LOST_F_AT_END;
			err = rc_batcher__put(&s->bt, &l, sizeof(l));
		}
	}
	return err;
}

/* Flight recorder: the last snapshot, once the programs are done. */
static int final_snapshot(struct rc_bpf *s)
{
	long n;

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0)
		usleep(10000);
	n = bpf_snapshot(s, RC_SNAPSHOT_EXIT);
	return n < 0 ? (int)n : snapshot_stats(s);
}

static int bpf_stop(struct rc_capture *c)
{
	struct rc_bpf *s = to_bpf(c);
	int err;

	detach_sources(s);
	err = s->c.opts.overwrite ? final_snapshot(s) : settle(s);
	if (!err && s->c.transport == RC_TRANSPORT_PERFBUF && s->c.w && !s->user)
		err = write_lost_ledger(s);
	if (s->user && rc_user__mismatched(s->user))
		pr_warn("%llu records were not the size of struct %s: stored raw, as bytes\n",
			(unsigned long long)rc_user__mismatched(s->user), s->c.opts.event_type);
	err = err ?: push_stats(s);
	if (s->malformed)
		pr_warn("%llu malformed records from the ring were discarded\n",
			(unsigned long long)s->malformed);
	if (!s->c.w)
		return err;
	return rc_batcher__finish(&s->bt, err);
}

static void bpf_teardown(struct rc_capture *c)
{
	struct rc_bpf *s = to_bpf(c);

	if (s->attached)
		detach_sources(s);
	rc_batcher__destroy(&s->bt);
	rc_ringbuf__destroy(&s->rb);
	rc_perfbuf__destroy(&s->pb);
	rc_perfbuf__destroy(&s->nb);
	rc_snapshot__free(&s->snap);
	syscalls_bpf__destroy(s->sys);
	sched_bpf__destroy(s->sched);
	follow_bpf__destroy(s->follow);
	rc_user__free(s->user);
	dyn_bpf__destroy(s->dyn);
	free(s->dcaptured);
	free(s->dpercpu);
	free(s->ulost);
	free(s->ddropped);
	if (s->events_fd >= 0)
		close(s->events_fd);
	if (s->targets_fd >= 0)
		close(s->targets_fd);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	if (s->notify_fd >= 0)
		close(s->notify_fd);
	free(s->captured);
	free(s->percpu);
}

static long bpf_snapshot_op(struct rc_capture *c, enum rc_snapshot_why why)
{
	return bpf_snapshot(to_bpf(c), why);
}

const struct rc_backend_ops rc_bpf_ops = {
	.name = "bpf",
	.add_target = bpf_add_target,
	.start = bpf_start,
	.read = bpf_read,
	.wait = bpf_wait,
	.push_stats = bpf_push_stats,
	.flush = bpf_flush,
	.drained = bpf_drained,
	.sample = bpf_sample,
	.snapshot = bpf_snapshot_op,
	.stop = bpf_stop,
	.teardown = bpf_teardown,
};
