// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend: the sources' programs write into one shared ring (a
 * BPF ring buffer, or a perf ring per CPU); the drain reads it into
 * batches (capture/batch.h) through a table of ring operations, and the
 * flight recorder takes snapshots of the perf rings. Setup is in load.c,
 * the counters in counters.c.
 */
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture/bpf/bpf.h"
#include "syscalls.skel.h"
#include "sched.skel.h"
#include "follow.skel.h"
#include "dyn.skel.h"
#include "profile.skel.h"
#include "offcpu.skel.h"
#include "decode/filter.h"
#include "format/stats.h"
#include "util/util.h"

_Static_assert(sizeof(struct rc_rec_hdr) == sizeof(struct rc_rec_hdr), "record header");
_Static_assert(offsetof(struct rc_rec_hdr, comm) == offsetof(struct rc_rec_hdr, comm), "comm");
_Static_assert(RC_DYN_BASE == RC_FIRST_DYN_ID, "dynamic event ids");
_Static_assert(RC_EV_SAMPLE == RC_SAMPLE_ID, "the sample event's id");
_Static_assert(RC_EV_OFFCPU == RC_OFFCPU_ID, "the offcpu event's id");
_Static_assert(RC_EV_STACK == RC_STACK_ID, "the stack event's id");

/* ---- draining --------------------------------------------------------- */

