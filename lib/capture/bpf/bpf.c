// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend: the sources' programs write into one shared ring (a
 * BPF ring buffer, or a perf ring per CPU); the drain reads it into
 * batches (capture/batch.h) through a table of ring operations, and the
 * flight recorder takes snapshots of the perf rings. Open and teardown
 * are in open.c, attaching in attach.c, the ring operations in rings.c,
 * the counters in counters.c: this file depends on them, none on it.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

_Static_assert(RC_DYN_BASE == RC_FIRST_DYN_ID, "dynamic event ids");
_Static_assert(RC_EV_SAMPLE == RC_SAMPLE_ID, "the sample event's id");
_Static_assert(RC_EV_OFFCPU == RC_OFFCPU_ID, "the offcpu event's id");
_Static_assert(RC_EV_STACK == RC_STACK_ID, "the stack event's id");

/* ---- draining --------------------------------------------------------- */
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
		if (n < 0)
			return n;
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
	err = err ?: rc_perfbuf__snapshot(&s->pb, sn, rc_bpf__check_record, hold_stats, s);
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
	int err;

	/*
	 * Flight recorder (perf rings only): the trigger rings wake us
	 * (--snapshot-on), and a trigger takes a snapshot.
	 */
	if (!s->c.opts.overwrite || !s->nb.nrings)
		return s->ring->wait(s, ms); /* no rings in nb: perf rings' wait, a sleep */
	err = rc_notify__poll(&s->nb, ms);
	if (err > 0) {
		long n = bpf_snapshot(s, RC_SNAPSHOT_EVENT);

		return n < 0 ? (int)n : 1;
	}
	return err;
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

/* The batch being filled: handed over at the drain's end or a switch, unchecked. */
static size_t bpf_unsent(struct rc_capture *c)
{
	const struct rc_bpf *s = to_bpf(c);

	return s->bt.cur ? s->bt.cur->len : 0;
}

/* ---- start and stop --------------------------------------------------- */

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
	err = rc_bpf__attach(s);
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
 * Wait for programs running on other CPUs to finish: a grace period of
 * membarrier(2); without it, 10 ms slept whole, however many signals (a
 * command's SIGCHLD) come in between.
 */
static void programs_done(void)
{
	struct timespec until;

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += 10 * 1000 * 1000;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
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

	programs_done();
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

	programs_done();
	/*
	 * A trigger the loop had no turn to see: the command's exit_group,
	 * say, with the command's exit ending the loop first. Its snapshot
	 * comes before the end's, as it would have.
	 */
	if (s->nb.nrings && rc_notify__poll(&s->nb, 0) > 0) {
		n = bpf_snapshot(s, RC_SNAPSHOT_EVENT);
		if (n < 0)
			return (int)n;
	}
	n = bpf_snapshot(s, RC_SNAPSHOT_EXIT);
	return n < 0 ? (int)n : rc_bpf__snapshot_stats(s);
}

static int bpf_halt(struct rc_capture *c)
{
	struct rc_bpf *s = to_bpf(c);

	rc_bpf__detach(s);
	if (s->aux.nev)
		rc_auxsrc__enable(&s->aux, false);
	return 0;
}

static int bpf_stop(struct rc_capture *c)
{
	struct rc_bpf *s = to_bpf(c);
	int err, aux_err;

	rc_bpf__detach(s);
	if (s->rb.asleep)
		pr_info("ring: the programs woke the reader %llu times (a mark of %zu bytes); "
			"%llu waits found the mark reached and did not sleep; "
			"%llu waits ran to their timeout\n",
			(unsigned long long)s->rb.woken, s->rb.mark,
			(unsigned long long)s->rb.found, (unsigned long long)s->rb.timeouts);
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

static long bpf_snapshot_op(struct rc_capture *c, enum rc_snapshot_why why)
{
	return bpf_snapshot(to_bpf(c), why);
}

const struct rc_backend_ops rc_bpf_ops = {
	.name = "bpf",
	.transports =
	    1u << RC_TRANSPORT_AUTO | 1u << RC_TRANSPORT_RINGBUF | 1u << RC_TRANSPORT_PERFBUF,
	.open = rc_bpf__open,
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
	.unsent = bpf_unsent,
	.stop = bpf_stop,
	.halt = bpf_halt,
	.teardown = rc_bpf__teardown,
};
