// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend's attaching: which program of dyn.bpf.c records each
 * event described at record time (the raw syscall programs, a slot
 * program without attach cookies, a fixed-size reader), and attaching
 * and detaching every source's programs. Depends on no other file of the
 * backend; load.c (setup) and bpf.c (start) and open.c (teardown) call it.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "capture/bpf/bpf.h"
#include "capture/syscall_names.h"
#include "util/util.h"
#include "syscalls.skel.h"
#include "sched.skel.h"
#include "dyn.skel.h"
#include "profile.skel.h"
#include "offcpu.skel.h"

/* ---- which program records an event ----------------------------------- */

/*
 * Where a syscall event's format puts __syscall_nr, an int after the
 * common fields: 8, or 12 where they are 12 bytes (PREEMPT_RT's 6.1);
 * 0 for any other event (rc_tp_conf.nr_off).
 */
uint16_t rc_bpf__sc_nr_off(const struct rc_dyn_event *e)
{
	const uint16_t base = sizeof(struct rc_rec_hdr);
	const struct rc_field *f = e->tp.fields;

	if (e->kind != RC_DYN_TP || !e->tp.system || strcmp(e->tp.system, "syscalls") ||
	    !e->tp.nfields || strcmp(f[0].name, "__syscall_nr") || f[0].size != 4 ||
	    (f[0].offset != base + 8 && f[0].offset != base + 12))
		return 0;
	return f[0].offset - base;
}

/* Is @e's format the kernel's syscall event's: __syscall_nr, then @nargs longs from 16? */
static bool sc_format(const struct rc_dyn_event *e, uint16_t nargs, const char *arg0)
{
	const uint16_t base = sizeof(struct rc_rec_hdr);
	const struct rc_field *f = e->tp.fields;
	uint16_t i, nr_off = rc_bpf__sc_nr_off(e);

	/* the fixed part ends at its last field: __syscall_nr's end, alone */
	if (!nr_off || e->tp.nlocs || e->tp.size != (nargs ? 16u + 8u * nargs : nr_off + 4u) ||
	    e->tp.nfields != 1u + nargs)
		return false;
	if (arg0 && strcmp(f[1].name, arg0))
		return false;
	for (i = 1; i <= nargs; i++)
		if (f[i].offset != base + 16u + 8u * (i - 1u) || f[i].size != 8)
			return false;
	return true;
}

/*
 * The scevents key of tracepoint event @e (RC_SC_NR_MAX), when dyn.bpf.c
 * records it from the raw sys_enter or sys_exit tracepoint; else -1. Its
 * syscall number comes from the C library's table of this architecture
 * (capture/syscall_names.h), as perf trace takes it from the kernel's: a
 * name the table spells otherwise than the kernel's event (newfstat,
 * whose number is fstat's) is not found, and that event goes through its
 * own tracepoint.
 */
int rc_bpf__sc_key(const struct rc_bpf *s, const struct rc_dyn_event *e)
{
	const char *name = e->tp.name, *call;
	bool exit;
	unsigned int i;

	if (e->kind != RC_DYN_TP || !s->feat.tp_btf || s->sc_refused || !e->tp.system ||
	    strcmp(e->tp.system, "syscalls"))
		return -1;
	if (!strncmp(name, "sys_enter_", 10))
		exit = false;
	else if (!strncmp(name, "sys_exit_", 9))
		exit = true;
	else
		return -1;
	call = name + (exit ? 9 : 10);
	if (exit ? !sc_format(e, 1, "ret") : e->tp.nfields > 7 || !sc_format(e, e->tp.nfields - 1, NULL))
		return -1;
	for (i = 0; i < rc_syscall_names_cnt; i++)
		if (!strcmp(rc_syscall_names[i].name, call))
			break;
	if (i == rc_syscall_names_cnt || rc_syscall_names[i].nr < 0 ||
	    rc_syscall_names[i].nr >= RC_SC_NR_MAX)
		return -1;
	return rc_syscall_names[i].nr * 2 + exit;
}

