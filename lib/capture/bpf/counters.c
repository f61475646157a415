// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend's counters: what each program made, dropped and
 * filtered per CPU and event, what was read, and what the kernel skipped,
 * read from the BPF maps into struct rc_stats.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture/bpf/bpf.h"
#include "syscalls.skel.h"
#include "sched.skel.h"
#include "profile.skel.h"
#include "offcpu.skel.h"
#include "dyn.skel.h"
#include "util/util.h"

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
 * A program serves many tracepoints (every uprobe), and the kernel counts
 * skipped runs per program: they are counted under the first event that
 * program serves.
 */
static void add_dyn_missed(struct rc_bpf *s, struct rc_stats *st)
{
	size_t i, k;

	for (i = 0; i < s->c.dset.n; i++) {
		const struct rc_dyn_event *e = &s->c.dset.ev[i];
		uint64_t m;

		if (!e->prog)
			continue;
		for (k = 0; k < i && s->c.dset.ev[k].prog != e->prog; k++)
			;
		if (k < i || !(m = prog_missed(e->prog)))
			continue;
		st->entries[st->nentries++] =
		    (struct rc_stat_entry){ .cpu = RC_CPU_ANY, .type = e->id, .missed = m };
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
	} progs[12];
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
	if (s->fw.fork) {
		progs[n++] = (typeof(progs[0])){ RC_TYPE_FOLLOW, s->fw.fork };
		/* a skipped exit only keeps a dead tgid a target: nothing is lost */
	}
	/*
	 * The sampling program's too, though no kernel counts its misses:
	 * bpf_overflow_handler() skips it while a kprobe or classic
	 * tracepoint program runs on its CPU (bpf_prog_active) and counts
	 * nothing, on 6.1 as on 6.18. add_sampling() estimates those skips.
	 */
	if (s->prof)
		progs[n++] = (typeof(progs[0])){ RC_EV_SAMPLE, s->prof->progs.handle_sample };
	if (s->offcpu)
		progs[n++] =
		    (typeof(progs[0])){ RC_EV_OFFCPU, s->offcpu->progs.handle_offcpu_switch };
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

/*
 * record -F / -c: the samples the programs never saw, per CPU, from each
 * sampling event's count against the periods of the program's runs
 * (rc_sampler__estimate()), and the time the kernel throttled it.
 */
static void add_sampling(struct rc_bpf *s, struct rc_stats *st)
{
	bool clock = s->prof && !strcmp(s->sampler.event, "cpu-clock");
	/* until a sample says: cpu-clock's -F is a period of 1e9/F ns */
	uint64_t period = s->sampler.period
			      ?: clock && s->sampler.freq ? 1000000000ull / s->sampler.freq
							  : 0;
	int cpu;

	for (cpu = 0; s->prof && cpu < s->c.ncpus; cpu++) {
		const struct rc_bpf_stats *b = &s->percpu[cpu];
		struct rc_stat_entry *e = NULL;
		struct rc_sampler_counts c;
		uint64_t not_run, throttled;
		uint32_t i;
		int err;

		err = rc_sampler__read(&s->sampler, cpu, &c);
		if (err) {
			if (err != -ENOENT)
				pr_debug("sampling: CPU %d's count: %s\n", cpu, strerror(-err));
			continue;
		}
		rc_sampler__estimate(&c, clock, b->made[RC_EV_SAMPLE] + b->filtered[RC_EV_SAMPLE],
				     b->period_sum, period, &not_run, &throttled);
		pr_debug("sampling: CPU %d: count %llu over %llu ns, %llu runs of %llu periods; "
			 "throttled %llu times, %llu ns: %llu not run, %llu throttled\n",
			 cpu, (unsigned long long)c.count, (unsigned long long)c.enabled,
			 (unsigned long long)(b->made[RC_EV_SAMPLE] + b->filtered[RC_EV_SAMPLE]),
			 (unsigned long long)b->period_sum, (unsigned long long)c.throttles,
			 (unsigned long long)c.throttled_ns, (unsigned long long)not_run,
			 (unsigned long long)throttled);
		/*
		 * Estimates, which can come out lower than an earlier one: the
		 * counters are cumulative, and a file's END - BASE must not
		 * underflow, so never give less than was given before.
		 */
		if (not_run < s->est[cpu].not_run)
			not_run = s->est[cpu].not_run;
		if (throttled < s->est[cpu].throttled)
			throttled = s->est[cpu].throttled;
		s->est[cpu].not_run = not_run;
		s->est[cpu].throttled = throttled;
		if (!not_run && !c.throttles)
			continue;
		for (i = 0; i < st->nentries && !e; i++)
			if (st->entries[i].cpu == (uint32_t)cpu &&
			    st->entries[i].type == RC_EV_SAMPLE)
				e = &st->entries[i];
		if (!e) {
			e = &st->entries[st->nentries++];
			*e = (struct rc_stat_entry){ .cpu = cpu, .type = RC_EV_SAMPLE };
		}
		e->not_run = not_run;
		e->throttled = throttled;
		e->throttled_ns = c.throttled_ns;
		e->throttles = c.throttles;
		if (c.lost && !s->warned_throttle_lost) {
			s->warned_throttle_lost = true;
			pr_warn(
			    "sampling: the kernel throttled so often that throttle records were "
			    "lost: the time throttled is short\n");
		}
	}
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

			size_t k = (size_t)cpu * s->c.dset.n + i;
			uint64_t paused = s->dpaused[k] < b->dropped ? s->dpaused[k] : b->dropped;

			s->ddropped[cpu] += b->dropped;
			struct rc_stat_entry e = { .cpu = cpu,
						   .type = RC_DYN_BASE + i,
						   .made = b->made,
						   .dropped = b->dropped - paused,
						   .filtered = b->filtered,
						   .captured = s->dcaptured[k],
						   .paused = paused };

			if (e.made || e.dropped || e.filtered || e.captured)
				st->entries[st->nentries++] = e;
		}
	}
	return 0;
}