/* Is this a record a BPF program of ours made? Counts it malformed if not. */
static bool check_record(void *ctx, const void *rec, uint32_t len)
{
	struct rc_bpf *s = ctx;
	struct rc_rec_hdr h;

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

void rc_bpf__count_captured(struct rc_bpf *s, const void *rec)
{
	struct rc_rec_hdr h;

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
	rc_bpf__count_captured(ctx, rec);
	return true;
}

/* ---- the rings: the BPF ring buffer, perf rings, libbpf's for --bpf ---- */

static long bpf_snapshot(struct rc_bpf *s, enum rc_snapshot_why reason);

static size_t ringbuf_pending(const struct rc_bpf *s, bool sum)
{
	(void)sum; /* one ring */
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

static size_t perfbuf_pending(const struct rc_bpf *s, bool sum)
{
	return rc_perfbuf__pending(&s->pb, sum);
}

/* merged across the CPUs' rings, up to @until */
/*
 * The perf rings' records are checked when the merge peeks at them, and
 * counted as captured once taken into the batch, not before: a record
 * peeked and held back (newer than the merge may take yet) is not counted
 * in counters taken meanwhile, so that a file switched there holds exactly
 * the records its counters count.
 */
static long perfbuf_read(struct rc_bpf *s, uint64_t until)
{
	size_t pos = s->bt.cur->len;
	long n = rc_perfbuf__read(&s->pb, s->bt.cur->buf, RC_BATCH_SIZE, &s->bt.cur->len, until,
				  check_record, s);
	struct rc_rec_hdr h;

	while (pos + sizeof(h) <= s->bt.cur->len) {
		memcpy(&h, s->bt.cur->buf + pos, sizeof(h));
		if (h.size < sizeof(h))
			break; /* never: the records were checked */
		if (h.type != RC_REC_LOST)
			rc_bpf__count_captured(s, s->bt.cur->buf + pos);
		pos += h.size;
	}
	return n;
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

static size_t user_pending(const struct rc_bpf *s, bool sum)
{
	return rc_user__pending(s->user, sum);
}

static long user_read(struct rc_bpf *s, uint64_t until)
{
	return rc_user__consume(s->user, until);
}

static int user_wait(struct rc_bpf *s, int ms)
{
	return rc_user__poll(s->user, ms);
}

static const struct ring_ops ringbuf_ops = { ringbuf_pending, ringbuf_read, ringbuf_wait };
static const struct ring_ops perfbuf_ops = { perfbuf_pending, perfbuf_read, perfbuf_wait };
static const struct ring_ops user_ops = { user_pending, user_read, user_wait };

const struct ring_ops *rc_bpf__pick_ring(const struct rc_bpf *s)
{
	if (s->user)
		return &user_ops;
	return s->c.transport == RC_TRANSPORT_PERFBUF ? &perfbuf_ops : &ringbuf_ops;
}

/*
 * What the rings hold still, all of them, and the batch being filled:
 * written too before a stop (--max-size, --min-free).
 */
static void note_pending(struct rc_bpf *s)
{
	if (s->c.opts.max_size || s->c.opts.min_free)
		s->c.ring_pending = s->ring->pending(s, true) + s->bt.cur->len;
}

/*
 * Read everything committed, batch by batch. perf rings: only records
 * older than RC_PERF_HOLD_NS unless @all, so that one still in flight on
 * another CPU (its time taken, not yet in its ring) is merged in its
 * place; and none newer than now, so that rings filling faster than they
 * are read still let the drain loop see its clock, its deadline, a stop.
 * A signal's switch or a cap's stop is not left waiting behind a full
 * ring's read: the read returns after its batch.
 */

static long read_ring(struct rc_bpf *s, bool all)
{
	size_t pending = s->ring->pending(s, false);
	uint64_t until = all ? UINT64_MAX : rc_now_ns(CLOCK_BOOTTIME);
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
			note_pending(s);
			err = rc_capture__batch_caps(&s->c, &rc_bpf_ops);
			if (err)
				return err;
		}
		n = s->ring->read(s, until);
		total += n;
	} while (RC_BATCH_SIZE - s->bt.cur->len < BATCH_ROOM && !rc_capture__cut_read(&s->c));
	return total;
}

_Static_assert((int)RC_SNAPSHOT_SIGNAL == (int)RC_SNAP_SIGNAL &&
		   (int)RC_SNAPSHOT_EXIT == (int)RC_SNAP_EXIT &&
		   (int)RC_SNAPSHOT_EVENT == (int)RC_SNAP_EVENT,
	       "snapshot reasons");

static int hold_stats(void *ctx)
{
	return rc_bpf__hold_stats(ctx);
}

/* Each CPU's and event's dropped count now: into @to, and dset's into @dto. */
static int read_dropped(struct rc_bpf *s, uint64_t (*to)[RC_EV_SLOTS], uint64_t *dto)
{
	__u32 zero = 0, i;
	int cpu, t;

	if (bpf_map_lookup_elem(s->stats_fd, &zero, s->percpu) < 0)
		return -errno;
	for (cpu = 0; cpu < s->c.ncpus; cpu++)
		for (t = 1; t < RC_EV_MAX; t++)
			to[cpu][t] = s->percpu[cpu].dropped[t];
	for (i = 0; s->dyn && i < s->c.dset.n; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(s->dyn->maps.dstats), &i, s->dpercpu) < 0)
			return -errno;
		for (cpu = 0; cpu < s->c.ncpus; cpu++)
			dto[(size_t)cpu * s->c.dset.n + i] = s->dpercpu[cpu].dropped;
	}
	return 0;
}

/* The count before the pause of the event of @e, or NULL when not counted here. */
static uint64_t *pre_of(struct rc_bpf *s, const struct rc_stat_entry *e)
{
	if (e->cpu >= (uint32_t)s->c.ncpus)
		return NULL;
	if (e->type > 0 && e->type < RC_EV_MAX)
		return &s->pre_dropped[e->cpu][e->type];
	if (s->dyn && e->type >= RC_DYN_BASE && e->type - RC_DYN_BASE < s->c.dset.n)
		return &s->dpre[(size_t)e->cpu * s->c.dset.n + e->type - RC_DYN_BASE];
	return NULL;
}

/*
 * After a snapshot resumed the rings: what the programs could not write
 * since the pause began was refused by a paused ring, not a full one (an
 * overwrite ring is never full): counted paused, out of dropped. The
 * counters held at the pause (hold_stats()) counted those refused until
 * then as dropped: moved too.
 */