int rc_bpf__slot(const struct rc_bpf *s, const struct rc_dyn_event *e)
{
	const struct rc_dyn_event *ev = s->c.dset.ev;
	int base, n = 0;
	size_t i;

	if (s->feat.attach_cookie ||
	    (e->kind != RC_DYN_TP && e->kind != RC_DYN_UPROBE && e->kind != RC_DYN_URETPROBE) ||
	    (e->kind == RC_DYN_TP && rc_bpf__sc_key(s, e) >= 0))
		return -1;
	for (i = 0; &ev[i] != e && i < s->c.dset.n; i++)
		n += ev[i].kind == e->kind &&
		     (e->kind != RC_DYN_TP || rc_bpf__sc_key(s, &ev[i]) < 0);
	base = e->kind == RC_DYN_TP	  ? 0
	       : e->kind == RC_DYN_UPROBE ? RC_SLOT_UPROBE
					  : RC_SLOT_URETPROBE;
	return base + n;
}

/* The slot program of slot @slot. */
static struct bpf_program *slot_prog(const struct rc_bpf *s, int slot)
{
	char name[48];

	if (slot < 0 || slot >= RC_SLOTS)
		return NULL; /* never: check_slots() refused so many */
	if (slot < RC_SLOT_UPROBE)
		snprintf(name, sizeof(name), "handle_tp_slot_%d", slot);
	else if (slot < RC_SLOT_URETPROBE)
		snprintf(name, sizeof(name), "handle_uprobe_slot_%d", slot - RC_SLOT_UPROBE);
	else
		snprintf(name, sizeof(name), "handle_uretprobe_slot_%d", slot - RC_SLOT_URETPROBE);
	return bpf_object__find_program_by_name(s->dyn->obj, name);
}

/*
 * The program tracepoint event @e is recorded with: handle_sc_enter or
 * handle_sc_exit for a syscall event they can record (rc_bpf__sc_key());
 * without attach cookies, its own slot program; handle_tp_N for a record
 * of N bytes without __data_loc fields, where dyn.bpf.c has one (N a
 * multiple of 4, up to RC_TP_FIXED_MAX), which reads it with plain loads;
 * else handle_tp.
 */
struct bpf_program *rc_bpf__tp_prog(const struct rc_bpf *s, const struct rc_dyn_event *e)
{
	struct bpf_program *p = NULL;
	char name[32];
	int key = rc_bpf__sc_key(s, e), slot = rc_bpf__slot(s, e);

	if (key >= 0)
		return key % 2 ? s->dyn->progs.handle_sc_exit : s->dyn->progs.handle_sc_enter;
	if (slot >= 0)
		return slot_prog(s, slot);
	if (!e->tp.nlocs && e->tp.size >= 8 && e->tp.size <= RC_TP_FIXED_MAX && !(e->tp.size % 4)) {
		snprintf(name, sizeof(name), "handle_tp_%u", (unsigned int)e->tp.size);
		p = bpf_object__find_program_by_name(s->dyn->obj, name);
	}
	return p ?: s->dyn->progs.handle_tp;
}

struct bpf_program *rc_bpf__probe_prog(const struct rc_bpf *s, const struct rc_dyn_event *e)
{
	int slot = rc_bpf__slot(s, e);

	if (slot >= 0)
		return slot_prog(s, slot);
	return e->kind == RC_DYN_UPROBE ? s->dyn->progs.handle_uprobe
					: s->dyn->progs.handle_uretprobe;
}

/* ---- attaching -------------------------------------------------------- */

/*
 * Tracepoint @e with its program (rc_bpf__tp_prog()). A handle_tp_N reads
 * the record up to the end of its last field as the format file gives
 * it; should the kernel place that end elsewhere, it refuses the program
 * (EACCES), and handle_tp, which reads with a helper, records the event.
 */
static struct bpf_link *attach_tp(struct rc_bpf *s, struct rc_dyn_event *e)
{
	/* without cookies (rc_bpf__slot()), libbpf must be given none */
	LIBBPF_OPTS(bpf_tracepoint_opts, to, .bpf_cookie = s->feat.attach_cookie ? e->id : 0);
	struct bpf_program *p = rc_bpf__tp_prog(s, e);
	struct bpf_link *l;

