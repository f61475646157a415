// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AUX area's consumer (aux.h): mapping in the kernel's order, the bytes
 * between aux_tail and aux_head taken in place as perf's
 * auxtrace_mmap__read() takes them, and the data ring's records about them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "capture/perf/aux.h"

static bool pow2(uint64_t n)
{
	return n && !(n & (n - 1));
}

int rc_aux_ring__init(struct rc_aux_ring *a, void *base, size_t data_size, void *aux,
		      size_t aux_size, bool overwrite)
{
	int err;

	memset(a, 0, sizeof(*a));
	a->data.fd = -1;
	if (!pow2(aux_size))
		return -EINVAL;
	err = rc_perf_ring__init(&a->data, base, data_size);
	if (err)
		return err;
	a->aux = aux;
	a->aux_size = aux_size;
	a->overwrite = overwrite;
	/* forward mode starts where the kernel's tail is: 0 after mmap() */
	a->tail = overwrite ? 0 : __atomic_load_n(&a->data.meta->aux_tail, __ATOMIC_RELAXED);
	return 0;
}

int rc_aux_ring__map(struct rc_aux_ring *a, int fd, size_t data_size, size_t aux_size,
		     bool overwrite)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct rc_perf_ring r;
	void *aux;
	int err;

	memset(a, 0, sizeof(*a));
	a->data.fd = -1;
	if (aux_size < page || !pow2(aux_size))
		return -EINVAL;
	/* the data area first, read-write: its records are read forward */
	err = rc_perf_ring__map(&r, fd, data_size, false);
	if (err)
		return err;
	/* page-aligned and at the data area's end; the kernel checks both */
	r.meta->aux_offset = page + data_size;
	r.meta->aux_size = aux_size;
	aux = mmap(NULL, aux_size, overwrite ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)(page + data_size));
	if (aux == MAP_FAILED) {
		err = -errno;
		rc_perf_ring__unmap(&r);
		return err;
	}
	a->data = r;
	a->aux = aux;
	a->aux_size = aux_size;
	a->aux_map_len = aux_size;
	a->overwrite = overwrite;
	a->tail = overwrite ? 0 : __atomic_load_n(&r.meta->aux_tail, __ATOMIC_RELAXED);
	return 0;
}

void rc_aux_ring__unmap(struct rc_aux_ring *a)
{
	if (a->aux_map_len)
		munmap(a->aux, a->aux_map_len);
	rc_perf_ring__unmap(&a->data);
	memset(a, 0, sizeof(*a));
	a->data.fd = -1;
}

uint64_t rc_aux_ring__head(const struct rc_aux_ring *a)
{
	return __atomic_load_n(&a->data.meta->aux_head, __ATOMIC_ACQUIRE);
}

/* The span of @n bytes of the area from offset @off, across its end. */
static void set_span(const struct rc_aux_ring *a, struct rc_aux_span *sp, uint64_t off, uint64_t n)
{
	uint64_t first = a->aux_size - off < n ? a->aux_size - off : n;

	sp->len = n;
	sp->p[0] = a->aux + off;
	sp->n[0] = first;
	sp->p[1] = a->aux;
	sp->n[1] = n - first;
}

/*
 * Whether an overwrite area has wrapped: the bytes after the write offset
 * were written. The kernel gives the area zeroed (PERF_AUX_GFP), and never
 * written bytes stay zero; perf's intel_pt_find_snapshot() looks at the
 * area's end for the same reason.
 */
static bool area_wrapped(const struct rc_aux_ring *a, uint64_t off)
{
	uint64_t end = a->aux_size - off < 4096 ? a->aux_size : off + 4096, i;

	for (i = off; i < end; i++)
		if (a->aux[i])
			return true;
	return false;
}

/*
 * Overwrite mode, the event stopped: every driver (Intel PT, BTS, ARM SPE,
 * CoreSight) gives aux_head as an offset into the area then, not a count.
 * Before the area wraps, the bytes since the last snapshot's offset; once
 * it has, the whole area, oldest first from the offset: how many bytes were
 * overwritten is not known (@sp->wrapped).
 */
static int take_snapshot(struct rc_aux_ring *a, struct rc_aux_span *sp)
{
	uint64_t off = rc_aux_ring__head(a) & (a->aux_size - 1);

	if (!a->wrapped && (off < a->snap_off || area_wrapped(a, off)))
		a->wrapped = true;
	sp->pos = a->tail;
	if (a->wrapped) {
		sp->wrapped = true;
		set_span(a, sp, off, a->aux_size);
	} else {
		if (off == a->snap_off)
			return 0;
		set_span(a, sp, a->snap_off, off - a->snap_off);
	}
	a->snap_off = off;
	return 1;
}

int rc_aux_ring__take(struct rc_aux_ring *a, struct rc_aux_span *sp)
{
	uint64_t head, n;

	memset(sp, 0, sizeof(*sp));
	if (a->overwrite)
		return take_snapshot(a, sp);
	head = rc_aux_ring__head(a);
	n = head - a->tail;
	if (!n)
		return 0;
	if (n > a->aux_size) { /* the kernel never writes past aux_tail: a bad head */
		sp->lost = n - a->aux_size;
		n = a->aux_size;
	}
	sp->pos = head - n;
	set_span(a, sp, sp->pos & (a->aux_size - 1), n);
	return 1;
}

void rc_aux_ring__release(struct rc_aux_ring *a, const struct rc_aux_span *sp)
{
	a->tail = sp->pos + sp->len;
	if (!a->overwrite)
		__atomic_store_n(&a->data.meta->aux_tail, a->tail, __ATOMIC_RELEASE);
}

