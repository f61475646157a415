/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF ring buffer's read (ringbuf.c, which says how), inline: a caller
 * that passes its own count function (rings.c's) gets it inlined into the
 * loop over the records, where a call through a pointer a record was a
 * third of the drain's samples (perf record of a storm on two CPUs).
 * Included by ringbuf.c and rings.c only.
 */
#ifndef RINGCAP_RINGBUF_READ_H
#define RINGCAP_RINGBUF_READ_H

#include <string.h>
#include <linux/bpf.h>
#include "capture/bpf/ringbuf.h"

#define RB_HDR_SZ 8u

/*
 * A record's copy: a small one (most are: 40 to 128 bytes, whole words)
 * as two copies of a fixed size that overlap, inline, where memcpy() of a
 * length known only here is a call and its dispatch, and a loop a word at
 * a time was 39 instructions for a 56-byte record (callgrind).
 */
static inline void rb_copy_rec(unsigned char *dst, const unsigned char *src, uint32_t len)
{
	if (len >= 32 && len <= 64) {
		memcpy(dst, src, 32);
		memcpy(dst + len - 32, src + len - 32, 32);
	} else if (len > 64 && len <= 128) {
		memcpy(dst, src, 64);
		memcpy(dst + len - 64, src + len - 64, 64);
	} else {
		memcpy(dst, src, len);
	}
}

/* The one ring: in its order, the order the programs reserved in. */
static inline __attribute__((always_inline)) long rb_read_one(struct rc_ringbuf *rb, void *buf,
							      size_t cap, size_t *used,
							      rc_ringbuf_count_fn count, void *ctx)
{
	struct rc_bring *r = &rb->rings[0];
	unsigned long cons = __atomic_load_n(r->cons, __ATOMIC_ACQUIRE);
	unsigned long prod = __atomic_load_n(r->prod, __ATOMIC_ACQUIRE);
	unsigned char *out = buf;
	size_t pos = *used;
	long n = 0;

	if (!r->data) /* not mapped yet (rc_ringbuf__map_data()) */
		return 0;
	while (cons < prod) {
		const unsigned char *rec = r->data + (cons & rb->mask);
		uint32_t len = __atomic_load_n((const uint32_t *)rec, __ATOMIC_ACQUIRE);
		uint32_t sz;

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		sz = ((len & ~BPF_RINGBUF_DISCARD_BIT) + RB_HDR_SZ + 7) & ~7u;
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			uint32_t dlen = len & ~BPF_RINGBUF_DISCARD_BIT;

			/* full buffer: stop, unless the record could never fit */
			if (dlen > cap - pos && dlen <= cap)
				break;
			if (count(ctx, rec + RB_HDR_SZ, dlen) && dlen <= cap - pos) {
				rb_copy_rec(out + pos, rec + RB_HDR_SZ, dlen);
				pos += dlen;
				n++;
			}
		}
		cons += sz;
		/* let the kernel reuse space as soon as a batch is taken */
		if (n % 256 == 0)
			__atomic_store_n(r->cons, cons, __ATOMIC_RELEASE);
		if (cons >= prod)
			prod = __atomic_load_n(r->prod, __ATOMIC_ACQUIRE);
	}
	__atomic_store_n(r->cons, cons, __ATOMIC_RELEASE);
	*used = pos;
	return n;
}

/*
 * The next committed record of ring @r: its data in *@rec, its length in
 * *@len, its time in *@ts (0 for one too short to hold one: the count
 * rejects it). False when there is none, or the next is still being
 * written. Discarded records (none of ours) are skipped. Inline: a call
 * a record was a fifth of the merged read's instructions.
 */
static inline __attribute__((always_inline)) bool rb_peek(struct rc_ringbuf *rb, struct rc_bring *r,
							  const unsigned char **rec, uint32_t *len,
							  uint64_t *ts)
{
	if (!r->data) /* not mapped yet (rc_ringbuf__map_data()) */
		return false;
	for (;;) {
		const unsigned char *p;
		uint32_t l, sz;

		if (r->pos >= r->end) {
			r->end = __atomic_load_n(r->prod, __ATOMIC_ACQUIRE);
			if (r->pos >= r->end)
				return false;
		}
		p = r->data + (r->pos & rb->mask);
		l = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
		if (l & BPF_RINGBUF_BUSY_BIT)
			return false;
		sz = ((l & ~BPF_RINGBUF_DISCARD_BIT) + RB_HDR_SZ + 7) & ~7u;
		if (l & BPF_RINGBUF_DISCARD_BIT) {
			r->pos += sz;
			continue;
		}
		*rec = p + RB_HDR_SZ;
		*len = l;
		*ts = 0;
		if (l >= sizeof(*ts))
			memcpy(ts, *rec, sizeof(*ts));
		return true;
	}
}