/*
 * --bpf: what the user's programs made is what was read, and what a perf
 * ring lost (counted under the struct's event). A BPF ring buffer that
 * was full is the programs' to count: the kernel does not. An event whose
 * records tell no CPU (a BPF ring buffer's) is counted for all CPUs
 * together, not as CPU 0's.
 */
static void user_stats(struct rc_bpf *s, struct rc_stats *st)
{
	uint16_t lost_id = rc_user__event_id(s->user);
	size_t i;
	int cpu;

	for (i = 0; i < s->c.dset.n; i++) {
		bool no_cpu = s->c.dset.ev[i].desc.flags & RC_EVENT_NO_CPU;
		struct rc_stat_entry all = { .cpu = RC_CPU_ANY, .type = RC_DYN_BASE + i };

		for (cpu = 0; cpu < s->c.ncpus; cpu++) {
			uint64_t c = s->dcaptured[(size_t)cpu * s->c.dset.n + i];
			uint64_t l = RC_DYN_BASE + i == lost_id ? s->ulost[cpu] : 0;
			struct rc_stat_entry e = { .cpu = cpu,
						   .type = RC_DYN_BASE + i,
						   .made = c + l,
						   .dropped = l,
						   .captured = c };

			all.made += e.made;
			all.dropped += e.dropped;
			all.captured += e.captured;
			if (e.made && !no_cpu)
				st->entries[st->nentries++] = e;
		}
		if (all.made && no_cpu)
			st->entries[st->nentries++] = all;
	}
}

/*
 * Take the counters now into s->c.last; or, once after a flight recorder's
 * snapshot, keep those taken while its rings were paused
 * (rc_bpf__hold_stats()).
 */