	e->prog = p;
	l = bpf_program__attach_tracepoint_opts(p, e->tp.system, e->tp.name, &to);
	if (l || errno != EACCES || p == s->dyn->progs.handle_tp || !s->feat.attach_cookie)
		return l;
	pr_debug("%s: %s refused, recorded with handle_tp\n", e->name, bpf_program__name(p));
	e->prog = s->dyn->progs.handle_tp;
	return bpf_program__attach_tracepoint_opts(e->prog, e->tp.system, e->tp.name, &to);
}

/*
 * A syscall event recorded from the raw sys_enter or sys_exit tracepoint
 * (rc_bpf__sc_key()): one program serves every syscall of its direction,
 * attached once, its link held by the first event it serves. Returns
 * false when an earlier event holds it.
 */
static bool attach_sc(struct rc_bpf *s, size_t i)
{
	struct rc_dyn_event *e = &s->c.dset.ev[i];
	size_t k;

	e->prog = rc_bpf__tp_prog(s, e);
	for (k = 0; k < i; k++)
		if (s->c.dset.ev[k].prog == e->prog && s->c.dset.ev[k].link)
			return false;
	e->link = bpf_program__attach((struct bpf_program *)e->prog);
	if (e->link)
		pr_debug("%s and every syscall event of its direction: %s, on the raw tracepoint\n",
			 e->name, bpf_program__name(e->prog));
	return true;
}

static int attach_dyn(struct rc_bpf *s)
{
	size_t i;

	for (i = 0; i < s->c.dset.n; i++) {
		struct rc_dyn_event *e = &s->c.dset.ev[i];
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = s->feat.attach_cookie ? e->id : 0,
			    .func_name = e->symbol, .retprobe = e->kind == RC_DYN_URETPROBE);

		if (rc_bpf__sc_key(s, e) >= 0) {
			if (!attach_sc(s, i))
				continue;
		} else if (e->kind == RC_DYN_TP) {
			e->link = attach_tp(s, e);
		} else {
			e->prog = rc_bpf__probe_prog(s, e);
			e->link = bpf_program__attach_uprobe_opts(e->prog, -1, e->path, 0, &uo);
		}
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

int rc_bpf__attach(struct rc_bpf *s)
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
	if (!err && s->prof)
		err = rc_sampler__attach(&s->sampler, s->prof->progs.handle_sample);
	if (!err && s->offcpu)
		err = offcpu_bpf__attach(s->offcpu);
	/* last: on a shared tracepoint, the sources see a target before it is forgotten */
	if (!err && s->fw.fork) {
		s->fw.fork_link = bpf_program__attach(s->fw.fork);
		s->fw.exit_link = s->fw.fork_link ? bpf_program__attach(s->fw.exit) : NULL;
		if (!s->fw.exit_link)
			err = -errno;
	}
	if (err)
		pr_warn("failed to attach BPF programs: %s\n", strerror(-err));
	return err;
}

void rc_bpf__detach(struct rc_bpf *s)
{
	rc_sampler__detach(&s->sampler);
	if (s->offcpu)
		offcpu_bpf__detach(s->offcpu);
	bpf_link__destroy(s->fw.fork_link);
	bpf_link__destroy(s->fw.exit_link);
	s->fw.fork_link = s->fw.exit_link = NULL;
	if (s->follow_compat && s->fw.unfollowed && *s->fw.unfollowed) {
		pr_warn("%llu children of targets were not followed: the map of followed "
			"processes, which kernels without BPF atomic and/or (Linux 5.12) "
			"need, was full (%u)\n",
			(unsigned long long)*s->fw.unfollowed,
			bpf_map__max_entries(s->fw.followed));
		*s->fw.unfollowed = 0; /* said once */
	}
	if (s->sched)
		sched_bpf__detach(s->sched);
	if (s->sys)
		syscalls_bpf__detach(s->sys);
	detach_dyn(s);
	if (s->user)
		rc_user__detach(s->user);
	s->attached = false;
}
