// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend's programs: each source's (chosen by what the kernel
 * has, lib/capture/features.c), given the maps every source shares,
 * opened and loaded; the events described at record time; --bpf objects.
 * Called by open.c; calls attach.c for the program each event takes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h> /* memfd_create() */
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture/bpf/bpf.h"
#include "format/schema_int.h"
#include "util/sysfs.h"
#include "util/util.h"
#include "syscalls.skel.h"
#include "sched.skel.h"
#include "follow.skel.h"
#include "dyn.skel.h"
#include "profile.skel.h"
#include "offcpu.skel.h"

/* Give @obj's maps of common.bpf.h the ones every source shares. */
static int share_maps(struct rc_bpf *s, struct bpf_object *obj)
{
	const struct {
		const char *name;
		int fd;
	} shared[] = {
		{ "events", s->events_fd }, { "targets", s->targets_fd }, { "stats", s->stats_fd },
		{ "notify", s->notify_fd }, { "reader", s->reader_fd },
		{ "stackbufs", s->stackbufs_fd }, { "stacknest", s->stacknest_fd },
		{ "rings", s->rings_fd },
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, shared[i].name);

		if (!m)
			return -ENOENT;
		err = bpf_map__reuse_fd(m, shared[i].fd);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The BTF an object's CO-RE relocations go against: a memfd that
 * core_write() fills, after the open, with the few kernel types the
 * object names (rc_kbtf__write_core()), so that libbpf 1.1 does not look
 * for candidates among all the kernel's types, 1.5 ms each type. NULL
 * (libbpf's own parse of the kernel's BTF) where the probe did not walk
 * it, or no memfd.
 */
static const char *core_path(struct rc_bpf *s)
{
	int fd;

	if (s->core_fd > 0)
		return s->core_path;
	if (!s->kbtf)
		return NULL;
	fd = memfd_create("ringcap-core-btf", MFD_CLOEXEC);
	if (fd <= 0) { /* fd 0 (stdin closed) would read as none in core_fd: not used */
		if (!fd)
			close(fd);
		rc_bpf__loaded(s);
		return NULL;
	}
	s->core_fd = fd;
	snprintf(s->core_path, sizeof(s->core_path), "/proc/self/fd/%d", fd);
	return s->core_path;
}

/*
 * Fill the file core_path() named for @obj, opened with it. Should the
 * subset fail, the kernel's whole BTF goes there: what libbpf would
 * have read itself.
 */
static int core_write(struct rc_bpf *s, struct bpf_object *obj)
{
	const struct btf *local = bpf_object__btf(obj);
	int err;

	if (s->core_fd <= 0)
		return 0;
	err = local ? rc_kbtf__write_core(s->kbtf, local, s->core_fd) : -ENOENT;
	if (err) {
		pr_debug("CO-RE against the kernel's whole BTF (%s)\n", strerror(-err));
		err = rc_kbtf__write_whole(s->kbtf, s->core_fd);
	}
	return err;
}

void rc_bpf__loaded(struct rc_bpf *s)
{
	rc_kbtf__free(s->kbtf);
	s->kbtf = NULL;
	if (s->core_fd > 0)
		close(s->core_fd);
	s->core_fd = 0;
}

/*
 * BTF tracepoint programs, SEC("rc_tp_btf/NAME"): libbpf's tp_btf, but
 * not the kernel's BTF parsed by libbpf. libbpf 1.1 parses all of it
 * (10 ms, a third of a short recording's CPU) for any object that loads
 * a tp_btf program, to find the type its tracepoint's programs load
 * against (btf_trace_NAME), and the probe's walk already knows that type
 * (rc_kbtf__trace_id()). This handler loads the same programs
 * (BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP) with that type.
 *
 * The type goes from tp_btf_targets() to tp_btf_prepare() in the
 * program's attach_prog_fd, which libbpf passes through untouched, and
 * whose being set is what tells libbpf (obj_needs_vmlinux_btf()) that a
 * tracing program needs no kernel BTF of its own; tp_btf_prepare() moves
 * it to attach_btf_id before the program is loaded. Without the walk,
 * libbpf finds the type, by its parse, as for a tp_btf program.
 */
#define TP_BTF_SEC "rc_tp_btf/"

static int tp_btf_prepare(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	if (opts->attach_prog_fd) {
		opts->attach_btf_id = opts->attach_prog_fd;
		opts->attach_prog_fd = 0;
	}
	if (!opts->attach_btf_id) { /* never: tp_btf_targets() saw every program that loads */
		pr_warn("BPF program %s: no BTF tracepoint type to load against\n",
			bpf_program__name(prog));
		return -ESRCH;
	}
	return 0;
}

static int tp_btf_attach(const struct bpf_program *prog, long cookie, struct bpf_link **link)
{
	*link = bpf_program__attach_trace(prog);
	return *link ? 0 : -errno;
}

static int tp_btf_handler;

static void tp_btf_register(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, ho, .prog_prepare_load_fn = tp_btf_prepare,
		    .prog_attach_fn = tp_btf_attach);

	tp_btf_handler =
	    libbpf_register_prog_handler(TP_BTF_SEC, BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, &ho);
}