void rc_aux_ring__clock(const struct rc_aux_ring *a, struct rc_aux_clock *clk)
{
	const struct perf_event_mmap_page *pc = a->data.meta;
	uint32_t seq;

	do {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE); /* odd: being written */
		clk->valid = pc->cap_user_time_zero;
		clk->time_zero = pc->time_zero;
		clk->time_mult = pc->time_mult;
		clk->time_shift = pc->time_shift;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || __atomic_load_n(&pc->lock, __ATOMIC_RELAXED) != seq);
	if (clk->time_shift >= 64)
		clk->valid = false;
}

uint64_t rc_aux_clock__to_perf(const struct rc_aux_clock *clk, uint64_t count)
{
	uint64_t quot, rem;

	if (!clk->valid)
		return 0;
	/* the formula of perf_event.h, which keeps the product within 64 bits */
	quot = count >> clk->time_shift;
	rem = count & ((UINT64_C(1) << clk->time_shift) - 1);
	return clk->time_zero + quot * clk->time_mult + ((rem * clk->time_mult) >> clk->time_shift);
}

/* The record's body after its header, and sample_id at its end: their sizes. */
#define HDR_SZ	     sizeof(struct perf_event_header)
#define SAMPLE_ID_SZ 24u /* u32 pid, tid; u64 time; u32 cpu, res */

int rc_aux__parse_meta(const struct rc_perf_rec *rec, struct rc_aux_meta *m)
{
	const unsigned char *p = (const unsigned char *)rec->data + HDR_SZ;
	const unsigned char *id;
	uint64_t body[3];
	uint32_t v[2];
	size_t need;

	switch (rec->type) {
	case PERF_RECORD_AUX:
		need = 24;
		break;
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		need = 8;
		break;
	case PERF_RECORD_LOST:
		need = 16;
		break;
	default:
		return 0;
	}
	if (rec->size < HDR_SZ + need + SAMPLE_ID_SZ)
		return -EBADMSG;
	memset(m, 0, sizeof(*m));
	m->type = rec->type;
	id = (const unsigned char *)rec->data + rec->size - SAMPLE_ID_SZ;
	memcpy(v, id, 8);
	m->pid = v[0];
	m->tid = v[1];
	memcpy(&m->time, id + 8, 8);
	memcpy(&m->cpu, id + 16, 4);
	memcpy(body, p, need);
	switch (rec->type) {
	case PERF_RECORD_AUX:
		m->offset = body[0];
		m->size = body[1];
		m->flags = body[2];
		break;
	case PERF_RECORD_ITRACE_START:
		memcpy(v, p, 8);
		m->pid = v[0];
		m->tid = v[1];
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		m->hw_id = body[0];
		break;
	case PERF_RECORD_LOST:
		m->lost = body[1]; /* body[0]: the event's id */
		break;
	}
	return 1;
}

/* The data ring: each record of the four types to the sink, counted. */
static long read_meta(struct rc_aux_cpu *ac, const struct rc_aux_sink *sink)
{
	struct rc_perf_ring *r = &ac->ring.data;
	uint64_t head = rc_perf_ring__head(r), pos = r->meta->data_tail;
	struct rc_perf_rec rec;
	struct rc_aux_meta m;
	long n = 0;
	int ret;

	while ((ret = rc_perf_ring__next(r, &pos, head, &rec)) != 0) {
		if (ret < 0) { /* a bad size: the walk is at the head */
			ac->n.bad++;
			break;
		}
		ret = rc_aux__parse_meta(&rec, &m);
		if (ret < 0) /* too short for its type, its size sound: the next is whole */
			ac->n.bad++;
		if (ret <= 0)
			continue;
		if (m.type == PERF_RECORD_AUX) {
			ac->n.records++;
			ac->n.truncated += !!(m.flags & PERF_AUX_FLAG_TRUNCATED);
			ac->n.partial += !!(m.flags & PERF_AUX_FLAG_PARTIAL);
			ac->n.collision += !!(m.flags & PERF_AUX_FLAG_COLLISION);
		} else if (m.type == PERF_RECORD_LOST) {
			ac->n.meta_lost += m.lost;
		}
		ret = sink->meta(sink->ctx, ac->cpu, &m);
		if (ret < 0)
			return ret;
		n++;
	}
	rc_perf_ring__store_tail(r, pos);
	return n;
}

long rc_aux_cpu__read(struct rc_aux_cpu *ac, const struct rc_aux_sink *sink)
{
	long n = read_meta(ac, sink);
	struct rc_aux_span sp;
	int ret;

	if (n < 0)
		return n;
	if (rc_aux_ring__take(&ac->ring, &sp)) {
		ret = sink->bytes(sink->ctx, ac->cpu, &sp);
		if (ret < 0)
			return ret;
		ac->n.captured += sp.len;
		ac->n.lost += sp.lost;
		ac->n.made += sp.len + sp.lost;
		ac->n.wraps += sp.wrapped;
		rc_aux_ring__release(&ac->ring, &sp);
		n++;
	}
	/*
	 * Forward mode: the kernel disables the event when a stretch is cut
	 * (TRUNCATED) or finds no room (without a record), from irq_work that
	 * may run after this read has made room; an enabled event's ENABLE
	 * does nothing. So enable at every read: one ioctl a CPU a pass.
	 */
	if (!ac->ring.overwrite && sink->enable) {
		ret = sink->enable(sink->ctx, ac->cpu);
		if (ret < 0)
			return ret;
		ac->n.enables++;
	}
	return n;
}