static int count_paused(struct rc_bpf *s)
{
	struct rc_stats *st = &s->c.last;
	uint64_t now, moved, *pre;
	uint32_t i;
	int cpu, t;

	for (i = 0; s->stats_held && i < st->nentries; i++) {
		struct rc_stat_entry *e = &st->entries[i];

		pre = pre_of(s, e);
		if (!pre)
			continue;
		now = e->dropped + e->paused; /* the program's count when held */
		moved = now > *pre ? now - *pre : 0;
		if (moved > e->dropped)
			moved = e->dropped;
		e->dropped -= moved;
		e->paused += moved;
	}
	if (bpf_map_lookup_elem(s->stats_fd, &(__u32){ 0 }, s->percpu) < 0)
		return -errno;
	for (cpu = 0; cpu < s->c.ncpus; cpu++)
		for (t = 1; t < RC_EV_MAX; t++) {
			now = s->percpu[cpu].dropped[t];
			if (now > s->pre_dropped[cpu][t])
				s->paused[cpu][t] += now - s->pre_dropped[cpu][t];
		}
	for (i = 0; s->dyn && i < s->c.dset.n; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(s->dyn->maps.dstats), &i, s->dpercpu) < 0)
			return -errno;
		for (cpu = 0; cpu < s->c.ncpus; cpu++) {
			size_t k = (size_t)cpu * s->c.dset.n + i;

			now = s->dpercpu[cpu].dropped;
			if (now > s->dpre[k])
				s->dpaused[k] += now - s->dpre[k];
		}
	}
	return 0;
}

/*
 * The counters are taken with the rings paused (hold_stats()), and kept for
 * the next ones asked for: a switch right after the snapshot ends its file
 * with them, so the file's span made exactly what it holds, dropped or
 * overwrote, and the next file's events are all made after them.
 */
static long bpf_snapshot(struct rc_bpf *s, enum rc_snapshot_why reason)
{
	struct rc_snapshot *sn = &s->snap;
	struct rc_rec_snapshot m = { .hdr = { .type = RC_REC_SNAPSHOT, .size = sizeof(m) } };
	size_t i;
	int err;

	if (!s->c.opts.overwrite || !s->c.started)
		return -EINVAL;
	err = s->user ? 0 : read_dropped(s, s->pre_dropped, s->dpre);
	err = err ?: rc_perfbuf__snapshot(&s->pb, sn, check_record, hold_stats, s);
	err = err ?: (s->user ? 0 : count_paused(s));
	if (err) {
		s->stats_held = false;
		return err;
	}
	m.seq = ++s->nsnap;
	m.reason = reason;
	m.nrec = sn->nrefs;
	m.taken_ts = sn->taken_ts;
	/* the marker sorts first: the writer keeps equal timestamps in order */
	m.hdr.ts = sn->nrefs ? sn->refs[0].ts : sn->taken_ts;
	m.last_ts = sn->nrefs ? sn->refs[sn->nrefs - 1].ts : sn->taken_ts;
	/*
	 * Never before the newest record of the snapshots before: a marker
	 * that took the time of a record in flight when the snapshot before
	 * paused the rings (its time taken before, its write after) sorted
	 * among that one's records, or before an empty one's marker, which
	 * then headed this one's records. Such a record now sorts before this
	 * marker, with the snapshot before: at most one a CPU. An empty
	 * snapshot's time is user space's clock, which can also be behind the
	 * programs' (bpf_ktime_get_boot_ns()) under emulation.
	 */
	if (m.hdr.ts <= s->snap_last_ts)
		m.hdr.ts = s->snap_last_ts + 1;
	if (m.last_ts < m.hdr.ts)
		m.last_ts = m.hdr.ts;
	s->snap_last_ts = m.last_ts;
	err = rc_batcher__put(&s->bt, &m, sizeof(m));
	for (i = 0; !err && i < sn->nrefs; i++) {
		err = rc_batcher__put(&s->bt, sn->refs[i].rec, sn->refs[i].len);
		if (!err)
			rc_bpf__count_captured(s, sn->refs[i].rec);
	}
	err = err ?: rc_batcher__submit(&s->bt);
	if (err) {
		s->stats_held = false;
		return err;
	}
	rc_bpf__recount_captured(s);
	if (s->aux.nev) { /* the AUX areas' snapshot, after the rings' */
		long n = rc_bpf__aux_read(s);

		if (n < 0)
			return n;
	}
	pr_debug("snapshot %llu: %zu records, %llu older ones left out (a ring had overwritten "
		 "their time)\n",
		 (unsigned long long)m.seq, sn->nrefs, (unsigned long long)sn->cut);
	return sn->nrefs;
}