/* The handler, registered once in the process, before any object is opened. */
static int tp_btf_ready(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, tp_btf_register);
	if (tp_btf_handler < 0)
		pr_warn("failed to register the BPF section handler %s: %s\n", TP_BTF_SEC,
			strerror(-tp_btf_handler));
	return tp_btf_handler < 0 ? tp_btf_handler : 0;
}

/* Each BTF tracepoint program of @obj that loads: its type, for tp_btf_prepare(). */
static int tp_btf_targets(struct rc_bpf *s, struct bpf_object *obj)
{
	const size_t pfx = strlen(TP_BTF_SEC);
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		const char *sec = bpf_program__section_name(p);
		int id, err;

		if (!bpf_program__autoload(p) || strncmp(sec, TP_BTF_SEC, pfx))
			continue;
		id = rc_kbtf__trace_id(s->kbtf, sec + pfx);
		err = id > 0 ? bpf_program__set_attach_target(p, id, NULL)
			     : bpf_program__set_attach_target(p, 0, sec + pfx);
		if (err)
			return err;
	}
	return 0;
}

/* Frames a stack takes a side: RC_STACK_MAX, or kernel.perf_event_max_stack when less. */
static __u32 max_stack(void)
{
	uint64_t v = RC_STACK_MAX;

	if (rc_sysfs__read_u64("/proc/sys/kernel/perf_event_max_stack", &v) || v > RC_STACK_MAX)
		v = RC_STACK_MAX;
	return v ? v : 1;
}

static struct rc_knobs make_knobs(const struct rc_record_opts *o, bool pcpu)
{
	struct rc_knobs k = {
		.self_tgid = getpid(),
		.filter_pids = o->npids > 0 || o->follow_forks,
		.filter_comm = o->comm && *o->comm,
		.wakeup_bytes = o->wakeup_bytes,
		.transport =
		    o->transport == RC_TRANSPORT_PERFBUF ? RC_KNOB_PERFBUF
		    : pcpu				 ? RC_KNOB_RINGBUF_PCPU
							 : RC_KNOB_RINGBUF,
		.snap_type = o->overwrite ? o->snap_type : 0,
		.snap_nr = o->snap_nr,
		.stacks = o->call_graph != RC_CALL_GRAPH_NONE
			      ? RC_KNOB_STACK_KERNEL | RC_KNOB_STACK_USER
			      : 0,
		.max_stack = max_stack(),
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

/*
 * Does @source load its compat programs on this kernel (rc_features__compat())?
 * Said at -v, with why.
 */
static bool use_compat(const struct rc_bpf *s, enum rc_feature_need what, const char *source)
{
	char why[256];

	if (!rc_features__compat(&s->feat, what, why, sizeof(why)))
		return false;
	pr_info("%s: the compat programs (%s)\n", source, why);
	return true;
}

static bool have_kind(const struct rc_dyn_set *d, enum rc_dyn_kind kind)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->ev[i].kind == kind)
			return true;
	return false;
}

