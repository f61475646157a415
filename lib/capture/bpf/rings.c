// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF backend's rings as the drain (bpf.c) sees them: a table of
 * operations for each kind (the BPF ring buffer, perf rings, libbpf's for
 * --bpf), picked at open (open.c), and the check and count of each record
 * read. Depends on no other file of the backend.
 */
#include <string.h>
#include "capture/bpf/bpf.h"
#include "capture/bpf/ringbuf_read.h"
#include "util/util.h"

/*
 * Is this a record a BPF program of ours made (@h its header, @len its
 * size)? Called on every record read: a dynamic event's id is checked
 * against the set's count here, as rc_dyn__event() would, without a call.
 */
static inline bool record_ok(const struct rc_bpf *s, const struct rc_rec_hdr *h, uint32_t len)
{
	return h->size == len && h->type && h->cpu < s->c.ncpus && !(h->size % RC_REC_ALIGN) &&
	       (h->type < RC_EV_MAX ||
		(h->type >= RC_DYN_BASE && (size_t)(h->type - RC_DYN_BASE) < s->c.dset.n));
}

static inline void count_hdr(struct rc_bpf *s, const struct rc_rec_hdr *h)
{
	if (h->type >= RC_DYN_BASE)
		s->dcaptured[(size_t)h->cpu * s->c.dset.n + h->type - RC_DYN_BASE]++;
	else
		s->captured[h->cpu][h->type]++;
}

/* Is this a record a BPF program of ours made? Counts it malformed if not (bpf.h). */
bool rc_bpf__check_record(void *ctx, const void *rec, uint32_t len)
{
	struct rc_bpf *s = ctx;
	struct rc_rec_hdr h;

	if (len < sizeof(h) || len > RC_REC_MAX) {
		s->malformed++;
		return false;
	}
	memcpy(&h, rec, sizeof(h));
	if (!record_ok(s, &h, len)) {
		s->malformed++;
		return false;
	}
	return true;
}

void rc_bpf__count_captured(struct rc_bpf *s, const void *rec)
{
	struct rc_rec_hdr h;

	memcpy(&h, rec, sizeof(h));
	count_hdr(s, &h);
}

/* The check and the count of each record read, its header loaded once: inlined into the read. */
static inline bool count_record(void *ctx, const void *rec, uint32_t len)
{
	struct rc_bpf *s = ctx;
	struct rc_rec_hdr h;

	if (len < sizeof(h) || len > RC_REC_MAX) {
		s->malformed++;
		return false;
	}
	memcpy(&h, rec, sizeof(h));
	if (!record_ok(s, &h, len)) {
		s->malformed++;
		return false;
	}
	count_hdr(s, &h);
	return true;
}

/* ---- the rings: the BPF ring buffer, perf rings, libbpf's for --bpf ---- */

static size_t ringbuf_pending(const struct rc_bpf *s, bool sum)
{
	return rc_ringbuf__pending(&s->rb, sum);
}

/* the one ring in its order; a ring per CPU merged, up to @until (as perf rings) */
static long ringbuf_read(struct rc_bpf *s, uint64_t until)
{
	int err = rc_ringbuf__map_data(&s->rb);

	if (err)
		return err;
	return rc_ringbuf__read_inline(&s->rb, s->bt.cur->buf, RC_BATCH_SIZE, &s->bt.cur->len,
				       until, count_record, s);
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
				  rc_bpf__check_record, s);
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

static int perfbuf_wait(struct rc_bpf *s, int ms)
{
	return rc_perfbuf__wait(&s->pb, ms);
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