static inline void rb_store_cons(struct rc_ringbuf *rb)
{
	uint32_t i;

	for (i = 0; i < rb->nrings; i++)
		__atomic_store_n(rb->rings[i].cons, rb->rings[i].pos, __ATOMIC_RELEASE);
}

/*
 * A ring per CPU: merged in time order. The ring whose next record is the
 * oldest gives records for as long as they are no newer than the other
 * rings' next: a run, taken without looking at the other rings again.
 * Each ring's next record is looked at once (peek() into the ring's
 * head): a scan looks again only at the rings that had none, and a run
 * at the ring it takes from. With two CPUs in a storm the runs are a
 * record or two long, and looking again at every ring at every scan, and
 * at the run's first record twice, was half the drain's instructions.
 */
static inline __attribute__((always_inline)) long
rb_read_merged(struct rc_ringbuf *rb, void *buf, size_t cap, size_t *used, uint64_t until,
	       rc_ringbuf_count_fn count, void *ctx)
{
	unsigned char *out = buf;
	size_t pos = *used;
	long n = 0, k = 0;
	uint32_t i;

	for (i = 0; i < rb->nrings; i++)
		rb->rings[i].has = false;
	for (;;) {
		uint64_t mts = 0, limit = until;
		struct rc_bring *min = NULL;

		/* a linear scan: the rings are few, and it is branch-predictable */
		for (i = 0; i < rb->nrings; i++) {
			struct rc_bring *r = &rb->rings[i];

			if (!r->has)
				r->has = rb_peek(rb, r, &r->hrec, &r->hlen, &r->hts);
			if (!r->has || r->hts > until)
				continue;
			if (!min || r->hts < mts) {
				if (min)
					limit = mts;
				min = r;
				mts = r->hts;
			} else if (r->hts < limit) {
				limit = r->hts;
			}
		}
		if (!min)
			break;
		/* the run: @min's records up to the next of another ring */
		do {
			uint32_t len = min->hlen;

			/* full buffer: stop, unless the record could never fit */
			if (len > cap - pos && len <= cap)
				goto out;
			if (count(ctx, min->hrec, len) && len <= cap - pos) {
				rb_copy_rec(out + pos, min->hrec, len);
				pos += len;
				n++;
			}
			min->pos += (len + RB_HDR_SZ + 7) & ~7u;
			/* give space back as we go, not only at the end of a long read */
			if (++k % 256 == 0)
				rb_store_cons(rb);
			min->has = rb_peek(rb, min, &min->hrec, &min->hlen, &min->hts);
		} while (min->has && min->hts <= limit);
	}
out:
	rb_store_cons(rb);
	*used = pos;
	return n;
}

/*
 * Copy committed records into buf[*used..cap), advancing *used; stops at a
 * record still being written, at the end of the ring, or when buf is full.
 * @count (ringbuf.h) is called on each record before it is copied.
 * Returns the number of records copied. Inline: the drain (rings.c) is
 * its one caller.
 *
 * A ring per CPU: each ring's records, merged in time order as
 * rc_perfbuf__read() merges perf rings, up to @until (UINT64_MAX: all),
 * with no hold-back: what comes microseconds out of order across rings the
 * writer's reorder window sorts (ringbuf.c). One ring:
 * @until is not used (the ring's order is the order the programs
 * reserved in).
 */
static inline __attribute__((always_inline)) long
rc_ringbuf__read_inline(struct rc_ringbuf *rb, void *buf, size_t cap, size_t *used, uint64_t until,
			rc_ringbuf_count_fn count, void *ctx)
{
	if (rb->nrings == 1)
		return rb_read_one(rb, buf, cap, used, count, ctx);
	return rb_read_merged(rb, buf, cap, used, until, count, ctx);
}

#endif /* RINGCAP_RINGBUF_READ_H */