/* Tell the tracepoint program about each tracepoint, at its index in dset. */
static int fill_tpconf(struct rc_bpf *s)
{
	int fd = bpf_map__fd(s->dyn->maps.tpconf);
	size_t i;

	for (i = 0; i < s->c.dset.n; i++) {
		const struct rc_dyn_event *e = &s->c.dset.ev[i];
		struct rc_tp_conf c = { .type = e->id,
					.fixed = e->tp.size,
					.nlocs = e->tp.nlocs,
					.ftrace_id = e->tp.id,
					.nr_off = rc_bpf__sc_nr_off(e) };
		__u32 key = e->id - RC_DYN_BASE;
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
		key = rc_bpf__sc_key(s, e);
		if ((int)key >= 0) {
			__u32 idx = e->id - RC_DYN_BASE + 1;

			if (bpf_map_update_elem(bpf_map__fd(s->dyn->maps.scevents), &key, &idx,
						BPF_ANY) < 0) {
				pr_warn("failed to configure tracepoint %s: %s\n", e->name,
					strerror(errno));
				return -errno;
			}
		}
	}
	return 0;
}

/* How many slots of @kind the events take (rc_bpf__slot()). */
static int slots_taken(const struct rc_bpf *s, enum rc_dyn_kind kind)
{
	int n = 0;
	size_t i;

	for (i = 0; i < s->c.dset.n; i++)
		n += s->c.dset.ev[i].kind == kind && rc_bpf__slot(s, &s->c.dset.ev[i]) >= 0;
	return n;
}

/* libbpf 1.1 takes no NULL here */
static void set_autoload(struct bpf_program *p)
{
	if (p)
		bpf_program__set_autoload(p, true);
}

/* Is any event a tracepoint of its own, not one the raw syscall programs serve? */
static bool have_plain_tp(const struct rc_bpf *s)
{
	size_t i;

	for (i = 0; i < s->c.dset.n; i++)
		if (s->c.dset.ev[i].kind == RC_DYN_TP && rc_bpf__sc_key(s, &s->c.dset.ev[i]) < 0)
			return true;
	return false;
}

/*
 * The programs the events need; handle_tp too where cookies let it serve
 * as attach_dyn()'s fallback for a tracepoint of its own (syscall events
 * on the raw programs never fall back).
 */
static void dyn_autoload(struct rc_bpf *s)
{
	struct dyn_bpf *d = s->dyn;
	struct bpf_program *p;
	size_t i;

	bpf_object__for_each_program(p, d->obj)
		bpf_program__set_autoload(p, false);
	if (s->feat.attach_cookie)
		bpf_program__set_autoload(d->progs.handle_tp, have_plain_tp(s));
	for (i = 0; i < s->c.dset.n; i++) {
		const struct rc_dyn_event *e = &s->c.dset.ev[i];

		if (e->kind == RC_DYN_TP)
			set_autoload(rc_bpf__tp_prog(s, e));
		else if (e->kind == RC_DYN_UPROBE || e->kind == RC_DYN_URETPROBE)
			set_autoload(rc_bpf__probe_prog(s, e));
	}
}

