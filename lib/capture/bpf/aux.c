// SPDX-License-Identifier: GPL-2.0-only
/*
 * -e PMU// beside the BPF sources (perf/auxsrc.h): the AUX events start
 * once the programs are attached, the drain reads them with the rings,
 * their bytes go to the writer thread as AUX blocks and their data ring's
 * records into the batch as ringcap:aux records, in the capture's order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "capture/bpf/bpf.h"
#include "capture/perf/pmu.h"
#include "util/util.h"

int rc_bpf__aux_parse(struct rc_bpf *s)
{
	const struct rc_record_opts *o = &s->c.opts;

	if (!o->npmu_events)
		return 0;
	if (o->npmu_events > 1) {
		pr_warn("-e: one PMU event with an AUX stream at a time (%s and %s given)\n",
			o->pmu_events[0], o->pmu_events[1]);
		return -EINVAL;
	}
	if (o->npids > 1) {
		pr_warn("-e %s traces one process and its children, or every task: give one -p, "
			"or none\n",
			o->pmu_events[0]);
		return -EINVAL;
	}
	if (o->npids)
		s->aux_pid = o->pids[0];
	return rc_auxsrc__parse(&s->aux, o->pmu_events, o->npmu_events, s->c.ncpus);
}

static int ring_epfd(const struct rc_bpf *s)
{
	return s->c.transport == RC_TRANSPORT_RINGBUF ? s->rb.epfd : s->pb.epfd;
}

int rc_bpf__aux_start(struct rc_bpf *s)
{
	int err, c;

	if (!s->aux.nev)
		return 0;
	err = rc_auxsrc__open(&s->aux, s->aux_pid ?: -1, s->c.opts.aux_size, s->c.opts.overwrite);
	if (!err && !s->c.opts.overwrite && ring_epfd(s) >= 0)
		err = rc_auxsrc__watch(&s->aux, ring_epfd(s));
	if (err)
		return err;
	for (c = 0; c < s->aux.ncpus && !s->aux_perf_to_boot; c++)
		if (s->aux.ev[0].fds[c] >= 0)
			s->aux_perf_to_boot = rc_aux__perf_to_boot(&s->aux.ev[0].cpus[c].ring);
	/*
	 * Without the hardware clock's conversion, perf time (local_clock())
	 * is taken as CLOCK_MONOTONIC's, which it follows closely: on the
	 * capture clock by the time suspended.
	 */
	if (!s->aux_perf_to_boot)
		s->aux_perf_to_boot =
		    (int64_t)(rc_now_ns(CLOCK_BOOTTIME) - rc_now_ns(CLOCK_MONOTONIC));
	err = rc_auxsrc__enable(&s->aux, true);
	if (err)
		pr_warn("-e %s: cannot enable the event: %s\n", s->aux.ev[0].spec, strerror(-err));
	return err;
}

/* AUX bytes: copied out, in stretches of at most an AUX block's, to the writer. */
static int put_bytes(void *ctx, int cpu, const struct rc_aux_span *sp)
{
	struct rc_bpf *s = ctx;
	const struct rc_aux_ring *ring = &s->aux.ev[0].cpus[cpu].ring;
	struct rc_aux_clock clk;
	int64_t perf_to_boot;
	uint64_t done = 0;
	int err;

	rc_aux_ring__clock(ring, &clk);
	/* measured at each copy: perf time and the capture clock drift apart */
	perf_to_boot = rc_aux__perf_to_boot(ring) ?: s->aux_perf_to_boot;
	s->aux_perf_to_boot = perf_to_boot;
	while (done < sp->len) {
		uint64_t n = sp->len - done < RC_AUX_MAX ? sp->len - done : RC_AUX_MAX, k;
		struct rc_aux_chunk *ac = malloc(sizeof(*ac) + n);
		unsigned char *dst;
		uint64_t off = done;
		int piece;

		if (!ac)
			return -ENOMEM;
		dst = (unsigned char *)(ac + 1);
		*ac = (struct rc_aux_chunk){
			.cpu = cpu,
			.flags = (s->aux.overwrite ? RC_AUX_F_SNAPSHOT : 0) |
				 (sp->wrapped && !done ? RC_AUX_F_WRAPPED : 0),
			.pmu_type = s->aux.ev[0].attr.type,
			.pos = sp->pos + done,
			.size = n,
			.lost = done ? 0 : sp->lost,
			.ts = rc_now_ns(CLOCK_BOOTTIME),
			.time_zero = clk.time_zero,
			.time_mult = clk.time_mult,
			.time_shift = clk.time_shift,
			.clock_valid = clk.valid,
			.perf_to_boot = clk.valid ? perf_to_boot : 0,
			.data = dst,
		};
		/* bytes [off, off + n) of the span's two pieces */
		for (piece = 0, k = 0; piece < 2 && k < n; piece++) {
			uint64_t len = sp->n[piece];

			if (off >= len) {
				off -= len;
				continue;
			}
			len = len - off < n - k ? len - off : n - k;
			memcpy(dst + k, sp->p[piece] + off, len);
			k += len;
			off = 0;
		}
		rc_pmu__name(s->aux.ev[0].spec, ac->pmu, sizeof(ac->pmu));
		err = rc_batcher__aux(&s->bt, ac);
		if (err)
			return err;
		done += n;
	}
	return 0;
}

/* A data-ring record about the AUX stream: a ringcap:aux record in the batch. */
static int put_meta(void *ctx, int cpu, const struct rc_aux_meta *m)
{
	struct rc_bpf *s = ctx;
	struct rc_rec_aux r = {
		/* perf time on the capture clock */
		.hdr = { .ts = m->time + s->aux_perf_to_boot,
			 .pid = m->pid,
			 .tid = m->tid,
			 .type = RC_REC_AUX,
			 .size = sizeof(r),
			 .cpu = cpu },
		.offset = m->offset,
		.size = m->size,
		.flags = m->flags,
		.value = m->type == PERF_RECORD_LOST ? m->lost : m->hw_id,
		.kind = m->type,
	};

	/* a snapshot's stream holds the rings' records alone: counted, not written */
	if (s->aux.overwrite)
		return 0;
	return rc_batcher__put(&s->bt, &r, sizeof(r));
}

long rc_bpf__aux_read(struct rc_bpf *s)
{
	const struct rc_aux_sink sink = { put_bytes, put_meta, NULL, s };

	return s->aux.nev ? rc_auxsrc__read(&s->aux, &sink) : 0;
}

int rc_bpf__aux_stop(struct rc_bpf *s)
{
	long n;
	int err;

	if (!s->aux.nev || !s->aux.ev[0].fds)
		return 0;
	err = rc_auxsrc__enable(&s->aux, false);
	n = rc_bpf__aux_read(s); /* the rest; in overwrite mode, the last snapshot */
	return err ?: n < 0 ? (int)n : 0;
}