static int bpf_sample(struct rc_capture *c)
{
	return rc_bpf__snapshot_stats(to_bpf(c));
}

static long bpf_read(struct rc_capture *c, uint64_t end)
{
	struct rc_bpf *s = to_bpf(c);
	long n = read_ring(s, false);
	uint64_t now;

	if (n >= 0 && s->aux.nev && !c->opts.overwrite) {
		long k = rc_bpf__aux_read(s);

		n = k < 0 ? k : n + k;
	}

	if (n >= 0)
		note_pending(s);

	if (n < 0 || !c->stacks || !s->bt.cur->len)
		return n;
	now = rc_now_ns(CLOCK_MONOTONIC);
	if (now - s->handed_off < RC_STACKS_HANDOFF_NS)
		return n;
	s->handed_off = now;
	return rc_batcher__submit(&s->bt) ?: n; /* to the writer now: it names stacks */
}

static int bpf_wait(struct rc_capture *c, int ms)
{
	struct rc_bpf *s = to_bpf(c);

	return s->ring->wait(s, ms);
}

static int bpf_push_stats(struct rc_capture *c)
{
	return rc_bpf__push_stats(to_bpf(c));
}

static int bpf_flush(struct rc_capture *c)
{
	return rc_batcher__flush(&to_bpf(c)->bt);
}

/*
 * A switch: what was read, then the counters, then the switch, in that
 * order to the writer thread; the rings are read on meanwhile.
 */
static int bpf_switch(struct rc_capture *c)
{
	struct rc_bpf *s = to_bpf(c);

	return rc_bpf__push_stats(s) ?: rc_batcher__switch(&s->bt);
}

static int bpf_drained(struct rc_capture *c)
{
	return rc_batcher__submit(&to_bpf(c)->bt);
}

/* ---- start and stop --------------------------------------------------- */

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
	if (!err && s->prof)
		err = rc_sampler__attach(&s->sampler, s->prof->progs.handle_sample);
	if (!err && s->offcpu)
		err = offcpu_bpf__attach(s->offcpu);
	/* last: on a shared tracepoint, the sources see a target before it is forgotten */
	if (!err && s->follow)
		err = follow_bpf__attach(s->follow);
	if (err)
		pr_warn("failed to attach BPF programs: %s\n", strerror(-err));
	return err;
}