/* Without attach cookies: each slot program's event, in the slots map. */
static int fill_slots(struct rc_bpf *s)
{
	int fd = bpf_map__fd(s->dyn->maps.slots);
	size_t i;

	for (i = 0; i < s->c.dset.n; i++) {
		const struct rc_dyn_event *e = &s->c.dset.ev[i];
		int slot = rc_bpf__slot(s, e);
		__u32 key = slot, idx = e->id - RC_DYN_BASE + 1;

		if (slot < 0)
			continue;
		if (bpf_map_update_elem(fd, &key, &idx, BPF_ANY) < 0) {
			pr_warn("failed to configure %s: %s\n", e->name, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/*
 * Without attach cookies each tracepoint and probe takes a program of its
 * own, and dyn.bpf.c has so many: refuse more in one line.
 */
static int check_slots(const struct rc_bpf *s)
{
	static const struct {
		enum rc_dyn_kind kind;
		int max;
		const char *what;
	} caps[] = {
		{ RC_DYN_TP, RC_SLOTS_TP, "tracepoints (-e SYSTEM:NAME, syscall events aside)" },
		{ RC_DYN_UPROBE, RC_SLOTS_PROBE, "uprobes" },
		{ RC_DYN_URETPROBE, RC_SLOTS_PROBE, "uretprobes" },
	};
	size_t i;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		int n = slots_taken(s, caps[i].kind);

		if (n <= caps[i].max)
			continue;
		pr_warn("this kernel (%s) has no BPF attach cookies (Linux 5.15), so each of "
			"the %d %s asked for needs a BPF program of its own, and ringcap has %d: "
			"ask for fewer, or use --transport ftrace for tracepoints\n",
			s->feat.release, n, caps[i].what, caps[i].max);
		return -E2BIG;
	}
	return 0;
}

/*
 * A compat program's hash map @m: @max entries, or environment variable
 * @var's number, a testing aid (a map that fills): RINGCAP_PENDING_MAX
 * for syscalls' calls in progress, RINGCAP_FOLLOW_MAX for follow's
 * processes.
 */
static int compat_map_max(const char *var, unsigned long max, __u32 *n)
{
	const char *env = getenv(var);
	unsigned long v;
	char *end;

	*n = 0;
	if (!env)
		return 0;
	errno = 0;
	v = strtoul(env, &end, 10);
	if (errno || end == env || *end || !v || v > max) {
		pr_warn("%s: '%s' is not a number from 1 to %lu\n", var, env, max);
		return -EINVAL;
	}
	*n = v;
	return 0;
}

static int size_compat_map(struct bpf_map *m, const char *var, unsigned long max)
{
	__u32 n;
	int err = compat_map_max(var, max, &n);

	return err ?: n ? bpf_map__set_max_entries(m, n) : 0;
}

/*
 * Following a command's children: may a source's object of compat flavour
 * @compat carry the follow programs (bpf/follow.bpf.h)? Only when they
 * are the flavour follow would load on its own; and not when this kernel
 * cannot run them, which open_follow() then says.
 */
static bool follow_here(struct rc_bpf *s, bool compat)
{
	if (!s->c.opts.follow_forks || s->fw.fork ||
	    rc_features__missing(&s->feat, RC_NEED_FOLLOW))
		return false;
	return compat == rc_features__compat(&s->feat, RC_NEED_FOLLOW, NULL, 0);
}

/*
 * The follow programs of @obj, whose followed map is @followed, loaded
 * (@load) or not; when loaded, they are the ones s->fw attaches.
 */
static int set_follow(struct rc_bpf *s, struct bpf_object *obj, struct bpf_map *followed,
		      bool load)
{
	struct bpf_program *fork = bpf_object__find_program_by_name(obj, "handle_follow_fork");
	struct bpf_program *ex = bpf_object__find_program_by_name(obj, "handle_follow_exit");
	struct bpf_program *gd = bpf_object__find_program_by_name(obj, "handle_follow_exit_gd");
	int err;

	if (!fork || !ex || !gd)
		return -ENOENT;
	bpf_program__set_autoload(fork, load);
	bpf_program__set_autoload(ex, load && !s->feat.exit_group_dead);
	bpf_program__set_autoload(gd, load && s->feat.exit_group_dead);
	/* the compat programs' map of followed processes (follow.bpf.h) */
	err = bpf_map__set_autocreate(followed, load && s->follow_compat);
	if (err || !load)
		return err;
	s->fw.fork = fork;
	s->fw.exit = s->feat.exit_group_dead ? gd : ex;
	s->fw.followed = followed;
	return s->follow_compat && s->follow_max ? bpf_map__set_max_entries(followed, s->follow_max)
						 : 0;
}

/*
 * The record paths of the raw syscall programs the events take
 * (events.h, RC_SC_PATH_*: an entry of n arguments is 16 + 8n bytes, or
 * its number's end alone; an exit 24): the verifier walks only these
 */
static __u32 sc_paths(const struct rc_bpf *s)
{
	__u32 paths = 0;
	size_t i;

	for (i = 0; i < s->c.dset.n; i++) {
		const struct rc_dyn_event *e = &s->c.dset.ev[i];
		int key = rc_bpf__sc_key(s, e);
		__u32 size = ((__u32)e->tp.size + 7) & ~7u;

		if (key < 0)
			continue;
		if (key & 1)
			paths |= RC_SC_PATH_EXIT;
		else if (size >= 16 && size <= 64)
			paths |= RC_SC_PATH_ENTER((size - 16) / 8);
	}
	return paths;
}

static int load_dyn(struct rc_bpf *s, const struct rc_knobs *k)
{
	bool compat = use_compat(s, RC_NEED_TRACEPOINTS, "-e SYSTEM:NAME, -e uprobe:");
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = core_path(s));
	struct dyn_bpf *d = compat ? rc_bpf__open_compat_dyn(&oo) : dyn_bpf__open_opts(&oo);
	bool follow = follow_here(s, compat);
	int err;

	if (!d)
		return -errno;
	s->dyn = d;
	d->rodata->knobs = *k;
	d->rodata->sc_paths = sc_paths(s);
	dyn_autoload(s);
	/*
	 * The events' configs and counters, one each (an event's index, its
	 * id - RC_DYN_BASE, is below dset.n), not RC_DYN_MAX: each element of
	 * a per-CPU array is an allocation of its own, and 1024 of them were
	 * a fortieth of a short recording's CPU, allocated and freed.
	 */
	err = bpf_map__set_max_entries(d->maps.dstats, s->c.dset.n);
	err = err ?: bpf_map__set_max_entries(d->maps.tpconf, s->c.dset.n);
	err = err ?: set_follow(s, d->obj, d->maps.followed, follow);
	err = err ?: core_write(s, d->obj);
	err = err ?: share_maps(s, d->obj);
	err = err ?: tp_btf_targets(s, d->obj);
	err = err ?: dyn_bpf__load(d);
	if (!err && follow)
		s->fw.unfollowed = &d->bss->unfollowed;
	if (err && follow)
		memset(&s->fw, 0, sizeof(s->fw)); /* a retry, or follow's own object, decides */
	return err;
}

/* Does any event go through the raw syscall programs (rc_bpf__sc_key())? */
static bool have_sc(const struct rc_bpf *s)
{
	size_t i;

	for (i = 0; i < s->c.dset.n; i++)
		if (rc_bpf__sc_key(s, &s->c.dset.ev[i]) >= 0)
			return true;
	return false;
}

static int open_dyn(struct rc_bpf *s, const struct rc_knobs *k)
{
	int err;

	if (have_kind(&s->c.dset, RC_DYN_TP) &&
	    (err = need(s, RC_NEED_TRACEPOINTS, "-e SYSTEM:NAME")))
		return err;
	if ((have_kind(&s->c.dset, RC_DYN_UPROBE) || have_kind(&s->c.dset, RC_DYN_URETPROBE)) &&
	    (err = need(s, RC_NEED_UPROBES, "-e uprobe:")))
		return err;
	if ((err = check_slots(s)))
		return err;
	err = load_dyn(s, k);
	if (err && !s->sc_refused && have_sc(s)) {
		/* the raw syscall programs refused: every event on its own tracepoint */
		pr_info("the raw sys_enter/sys_exit programs did not load (%s): syscall events "
			"go through their own tracepoints\n", strerror(-err));
		dyn_bpf__destroy(s->dyn);
		s->dyn = NULL;
		s->sc_refused = true;
		/* the syscall events now take tracepoint slots too, where there are no cookies */
		err = check_slots(s) ?: load_dyn(s, k);
		if (err == -E2BIG)
			return err;
	}
	if (err)
		return load_failed("tracepoint and uprobe", err);
	return fill_tpconf(s) ?: fill_slots(s);
}

/* --bpf: a record of the user's, wrapped. */
static int user_put(void *ctx, const void *rec, size_t len)
{
	struct rc_bpf *s = ctx;
	int err = rc_batcher__put(&s->bt, rec, len);

	if (!err)
		rc_bpf__count_captured(s, rec);
	return err;
}

/* --bpf, a perf event array: the kernel's count of what it could not write, as a record. */
static int user_lost(void *ctx, uint32_t cpu, uint64_t n, uint64_t ts, uint32_t flags)
{
	struct rc_bpf *s = ctx;
	struct rc_rec_lost l = {
		.hdr = { .ts = ts, .type = RC_REC_LOST, .size = sizeof(l), .cpu = cpu },
		.lost = n,
		.flags = flags,
	};

	if (cpu >= (uint32_t)s->c.ncpus)
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
				   /* -m asked for the perf buffer: its size, else the default */
				   .perf_size = s->c.opts.transport == RC_TRANSPORT_PERFBUF
						    ? s->c.opts.ringbuf_size
						    : 0,
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
	/* a syscall's args as many as it takes: read by report and export */
	if (!err && (s->c.opts.events & RC_EVENT_BIT(RC_EV_SYSCALL)))
		err = rc_builtin__add_syscall_nargs(s->c.schema);
	return err;
}

/* Find the events -e names beyond the built-in ones, and describe them. */
int rc_bpf__describe(struct rc_bpf *s)
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
	if (!s->c.opts.events && !s->c.dset.n && !s->aux.nev) {
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
	s->dpaused = calloc((size_t)s->c.ncpus * n, sizeof(*s->dpaused));
	s->dpre = calloc((size_t)s->c.ncpus * n, sizeof(*s->dpre));
	/* one entry per CPU and event, and one per event for all CPUs (missed) */
	s->nentries_max =
	    (size_t)(s->c.ncpus + 1) * (RC_EV_MAX + s->c.dset.n) + rc_auxsrc__max_entries(&s->aux);
	s->c.last.entries = calloc(s->nentries_max, sizeof(*s->c.last.entries));
	if (!s->dcaptured || !s->dpercpu || !s->ulost || !s->ddropped || !s->dpaused || !s->dpre ||
	    !s->c.last.entries)
		return -ENOMEM;
	return 0;
}

static int open_syscalls(struct rc_bpf *s, const struct rc_knobs *k)
{
	int err = need(s, RC_NEED_SYSCALLS, "-e syscalls");
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	bool compat;

	if (err)
		return err;
	compat = use_compat(s, RC_NEED_SYSCALLS, "-e syscalls");
	oo.btf_custom_path = core_path(s);
	s->sys = compat ? rc_bpf__open_compat_syscalls(&oo) : syscalls_bpf__open_opts(&oo);
	if (!s->sys)
		return load_failed("syscalls", -errno);
	s->sys->rodata->knobs = *k;
	if (compat &&
	    (err = size_compat_map(s->sys->maps.pending, "RINGCAP_PENDING_MAX", RC_PENDING_MAX)))
		return err;
	err = core_write(s, s->sys->obj);
	err = err ?: share_maps(s, s->sys->obj);
	err = err ?: tp_btf_targets(s, s->sys->obj);
	err = err ?: syscalls_bpf__load(s->sys);
	return err ? load_failed("syscalls", err) : 0;
}

/* The sched programs of the events asked for, sched_process_exit's as the kernel has it. */
static int open_sched(struct rc_bpf *s, const struct rc_knobs *k, uint32_t ev)
{
	bool exit = ev & RC_EVENT_BIT(RC_EV_SCHED_EXIT);
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	struct sched_bpf *sk;
	int err;

	err = need(s, RC_NEED_SCHED, "-e sched");
	if (err)
		return err;
	oo.btf_custom_path = core_path(s);
	sk = use_compat(s, RC_NEED_SCHED, "-e sched") ? rc_bpf__open_compat_sched(&oo)
						      : sched_bpf__open_opts(&oo);
	if (!sk)
		return load_failed("sched", -errno);
	s->sched = sk;
	sk->rodata->knobs = *k;
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
				  exit && !s->feat.exit_group_dead);
	bpf_program__set_autoload(sk->progs.handle_sched_process_exit_gd,
				  exit && s->feat.exit_group_dead);
	err = core_write(s, sk->obj);
	err = err ?: share_maps(s, sk->obj);
	err = err ?: tp_btf_targets(s, sk->obj);
	err = err ?: sched_bpf__load(sk);
	return err ? load_failed("sched", err) : 0;
}

static int open_follow(struct rc_bpf *s, const struct rc_knobs *k)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	int err;

	if (s->fw.fork) {
		pr_debug("following a command's children: the programs of a source's object\n");
		return 0;
	}
	err = need(s, RC_NEED_FOLLOW, "following a command's children");
	if (err)
		return err;
	oo.btf_custom_path = core_path(s);
	s->follow = s->follow_compat ? rc_bpf__open_compat_follow(&oo) : follow_bpf__open_opts(&oo);
	if (!s->follow)
		return load_failed("follow", -errno);
	s->follow->rodata->knobs = *k;
	err = set_follow(s, s->follow->obj, s->follow->maps.followed, true);
	if (err)
		return load_failed("follow", err);
	err = core_write(s, s->follow->obj);
	err = err ?: share_maps(s, s->follow->obj);
	err = err ?: tp_btf_targets(s, s->follow->obj);
	err = err ?: follow_bpf__load(s->follow);
	if (err) {
		memset(&s->fw, 0, sizeof(s->fw));
		return load_failed("follow", err);
	}
	s->fw.unfollowed = &s->follow->bss->unfollowed;
	return 0;
}