int rc_bpf__snapshot_stats(struct rc_bpf *s)
{
	struct rc_stats *st = &s->c.last;
	__u32 zero = 0;
	int cpu, t, n = 0;

	if (s->stats_held) {
		s->stats_held = false;
		return 0;
	}
	if (!s->user && bpf_map_lookup_elem(s->stats_fd, &zero, s->percpu) < 0)
		return -errno;
	st->ts = rc_now_ns(CLOCK_BOOTTIME);
	/* a ring's: a CPU's with a ring per CPU, as ring_hwm and ring_pending are the fullest's */
	st->ring_size = s->ring_size ?: s->c.opts.ringbuf_size;
	st->ring_hwm = s->ring_hwm;
	st->ring_pending = s->c.opts.overwrite ? 0 : s->ring->pending(s, false);
	st->user_dropped = s->malformed + s->pb.malformed;
	st->writer_wait_ns = rc_batcher__wait_ns(&s->bt);
	for (cpu = 0; cpu < s->c.ncpus; cpu++) {
		for (t = 1; t < RC_EV_MAX; t++) {
			const struct rc_bpf_stats *b = &s->percpu[cpu];
			uint64_t paused =
			    s->paused[cpu][t] < b->dropped[t] ? s->paused[cpu][t] : b->dropped[t];
			struct rc_stat_entry e = { .cpu = cpu,
						   .type = t,
						   .made = b->made[t],
						   .dropped = b->dropped[t] - paused,
						   .filtered = b->filtered[t],
						   .captured = s->captured[cpu][t],
						   .paused = paused };

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
	add_sampling(s, st);
	add_missed(s, st);
	if (s->aux.nev)
		st->nentries += rc_auxsrc__entries(&s->aux, st->entries + st->nentries);
	/*
	 * A flight recorder reads its rings only at snapshots: what they hold
	 * meanwhile is overwritten as often as not, and counted so (the
	 * ledger's overwritten), not in flight.
	 */
	if (!s->c.opts.overwrite)
		rc_stats__set_in_flight(st);
	return 0;
}

/*
 * Flight recorder, with a snapshot's rings paused and copied: take the
 * counters now, for the next rc_bpf__snapshot_stats() to keep. Taken after
 * the resume instead, they would count in made the events of the next
 * snapshot: a file switched after it would claim them (overwritten, to its
 * ledger) while the next file holds them. --bpf counts made from what was
 * read: nothing to hold.
 */
int rc_bpf__hold_stats(struct rc_bpf *s)
{
	int err;

	if (s->user)
		return 0;
	s->stats_held = false;
	err = rc_bpf__snapshot_stats(s);
	s->stats_held = !err;
	return err;
}

/*
 * The held counters were taken before the snapshot's records were counted
 * captured: count them in. Each of those records' CPU and event has an
 * entry already: its event was counted made before it was written.
 */
void rc_bpf__recount_captured(struct rc_bpf *s)
{
	struct rc_stats *st = &s->c.last;
	uint32_t i;

	if (!s->stats_held)
		return;
	for (i = 0; i < st->nentries; i++) {
		struct rc_stat_entry *e = &st->entries[i];

		if (e->cpu >= (uint32_t)s->c.ncpus)
			continue;
		if (e->type >= RC_DYN_BASE && e->type - RC_DYN_BASE < s->c.dset.n)
			e->captured =
			    s->dcaptured[(size_t)e->cpu * s->c.dset.n + e->type - RC_DYN_BASE];
		else if (e->type < RC_EV_MAX)
			e->captured = s->captured[e->cpu][e->type];
	}
}

/* What was read so far, then the counters, to the file. */
int rc_bpf__push_stats(struct rc_bpf *s)
{
	int err = rc_batcher__submit(&s->bt);

	err = err ?: rc_bpf__snapshot_stats(s);
	if (err)
		return err;
	s->c.last_stats = rc_now_ns(CLOCK_MONOTONIC);
	return rc_batcher__stats(&s->bt, &s->c.last);
}