static void detach_sources(struct rc_bpf *s)
{
	rc_sampler__detach(&s->sampler);
	if (s->offcpu)
		offcpu_bpf__detach(s->offcpu);
	if (s->follow) {
		follow_bpf__detach(s->follow);
		if (s->follow_compat && s->follow->bss->unfollowed) {
			pr_warn("%llu children of targets were not followed: the map of followed "
				"processes, which kernels without BPF atomic and/or (Linux 5.12) "
				"need, was full (%u)\n",
				(unsigned long long)s->follow->bss->unfollowed,
				bpf_map__max_entries(s->follow->maps.followed));
			s->follow->bss->unfollowed = 0; /* said once */
		}
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

static int bpf_start(struct rc_capture *c, int fd)
{
	struct rc_bpf *s = to_bpf(c);
	int err;

	/* mappings made from now on: before the first sample */
	if (s->sb) {
		err = rc_sideband__start(s->sb);
		if (err) {
			pr_warn("failed to start reading perf's side-band records: %s\n",
				strerror(-err));
			return err;
		}
		rc_stacks__set_sideband(s->c.stacks, s->sb);
	}
	/*
	 * Attach before the header is written: once the file is not empty,
	 * tracing is on. Events of the meantime wait in the ring.
	 */
	err = attach_sources(s);
	if (err)
		return err;
	s->attached = true;
	err = rc_bpf__aux_start(s);
	if (err)
		return err;
	err = rc_capture__open_file(&s->c, fd);
	if (err)
		return err;
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
	struct rc_stats_point pt = {}, prev = {};
	int i, agreed = 0;

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0)
		usleep(10000); /* no membarrier: give in-flight programs time */
	for (i = 0; i < 1000; i++) {
		long n = read_ring(s, true);
		bool agree, still;
		int err;

		if (n < 0)
			return n;
		err = rc_bpf__snapshot_stats(s);
		if (err)
			return err;
		rc_stats__totals(&s->c.last, &pt);
		agree = pt.made == pt.dropped + pt.paused + pt.captured + s->malformed;
		/*
		 * After a perf ring's resync, the records it skipped are not
		 * known one by one (pb.malformed counts resyncs): there, the
		 * counters standing still is what settled means.
		 */
		still = i && pt.made == prev.made && pt.dropped == prev.dropped &&
			pt.captured == prev.captured;
		if (!n && (agree || (s->pb.malformed && still))) {
			if (++agreed == 2)
				return 0;
		} else {
			agreed = 0;
		}
		prev = pt;
		usleep(1000); /* two samples that agree, apart: not back to back */
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

	if (s->user)
		return rc_user__put_owed(s->user, ts); /* the user's programs count nothing */
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
	return n < 0 ? (int)n : rc_bpf__snapshot_stats(s);
}

static int bpf_halt(struct rc_capture *c)
{
	struct rc_bpf *s = to_bpf(c);

	detach_sources(s);
	if (s->aux.nev)
		rc_auxsrc__enable(&s->aux, false);
	return 0;
}

static int bpf_stop(struct rc_capture *c)
{
	struct rc_bpf *s = to_bpf(c);
	int err, aux_err;

	detach_sources(s);
	if (s->rb.asleep)
		pr_info("ring: the programs woke the reader %llu times (a mark of %zu bytes); "
			"%llu waits ran to their timeout\n",
			(unsigned long long)s->rb.woken, s->rb.mark,
			(unsigned long long)s->rb.timeouts);
	aux_err = rc_bpf__aux_stop(s); /* the AUX events stopped, and read to the end */
	err = s->c.opts.overwrite ? final_snapshot(s) : settle(s);
	err = err ?: aux_err;
	if (!err && s->c.transport == RC_TRANSPORT_PERFBUF && s->c.has_file)
		err = write_lost_ledger(s);
	if (s->user && rc_user__mismatched(s->user))
		pr_warn("%llu records were not the size of struct %s: stored raw, as bytes\n",
			(unsigned long long)rc_user__mismatched(s->user), s->c.opts.event_type);
	err = err ?: rc_bpf__push_stats(s);
	if (s->malformed)
		pr_warn("%llu malformed records from the ring were discarded\n",
			(unsigned long long)s->malformed);
	if (!s->c.has_file)
		return err;
	return rc_batcher__finish(&s->bt, err);
}

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
		detach_sources(s);
	rc_batcher__destroy(&s->bt);
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

static long bpf_snapshot_op(struct rc_capture *c, enum rc_snapshot_why why)
{
	return bpf_snapshot(to_bpf(c), why);
}

const struct rc_backend_ops rc_bpf_ops = {
	.name = "bpf",
	.add_target = rc_bpf__add_target,
	.start = bpf_start,
	.read = bpf_read,
	.wait = bpf_wait,
	.push_stats = bpf_push_stats,
	.flush = bpf_flush,
	.drained = bpf_drained,
	.sample = bpf_sample,
	.snapshot = bpf_snapshot_op,
	.switch_file = bpf_switch,
	.stop = bpf_stop,
	.halt = bpf_halt,
	.teardown = rc_bpf__teardown,
};