/* The stacks of samples and off-CPU records: taken off and named on the writer's thread. */
static int need_stacks(struct rc_bpf *s)
{
	if (s->c.stacks)
		return 0;
	s->c.stacks = rc_stacks__new();
	if (!s->c.stacks)
		return -errno;
	rc_stacks__set_lines(s->c.stacks, s->c.opts.srclines);
	return 0;
}

/*
 * Stacks: perf's side-band records, so that the mappings of processes
 * that live shorter than a batch, and what processes dlopen(), are known.
 * Without them, mappings come from /proc alone, as the first stack of each
 * process finds them: said once.
 */
static void open_sideband(struct rc_bpf *s)
{
	s->sb = rc_sideband__open(s->c.ncpus);
	if (!s->sb)
		pr_warn(
		    "mappings are read from /proc alone: a process gone before its first "
		    "stack is named will have [unknown] frames (perf's side-band records: %s)\n",
		    strerror(errno));
}

/* record -F / -c: the sampling program, and a perf event a CPU to run it */
static int open_profile(struct rc_bpf *s, const struct rc_knobs *k)
{
	bool compat = use_compat(s, RC_NEED_PROFILE, "sampling");
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	int err;

	/* refused before anything is opened: one line */
	if (s->c.opts.call_graph == RC_CALL_GRAPH_DWARF && !s->feat.task_pt_regs) {
		pr_warn("--call-graph dwarf needs the BPF helper bpf_task_pt_regs in "
			"perf_event programs (Linux 5.15): use --call-graph fp\n");
		return -EOPNOTSUPP;
	}
	/* profile.bpf.c's compat program: bpf_task_pt_regs() wants a BTF pointer */
	if (s->c.opts.call_graph == RC_CALL_GRAPH_DWARF && compat) {
		pr_warn("--call-graph dwarf needs the BPF helper bpf_get_current_task_btf "
			"(Linux 5.11): use --call-graph fp\n");
		return -EOPNOTSUPP;
	}
	err = rc_sampler__open(&s->sampler, s->c.ncpus, s->c.opts.sample_freq,
			       s->c.opts.sample_period);
	if (err)
		return err;
	/* the event sampled, in the header: cycles, or cpu-clock without a PMU */
	err = rc_dyn__note(&s->c.dset, 0, "sampling", s->sampler.event, strlen(s->sampler.event));
	if (err)
		return err;
	err = need_stacks(s); /* a sample without -g is a stack of its one instruction */
	if (err)
		return err;
	oo.btf_custom_path = core_path(s);
	s->prof = compat ? rc_bpf__open_compat_profile(&oo) : profile_bpf__open_opts(&oo);
	if (!s->prof)
		return load_failed("sampling", -errno);
	s->prof->rodata->knobs = *k;
	if (s->c.opts.call_graph == RC_CALL_GRAPH_DWARF) {
		uint32_t size = s->c.opts.ustack_size ?: RC_USTACK_DEFAULT;
		size_t rec;

		if (size % 8 || size > RC_USTACK_MAX) {
			pr_warn("invalid dwarf stack size %u: a multiple of 8, at most %u\n", size,
				RC_USTACK_MAX);
			return -EINVAL;
		}
		/*
		 * The largest record, in the BPF ring (its 8-byte header) or
		 * in a CPU's perf ring (perf's header, the raw size word):
		 * a ring that cannot hold one would drop every such sample.
		 */
		rec = sizeof(struct rc_ev_sample) + sizeof(struct rc_ustack) +
		      RC_STACK_MAX * sizeof(uint64_t) + size;
		rec = s->c.transport == RC_TRANSPORT_PERFBUF ? 8 + ((4 + rec + 7) & ~(size_t)7)
							     : (8 + rec + 7) & ~(size_t)7;
		if (s->ring_size < rec) {
			pr_warn("--call-graph dwarf,%u: a sample takes up to %zu bytes, more than "
				"the %s ring's %llu: use a larger ring (%s) or a smaller SIZE\n",
				size, rec,
				s->c.transport == RC_TRANSPORT_PERFBUF ? "CPU's perf" : "BPF",
				(unsigned long long)s->ring_size, s->c.transport == RC_TRANSPORT_PERFBUF ? "-m" : "--ringbuf-size");
			return -EINVAL;
		}
		/* a stack copy's buffer for each CPU (profile.bpf.c) */
		s->prof->rodata->ustack_size = size;
		err = bpf_map__set_max_entries(s->prof->maps.ustackbuf, s->c.ncpus);
		if (err)
			return load_failed("sampling", err);
	}
	err = core_write(s, s->prof->obj);
	err = err ?: share_maps(s, s->prof->obj);
	err = err ?: profile_bpf__load(s->prof);
	return err ? load_failed("sampling", err) : 0;
}

/* record --off-cpu: time blocked, and where, from sched_switch */
static int open_offcpu(struct rc_bpf *s, const struct rc_knobs *k)
{
	int err = need(s, RC_NEED_OFFCPU, "--off-cpu");
	LIBBPF_OPTS(bpf_object_open_opts, oo);

	err = err ?: need_stacks(s);
	if (err)
		return err;
	oo.btf_custom_path = core_path(s);
	s->offcpu = use_compat(s, RC_NEED_OFFCPU, "--off-cpu") ? rc_bpf__open_compat_offcpu(&oo)
							       : offcpu_bpf__open_opts(&oo);
	if (!s->offcpu)
		return load_failed("off-CPU", -errno);
	s->offcpu->rodata->knobs = *k;
	err = core_write(s, s->offcpu->obj);
	err = err ?: share_maps(s, s->offcpu->obj);
	err = err ?: tp_btf_targets(s, s->offcpu->obj);
	err = err ?: offcpu_bpf__load(s->offcpu);
	return err ? load_failed("off-CPU", err) : 0;
}

int rc_bpf__load_sources(struct rc_bpf *s)
{
	uint32_t ev = s->c.opts.events;
	struct rc_knobs k = make_knobs(&s->c.opts, s->nrings > 1);
	int err = tp_btf_ready();

	if (err)
		return err;
	/* said once, here: the sources that carry follow's programs load this flavour */
	if (s->c.opts.follow_forks && !rc_features__missing(&s->feat, RC_NEED_FOLLOW)) {
		s->follow_compat = use_compat(s, RC_NEED_FOLLOW, "following a command's children");
		if (s->follow_compat &&
		    (err = compat_map_max("RINGCAP_FOLLOW_MAX", RC_FOLLOW_MAX, &s->follow_max)))
			return err;
	}
	if (ev & RC_EVENT_BIT(RC_EV_SYSCALL))
		err = open_syscalls(s, &k);
	if (!err && (ev & RC_SCHED_EVENTS))
		err = open_sched(s, &k, ev);
	if (!err && s->c.dset.n)
		err = open_dyn(s, &k);
	if (!err && (ev & RC_EVENT_BIT(RC_EV_SAMPLE)))
		err = open_profile(s, &k);
	if (!err && (ev & RC_EVENT_BIT(RC_EV_OFFCPU)))
		err = open_offcpu(s, &k);
	if (!err && s->c.opts.follow_forks)
		err = open_follow(s, &k);
	rc_bpf__loaded(s); /* every object: the kernel's BTF no longer needed */
	/* after every program is loaded, so that ours are among the kernel's symbols */
	if (!err && k.stacks)
		err = need_stacks(s); /* -g: the events' stack records */
	if (!err && s->c.stacks) {
		rc_stacks__load_kernel(s->c.stacks); /* failing, frames go unnamed: said */
		open_sideband(s);
		/* read often, so that the writer meets a process while it lives (bpf.h) */
		if (!s->c.opts.wakeup_ms) {
			s->c.opts.wakeup_ms = RC_STACKS_WAKEUP_MS;
			if (!s->c.opts.flush_ms)
				s->c.opts.flush_ms = 1000; /* chunks as often as before */
		}
	}
	return err;
}
